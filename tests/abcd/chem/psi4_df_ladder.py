#!/usr/bin/python3
"""Amplitudes for molecules too large for the dense route of psi4_ladder.py, and a density-fitted
check of R: Psi4's SCF with density fitting, then DF-MP2 amplitudes
t2[i,j,a,b] = (ia|jb)_DF / (e_i + e_j - e_a - e_b) in numpy from Psi4's three-index integrals
(the RI fitting basis of the orbital basis), written as amp.h5 for tessel-abcd --molecule. With
--check r.h5 it compares tessel's R on a few pairs ij with the density-fitted ladder term
R_DF[i,j] = sum_Q B^Q t2[i,j] B^Q^T (B^Q_ab the fitted (Q|ab)): agreement to the fitting error
(about 1e-4 of max |R|, measure it on a molecule where psi4_ladder.py's exact reference fits),
never to 1e-9. Memory: nocc^2 nvir^2 + naux (nbf^2 + nvir^2) doubles, no N^4 array.

  psi4_df_ladder.py --xyz mol.xyz --basis cc-pvdz --amplitudes amp.h5 [--check r.h5 [--reference ref.h5]]"""
import argparse
import os
import sys
import time

sys.path.insert(0, "/usr/lib/x86_64-linux-gnu")  # Debian's psi4 module
import h5py  # noqa: E402
import numpy as np  # noqa: E402
import psi4  # noqa: E402

from psi4_ladder import psi4_geometry  # noqa: E402


def fitted_factors(wfn, basis, cv=None):
    """B^Q_pq = sum_P (Q|P)^-1/2 (P|pq) for the occupied-virtual and virtual-virtual blocks (the
    virtual orbitals cv if given: those of the amplitude file, whatever the signs of this SCF's)."""
    bs = wfn.basisset()
    aux = psi4.core.BasisSet.build(wfn.molecule(), "DF_BASIS_MP2", "", "RIFIT", basis)
    zero = psi4.core.BasisSet.zero_ao_basis_set()
    mints = psi4.core.MintsHelper(bs)
    nbf, naux = bs.nbf(), aux.nbf()
    metric = np.asarray(mints.ao_eri(aux, zero, aux, zero)).reshape(naux, naux)
    vals, vecs = np.linalg.eigh(metric)
    keep = vals > 1e-10 * vals.max()
    inv_half = (vecs[:, keep] / np.sqrt(vals[keep])) @ vecs[:, keep].T
    three = np.asarray(mints.ao_eri(aux, zero, bs, bs)).reshape(naux, nbf, nbf)
    nocc = wfn.doccpi()[0]
    c = np.asarray(wfn.Ca())
    co = c[:, :nocc]
    cv = c[:, nocc:] if cv is None else cv
    half = np.einsum("Pmn,na->Pma", three, cv, optimize=True)
    del three
    ov = np.einsum("Pma,mi->Pia", half, co, optimize=True)
    vv = np.einsum("Pmb,ma->Pab", half, cv, optimize=True)
    del half
    b_ov = np.tensordot(inv_half, ov, axes=(1, 0))
    b_vv = np.tensordot(inv_half, vv, axes=(1, 0))
    return b_ov, b_vv, cv, naux


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--xyz", required=True)
    ap.add_argument("--basis", required=True)
    ap.add_argument("--amplitudes", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--check", help="tessel's r.h5: compare a few pairs ij with the density-fitted R")
    ap.add_argument("--reference", help="with --check: psi4_ladder.py's exact ref.h5, to measure the fitting error")
    args = ap.parse_args()
    psi4.core.set_output_file(os.devnull, False)
    psi4.core.set_num_threads(args.threads)
    psi4.set_memory("8 GB")
    psi4_geometry(args.xyz)
    psi4.set_options({"basis": args.basis, "scf_type": "df", "e_convergence": 1e-10, "d_convergence": 1e-8})
    t = time.time()
    energy, wfn = psi4.energy("scf", return_wfn=True)
    stored_cv = None
    if args.check:
        with h5py.File(args.amplitudes, "r") as f:
            stored_cv = f["c_vir"][...]
            if f["c_vir"].attrs["ao_order"] != "psi4":
                raise SystemExit(f"{args.amplitudes}: --check needs c_vir in the psi4 AO order")
    b_ov, b_vv, cv, naux = fitted_factors(wfn, args.basis, stored_cv)
    nocc = wfn.doccpi()[0]
    eps = np.asarray(wfn.epsilon_a())
    eo, ev = eps[:nocc], eps[nocc:]
    nvir = ev.size
    print(f"psi4 DF: E(SCF) = {energy:.10f}, nbf {wfn.basisset().nbf()}, nocc {nocc}, nvir {nvir}, naux {naux} "
          f"({time.time() - t:.1f} s)", flush=True)
    if args.check:
        with h5py.File(args.amplitudes, "r") as f:
            t2 = f["t2"][...]
    else:
        t2 = np.empty((nocc, nocc, nvir, nvir))
        for i in range(nocc):  # (ia|jb) one i at a time: no second nocc^2 nvir^2 array
            iajb = np.tensordot(b_ov[:, i, :], b_ov, axes=(0, 0))  # (a, j, b)
            t2[i] = iajb.transpose(1, 0, 2) / (eo[i] + eo[:, None, None] - ev[None, :, None] - ev[None, None, :])
        with h5py.File(args.amplitudes, "w") as f:
            f["t2"] = t2
            f["c_vir"] = cv
            f["c_vir"].attrs["ao_order"] = "psi4"
        print(f"wrote {args.amplitudes}: DF-MP2 t2, max |t2| {np.abs(t2).max():.4e} ({time.time() - t:.1f} s)")
        return 0
    with h5py.File(args.check, "r") as f:
        r = f["r"]
        pairs = sorted({(0, 0), (0, nocc - 1), (nocc // 2, nocc // 2 + 1), (nocc - 1, nocc - 1), (nocc - 1, 0)})
        largest = np.abs(r[...]).max()
        ref = h5py.File(args.reference, "r")["r"] if args.reference else None
        worst = worst_exact = 0.0
        for i, j in pairs:
            r_df = np.einsum("Qac,cd,Qbd->ab", b_vv, t2[i, j], b_vv, optimize=True)
            worst = max(worst, np.abs(r[i, j] - r_df).max())
            if ref is not None:
                worst_exact = max(worst_exact, np.abs(ref[i, j] - r_df).max())
        print(f"pairs {pairs}: max|R - R_DF| / max|R| = {worst / largest:.3e}"
              + (f"; the exact reference against R_DF: {worst_exact / largest:.3e}" if ref is not None else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
