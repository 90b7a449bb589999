# tessel.spmm against scipy on small matrices, and its bad arguments.
import numpy as np
import pytest
import scipy.sparse as sp

import tessel


def random_csr(rows, cols, density, dtype, seed):
    return sp.random(rows, cols, density=density, format="csr", dtype=dtype,
                     random_state=np.random.default_rng(seed))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("order", ["C", "F"])
def test_matches_scipy(dtype, order):
    a = random_csr(300, 200, 0.05, dtype, 1)
    b = np.asarray(np.random.default_rng(2).standard_normal((200, 7)), dtype=dtype, order=order)
    c = tessel.spmm(a, b, backend="cpu")
    assert c.dtype == dtype and c.shape == (300, 7) and c.flags.c_contiguous
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(c, a @ b, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_alpha_beta(dtype):
    a = random_csr(300, 200, 0.05, dtype, 8)
    b = np.asarray(np.random.default_rng(9).standard_normal((200, 5)), dtype=dtype)
    c0 = np.asarray(np.random.default_rng(10).standard_normal((300, 5)), dtype=dtype, order="F")
    got = tessel.spmm(a, b, backend="cpu", alpha=-0.5, beta=2.0, C=c0)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, -0.5 * (a @ b) + 2.0 * c0, rtol=tol, atol=tol)
    assert got is not c0 and np.all(c0 == np.asarray(c0))  # C itself is left alone
    np.testing.assert_allclose(tessel.spmm(a, b, alpha=3.0), 3.0 * (a @ b), rtol=tol, atol=tol)
    with pytest.raises(ValueError, match=r"^C: beta != 0 needs C"):
        tessel.spmm(a, b, beta=1.0)
    with pytest.raises(ValueError, match=r"^C: shape \(5, 300\), expected \(300, 5\)"):
        tessel.spmm(a, b, beta=1.0, C=c0.T)
    with pytest.raises(ValueError, match=r"^alpha: must be finite"):
        tessel.spmm(a, b, alpha=float("nan"))


def test_int64_indices_and_long_rows():
    a = random_csr(50, 4000, 0.3, np.float64, 3)  # average row length 1200: row-split kernel
    a.indices = a.indices.astype(np.int64)
    a.indptr = a.indptr.astype(np.int64)
    b = np.random.default_rng(4).standard_normal((4000, 3))
    np.testing.assert_allclose(tessel.spmm(a, b), a @ b, rtol=1e-12, atol=1e-12)


def test_empty_shapes():
    a = random_csr(5, 4, 0.5, np.float64, 5)
    assert tessel.spmm(a, np.zeros((4, 0))).shape == (5, 0)
    z = sp.csr_matrix((3, 0), dtype=np.float64)
    np.testing.assert_array_equal(tessel.spmm(z, np.zeros((0, 2))), np.zeros((3, 2)))


def test_bad_arguments():
    a = random_csr(10, 8, 0.3, np.float64, 6)
    b = np.ones((8, 2))
    with pytest.raises(ValueError, match=r"^B: dtype float32, expected float64"):
        tessel.spmm(a, b.astype(np.float32))
    with pytest.raises(ValueError, match=r"^B: 1 dimensions \(8,\), expected 2"):
        tessel.spmm(a, np.ones(8))
    with pytest.raises(ValueError, match=r"^B: shape \(9, 2\) does not fit A of shape \(10, 8\)"):
        tessel.spmm(a, np.ones((9, 2)))
    with pytest.raises(ValueError, match=r"^B: neither C- nor Fortran-contiguous"):
        tessel.spmm(a, np.ones((8, 4))[:, ::2])
    with pytest.raises(ValueError, match=r"^B: expected a numpy array, got list"):
        tessel.spmm(a, [[1.0, 2.0]] * 8)
    with pytest.raises(ValueError, match=r"^A: expected a scipy.sparse CSR matrix, got a scipy.sparse csc"):
        tessel.spmm(a.tocsc(), b)
    with pytest.raises(ValueError, match=r"^A.data: dtype int64, expected float32 or float64"):
        tessel.spmm(sp.csr_matrix(np.eye(8, dtype=np.int64)), b)


def test_malformed_csr_is_a_tessel_error():
    a = random_csr(10, 8, 0.3, np.float64, 7)
    a.indices[0] = 99  # beyond the 8 columns
    with pytest.raises(tessel.InvalidInput, match=r"^A:1: column index 99 outside 0\.\.7$") as info:
        tessel.spmm(a, np.ones((8, 2)))
    assert isinstance(info.value, ValueError) and isinstance(info.value, tessel.Error)
    assert "\n" not in str(info.value)
