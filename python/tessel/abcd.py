"""The CCSD ladder term of a real molecule, with tessel-abcd's block-sparse GEMM:

    R[i,j,a,b] = sum_cd t2[i,j,c,d] (ac|bd)

the two-electron integrals made on demand from libint2 (never stored whole), tiled by clusters of
atoms and screened by Schwarz bounds."""
import os

import numpy as np

from . import _tessel

__all__ = ["ladder", "kept_device_bytes", "release_device_memory"]


def ladder(xyz, basis, c_vir, t2, ao_order="psi4", threshold=1e-12, backend="auto", cluster_size=26):
    """R (numpy float64, the shape of t2) for the molecule `xyz` (an XYZ file name, or XYZ text
    with line breaks; Angstrom) in the basis set `basis` ("sto-3g", "cc-pvdz", "def2-svp").

    c_vir: (nbf, nvir) virtual orbital coefficients, rows in the AO order `ao_order` ("psi4",
    "pyscf" or "libint", see docs/abcd.md); t2: (nocc, nocc, nvir, nvir) amplitudes.
    threshold: Schwarz screening of the integral tiles, relative to the largest bound.
    backend: "auto", "cpu" or "cuda". cluster_size: target basis functions per atom cluster.
    When t2[i,j,c,d] = t2[j,i,d,c] (to 1e-12 of max |t2|) only the pairs i <= j are contracted;
    other amplitudes run on every pair (same R, twice the work)."""
    c_vir = np.ascontiguousarray(c_vir, dtype=np.float64)
    t2 = np.ascontiguousarray(t2, dtype=np.float64)
    return _tessel._abcd_ladder(str(xyz), str(basis), c_vir, t2, str(ao_order), float(threshold), str(backend),
                                int(cluster_size), _basis_dir())


def kept_device_bytes(device=0):
    """Device memory (bytes) that ladder's cuda runs keep on CUDA device `device` for the next
    call (streams, cuBLAS handles and buffers are made once, as CCSD iterates); 0 without CUDA."""
    return _tessel._abcd_kept_device_bytes(int(device))


def release_device_memory():
    """Frees what ladder's cuda runs keep on every device (nothing without CUDA)."""
    _tessel._abcd_release_kept_devices()


def _basis_dir():
    """The basis sets installed with this package (a wheel, an installed prefix), else "": the
    library's own folder (the source tree's, for a build folder's package). $TESSEL_BASIS_DIR
    still wins (the library looks at it first)."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "basis")
    return here if os.path.isdir(here) else ""
