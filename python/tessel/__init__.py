"""tessel: sparse SpMM, X-ray CT reconstruction and sparse DNN inference from Python.

    import tessel
    C = tessel.spmm(A, B)                               # scipy.sparse CSR x numpy
    rec = tessel.xct.reconstruct(tomo, theta)           # TomoPy's tomo and theta
    ids = tessel.spdnn.infer(weights, bias, images)     # Graph Challenge network
    R = tessel.abcd.ladder("mol.xyz", "cc-pvdz", c_vir, t2)  # CCSD ladder term, integrals on demand

Errors: tessel.Error (RuntimeError) and its subclasses InvalidInput and DimensionMismatch
(also ValueError), OutOfMemoryBudget (also MemoryError), NotCompiled. Arguments of the wrong
dtype, shape or memory order raise ValueError naming the argument.
"""
from . import _tessel
from ._tessel import DimensionMismatch, Error, InvalidInput, NotCompiled, OutOfMemoryBudget
from . import abcd, spdnn, xct

__version__ = _tessel.__version__
__all__ = ["spmm", "xct", "spdnn", "abcd", "Error", "InvalidInput", "DimensionMismatch",
           "OutOfMemoryBudget", "NotCompiled"]


def _csr_parts(A, name):
    """(rows, cols, indptr, indices, data) of a scipy.sparse CSR matrix, without copies."""
    fmt = getattr(A, "format", None)
    if fmt != "csr":
        kind = f"scipy.sparse {fmt} matrix" if fmt else type(A).__name__
        raise ValueError(f"{name}: expected a scipy.sparse CSR matrix, got a {kind} (use {name}.tocsr())")
    rows, cols = A.shape
    return (int(rows), int(cols), A.indptr, A.indices, A.data)


def spmm(A, B, backend="auto", alpha=1.0, beta=0.0, C=None):
    """alpha * (A @ B) + beta * C for a scipy.sparse CSR matrix A (float32 or float64) and a
    dense numpy array B of A's dtype, shape (A.shape[1], k). A C-ordered B is read in place (a
    Fortran-ordered one is copied row-major by the kernel); the result is a new C-ordered array
    (A.shape[0], k) written in place (C is only read, and only when beta != 0; the scaling is
    fused into the kernel's store). A's arrays are copied into tessel's CSR (64-bit row
    offsets). backend: "auto", "cpu" or "cuda"."""
    rows, cols, indptr, indices, data = _csr_parts(A, "A")
    return _tessel._spmm(rows, cols, indptr, indices, data, B, backend, alpha, beta, C)
