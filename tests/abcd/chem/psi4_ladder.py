#!/usr/bin/python3
"""The ladder term R[i,j,a,b] = sum_cd t2[i,j,c,d] (ac|bd) by Psi4 + numpy (the independent check of
tessel-abcd --molecule): SCF with Psi4 (its integrals come from libint 1), MP2 amplitudes in numpy,
the MO integrals (ac|bd) from Psi4's AO integrals, and the dense einsum.

  psi4_ladder.py --xyz mol.xyz --basis cc-pvdz --amplitudes amp.h5 [--reference ref.h5] [--ao-order psi4|pyscf]
                 [--asymmetry 1e-3]

writes amp.h5 (t2, c_vir with attribute ao_order) and ref.h5 (r). With --tessel BIN it also runs
`BIN --molecule ... --output` and compares: exit 1 unless max|R - R_ref| <= 1e-9 max|R_ref|."""
import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, "/usr/lib/x86_64-linux-gnu")  # Debian's psi4 module
import h5py  # noqa: E402
import numpy as np  # noqa: E402
import psi4  # noqa: E402


def psi4_geometry(xyz):
    lines = open(xyz).read().splitlines()
    atoms = "\n".join(lines[2:2 + int(lines[0])])
    return psi4.geometry(atoms + "\nunits angstrom\nsymmetry c1\nno_reorient\nno_com\n")


def psi4_to_pyscf(basisset):
    """Row permutation: pyscf_rows[k] = the Psi4 row of pyscf's function k (spherical basis).
    Psi4 orders a pure shell m = 0, +1, -1, +2, -2, ... (p: z, x, y); PySCF m = -l .. +l (p: x, y, z)."""
    rows = []
    for s in range(basisset.nshell()):
        sh = basisset.shell(s)
        l, start = sh.am, sh.function_index
        if not basisset.has_puream() or l == 0:
            rows += range(start, start + sh.nfunction)
            continue
        psi4_place = {0: 0}
        for m in range(1, l + 1):
            psi4_place[m], psi4_place[-m] = 2 * m - 1, 2 * m
        if l == 1:  # pyscf x, y, z = m +1, -1, 0
            rows += [start + psi4_place[m] for m in (1, -1, 0)]
        else:
            rows += [start + psi4_place[m] for m in range(-l, l + 1)]
    return np.array(rows)


def reference(xyz, basis, threads, asymmetry=0.0):
    psi4.core.set_output_file(os.devnull, False)
    psi4.core.set_num_threads(threads)
    psi4.set_memory("4 GB")
    psi4_geometry(xyz)
    psi4.set_options({"basis": basis, "scf_type": "pk", "e_convergence": 1e-10, "d_convergence": 1e-10})
    energy, wfn = psi4.energy("scf", return_wfn=True)
    t_dense = time.time()
    nocc = wfn.doccpi()[0]
    c = np.asarray(wfn.Ca())
    eps = np.asarray(wfn.epsilon_a())
    mints = psi4.core.MintsHelper(wfn.basisset())
    eri = np.asarray(mints.ao_eri())
    co, cv = c[:, :nocc], c[:, nocc:]
    ovov = np.einsum("pqrs,pi,qa,rj,sb->iajb", eri, co, cv, co, cv, optimize=True)
    vvvv = np.einsum("pqrs,pa,qc,rb,sd->acbd", eri, cv, cv, cv, cv, optimize=True)
    eo, ev = eps[:nocc], eps[nocc:]
    denom = eo[:, None, None, None] + eo[None, :, None, None] - ev[None, None, :, None] - ev[None, None, None, :]
    t2 = ovov.transpose(0, 2, 1, 3) / denom
    if asymmetry:  # amplitudes without t2[i,j,c,d] = t2[j,i,d,c] (tessel then runs on every pair ij)
        t2 = t2 + asymmetry * np.abs(t2).max() * np.random.default_rng(7).uniform(-1, 1, t2.shape)
    r = np.einsum("ijcd,acbd->ijab", t2, vvvv, optimize=True)
    print(f"psi4 + numpy dense route (AO integrals, transform, MP2 amplitudes, einsum): {time.time() - t_dense:.1f} s",
          flush=True)
    return energy, wfn.basisset(), t2, cv, r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--xyz", required=True)
    ap.add_argument("--basis", required=True)
    ap.add_argument("--amplitudes", required=True)
    ap.add_argument("--reference")
    ap.add_argument("--ao-order", default="psi4", choices=["psi4", "pyscf"])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--asymmetry", type=float, default=0.0,
                    help="add this much (of max |t2|) random noise to t2, breaking t2[i,j,c,d] = t2[j,i,d,c]")
    ap.add_argument("--tessel", help="tessel-abcd binary: run it and compare")
    ap.add_argument("--tessel-args", default="", help="extra arguments for tessel-abcd (spaces or commas between)")
    ap.add_argument("--launcher", default="", help="command before tessel-abcd (commas between words): mpiexec,-n,2")
    ap.add_argument("--python-api", action="store_true", help="compare tessel.abcd.ladder instead of the CLI")
    args = ap.parse_args()

    t = time.time()
    energy, basisset, t2, cv, r_ref = reference(args.xyz, args.basis, args.threads, args.asymmetry)
    print(f"psi4: E(SCF) = {energy:.10f}, nbf {basisset.nbf()}, nocc {t2.shape[0]}, nvir {t2.shape[2]}, "
          f"max|R| {np.abs(r_ref).max():.6e} ({time.time() - t:.1f} s)")
    if args.ao_order == "pyscf":
        cv = cv[psi4_to_pyscf(basisset)]
    with h5py.File(args.amplitudes, "w") as f:
        f["t2"] = t2
        f["c_vir"] = cv
        f["c_vir"].attrs["ao_order"] = args.ao_order
    if args.reference:
        with h5py.File(args.reference, "w") as f:
            f["r"] = r_ref

    if args.python_api:
        import tessel.abcd
        r = tessel.abcd.ladder(args.xyz, args.basis, cv, t2, ao_order=args.ao_order)
    elif args.tessel:
        out = args.amplitudes + ".r.h5"
        cmd = args.launcher.replace(",", " ").split() + [args.tessel, "--molecule", args.xyz, "--basis", args.basis, "--amplitudes", args.amplitudes,
               "--output", out, "--dgemm-size", "0"] + args.tessel_args.replace(",", " ").split()
        print(" ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)
        with h5py.File(out, "r") as f:
            r = f["r"][...]
    else:
        return 0
    err = np.abs(r - r_ref).max() / np.abs(r_ref).max()
    ok = r.shape == r_ref.shape and err <= 1e-9
    print(f"max|R - R_psi4| / max|R_psi4| = {err:.3e} ({'OK' if ok else 'FAILED'}: <= 1e-9)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
