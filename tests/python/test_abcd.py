# tessel.abcd.ladder against Psi4 + numpy (Debian's psi4: tests/abcd/chem/psi4_ladder.py), its AO
# orders, and its bad arguments.
import os
import sys

import numpy as np
import pytest

import tessel

CHEM = os.path.join(os.path.dirname(__file__), "..", "abcd", "chem")
WATER = os.path.join(CHEM, "water.xyz")


def libint2_missing():
    try:
        tessel.abcd.ladder("1\n\nH 0 0 0\n", "sto-3g", np.zeros((1, 1)), np.zeros((1, 1, 1, 1)))
    except tessel.NotCompiled:
        return True
    except tessel.Error:
        pass
    return False


pytestmark = pytest.mark.skipif(libint2_missing(), reason="tessel built without libint2")


@pytest.fixture(scope="module")
def psi4_water():
    sys.path.insert(0, CHEM)
    psi4_ladder = pytest.importorskip("psi4_ladder", reason="Debian's psi4 is missing")
    return psi4_ladder, psi4_ladder.reference(WATER, "cc-pvdz", 1)


@pytest.mark.parametrize("order", ["psi4", "pyscf"])
def test_matches_psi4(psi4_water, order):
    psi4_ladder, (_, basisset, t2, cv, r_ref) = psi4_water
    if order == "pyscf":
        cv = cv[psi4_ladder.psi4_to_pyscf(basisset)]
    r = tessel.abcd.ladder(WATER, "cc-pvdz", cv, t2, ao_order=order, backend="cpu", cluster_size=4)
    assert r.shape == r_ref.shape
    assert np.abs(r - r_ref).max() <= 1e-9 * np.abs(r_ref).max()


def test_xyz_text_and_wrong_order(psi4_water):
    _, (_, _, t2, cv, r_ref) = psi4_water
    text = open(WATER).read()
    r = tessel.abcd.ladder(text, "CC-PVDZ", cv, t2, backend="cpu")
    assert np.abs(r - r_ref).max() <= 1e-9 * np.abs(r_ref).max()
    # The same coefficients read in libint's order put the d and p functions in the wrong places.
    wrong = tessel.abcd.ladder(text, "cc-pvdz", cv, t2, ao_order="libint", backend="cpu")
    assert np.abs(wrong - r_ref).max() > 1e-3 * np.abs(r_ref).max()


def test_bad_arguments():
    t2 = np.zeros((5, 5, 2, 2))
    with pytest.raises(tessel.InvalidInput, match=r"^ladder: t2 has nvir = 2 \(shape 5 x 5 x 2 x 2\) but c_vir has 3"):
        tessel.abcd.ladder(WATER, "sto-3g", np.zeros((7, 3)), t2)
    with pytest.raises(tessel.InvalidInput, match=r"^amplitudes:/c_vir: 8 rows, but basis sto-3g has 7 functions"):
        tessel.abcd.ladder(WATER, "sto-3g", np.zeros((8, 2)), t2)
    with pytest.raises(tessel.InvalidInput, match=r"^--basis: 'nope' is not a basis set in "):
        tessel.abcd.ladder(WATER, "nope", np.zeros((7, 2)), t2)
    with pytest.raises(tessel.InvalidInput, match=r"^ao_order: 'orca' is not an AO order \(psi4, pyscf or libint\)$"):
        tessel.abcd.ladder(WATER, "sto-3g", np.zeros((7, 2)), t2, ao_order="orca")
    with pytest.raises(tessel.InvalidInput, match=r"^xyz:4: atoms 1 and 2 are 0.000 Å apart: two atoms on one spot$"):
        tessel.abcd.ladder("2\n\nH 0 0 0\nH 0 0 0\n", "sto-3g", np.zeros((2, 1)), np.zeros((1, 1, 1, 1)))
    with pytest.raises(ValueError, match=r"^t2: 3 dimensions"):
        tessel.abcd.ladder(WATER, "sto-3g", np.zeros((7, 2)), np.zeros((5, 5, 2)))


def test_device_memory_kept_and_released():
    # Without a cuda run (or without CUDA) nothing is kept; releasing is always allowed.
    tessel.abcd.release_device_memory()
    assert tessel.abcd.kept_device_bytes() == 0
