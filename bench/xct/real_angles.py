#!/usr/bin/env python3
"""Scans with the angles real files have, and what --turn-symmetry does with them.

Real angle files are float32 (radians or degrees) or i·180/n rounded, or an encoder's readings,
so the pairs 90 degrees apart that --turn-symmetry needs are close, not exact. This script
writes such scans as MemXCT raw files and compares tessel-xct's turned reconstruction (the half
operator traced at each pair's mean angle) with the exact operator's (--turn-symmetry off).

The sinograms are line integrals of the continuous modified Shepp-Logan phantom (Toft's
ellipses, as tessel-xct's 2-D phantom), computed analytically at the file's angles (the float32
values themselves) and averaged over 4 points across each channel: a detector's measurement,
not tessel's Siddon operator, so neither reconstruction is favoured. Each slice is the same
object with its own Poisson noise (--photons, counts per ray as tessel-xct --noise; 0: none).

  make:    real_angles.py make --angles float32|short --size 512 --count 750 --slices 16 \\
               [--photons 1e4] --out PREFIX          (PREFIX.sino, PREFIX.theta)
  compare: real_angles.py compare --xct build/apps/xct/tessel-xct --tool build/tests/xct/tessel-xct-test-tool \\
               --angles float32|short [--size 512 --count 750 --slices 2 --iterations 24 --photons 1e4]
               [--precision single|double] [--json out.json]

--angles float32: θ_i = float32(i·180/n degrees) in float32 radians (pairs off by ~1e-7 rad);
short: steps of 179.99/n degrees (an encoder 0.0056 % short: pairs 89.995 degrees apart, the
issue's file). compare prints tessel-xct's plan line, then for turned and exact: PSNR and Pearson
r against the phantom inside the reconstruction circle (after a least-squares scale), and
between the two (PSNR of the turned image against the exact one, over the exact one's range).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

# Modified Shepp-Logan (Toft): value, semi-axes a b, centre x0 y0, rotation in degrees;
# the unit square [-1, 1]², y up (tessel's phantom.cpp).
ELLIPSES = [
    (1.0, 0.69, 0.92, 0.0, 0.0, 0.0), (-0.8, 0.6624, 0.8740, 0.0, -0.0184, 0.0),
    (-0.2, 0.1100, 0.3100, 0.22, 0.0, -18.0), (-0.2, 0.1600, 0.4100, -0.22, 0.0, 18.0),
    (0.1, 0.2100, 0.2500, 0.0, 0.35, 0.0), (0.1, 0.0460, 0.0460, 0.0, 0.1, 0.0),
    (0.1, 0.0460, 0.0460, 0.0, -0.1, 0.0), (0.1, 0.0460, 0.0230, -0.08, -0.605, 0.0),
    (0.1, 0.0230, 0.0230, 0.0, -0.606, 0.0), (0.1, 0.0230, 0.0460, 0.06, -0.605, 0.0),
]


def angles(kind, count):
    """float32 radians, as a theta file holds them."""
    step = {"float32": 180.0 / count, "short": 179.99 / count}[kind]
    degrees = (np.arange(count) * step).astype(np.float32)
    return (degrees.astype(np.float64) * np.pi / 180).astype(np.float32)


def line_integrals(theta, n, subsamples=4):
    """angles x channels: the phantom's integrals along tessel's rays x·cosθ + y·sinθ = ρ,
    ρ = -n/2 + 0.5 + c, on an image of n unit pixels whose row 0 is the top (phantom y = -y)."""
    theta = theta.astype(np.float64)[:, None]
    offsets = (np.arange(subsamples) + 0.5) / subsamples - 0.5
    rho = (-n / 2 + 0.5 + np.arange(n)[:, None] + offsets[None, :]).ravel()[None, :]
    half = n / 2
    # In the phantom's frame (x/half, -y/half) the ray is x'·cos(-θ) + y'·sin(-θ) = ρ/half.
    alpha, t = -theta, rho / half
    out = np.zeros((theta.shape[0], rho.shape[1]))
    for value, a, b, x0, y0, phi in ELLIPSES:
        beta = alpha - np.radians(phi)
        s2 = (a * np.cos(beta)) ** 2 + (b * np.sin(beta)) ** 2
        tc = t - (x0 * np.cos(alpha) + y0 * np.sin(alpha))
        inside = np.maximum(s2 - tc ** 2, 0)
        out += value * 2 * a * b * np.sqrt(inside) / s2
    return (out * half).reshape(theta.shape[0], n, subsamples).mean(axis=2)


def poisson(sino, photons, seed):
    """Counts ~ Poisson(I0·e^(-p·k)), k = 2/max(p) (tessel-xct --noise), back to p."""
    rng = np.random.default_rng(seed)
    k = 2.0 / sino.max()
    return -np.log(np.maximum(rng.poisson(photons * np.exp(-sino * k)), 1) / photons) / k


def make(kind, n, count, slices, photons, prefix, seed=1):
    theta = angles(kind, count)
    clean = line_integrals(theta, n)
    stack = np.stack([poisson(clean, photons, seed + s) if photons > 0 else clean for s in range(slices)])
    stack.astype("<f4").tofile(f"{prefix}.sino")
    theta.astype("<f4").tofile(f"{prefix}.theta")
    return theta


def circle(n):
    y, x = np.mgrid[:n, :n]
    return (x - (n - 1) / 2) ** 2 + (y - (n - 1) / 2) ** 2 <= (n / 2 - 1) ** 2


def scores(image, target, mask):
    """PSNR (over target's range, after the least-squares scale) and Pearson r inside mask."""
    a, b = image[..., mask].ravel(), target[..., mask].ravel()
    scale = float(a @ b / (a @ a))
    rmse = float(np.sqrt(np.mean((scale * a - b) ** 2)))
    return 20 * np.log10((b.max() - b.min()) / rmse), float(np.corrcoef(a, b)[0, 1])


def run_xct(args, prefix, turn, out):
    command = [args.xct, "--sinogram", f"{prefix}.sino", "--theta", f"{prefix}.theta", "--num-slices",
               str(args.slices), "--iterations", str(args.iterations), "--turn-symmetry", turn, "--precision",
               args.precision, "--output", out]
    text = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    plan = [line.strip() for line in text.splitlines() if "--turn-symmetry" in line]
    import h5py
    with h5py.File(out, "r") as f:
        return f["/exchange/recon"][...].astype(np.float64), plan


def compare(args):
    with tempfile.TemporaryDirectory() as tmp:
        prefix = f"{tmp}/scan"
        theta = make(args.angles, args.size, args.count, args.slices, args.photons, prefix)
        half = args.count // 2
        gap = np.degrees(theta[half:].astype(np.float64) - theta[:half].astype(np.float64))
        worst = int(np.argmax(np.abs(gap - 90)))
        print(f"{args.angles}: {args.count} float32 angles; worst pair {worst} and {worst + half}: "
              f"{gap[worst]:.6f} degrees apart")
        subprocess.run([args.tool, "phantom", str(args.size), f"{tmp}/truth.raw"], check=True)
        truth = np.fromfile(f"{tmp}/truth.raw", dtype="<f4").reshape(args.size, args.size).astype(np.float64)
        exact, plan_off = run_xct(args, prefix, "off", f"{tmp}/exact.h5")
        turned, plan_auto = run_xct(args, prefix, "auto", f"{tmp}/turned.h5")
    mask = circle(args.size)
    result = {"angles": args.angles, "size": args.size, "count": args.count, "slices": args.slices,
              "iterations": args.iterations, "photons": args.photons, "precision": args.precision, "worst_gap_degrees": float(gap[worst]),
              "plan": plan_auto}
    for line in plan_auto:
        print("  plan:", line)
    for name, volume in (("exact (--turn-symmetry off)", exact), ("turned (auto)", turned)):
        psnr, r = scores(volume, np.broadcast_to(truth, volume.shape), mask)
        print(f"  {name:28s} vs phantom: PSNR {psnr:6.2f} dB, r {r:.5f}")
        result[name.split()[0]] = {"psnr_vs_phantom": psnr, "r_vs_phantom": r}
    psnr, r = scores(turned, exact, mask)
    rel = float(np.linalg.norm((turned - exact)[..., mask]) / np.linalg.norm(exact[..., mask]))
    print(f"  turned vs exact: PSNR {psnr:.2f} dB, r {r:.7f}, relative L2 {rel:.2e}")
    result["turned_vs_exact"] = {"psnr": psnr, "r": r, "relative_l2": rel}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=["make", "compare"])
    parser.add_argument("--angles", choices=["float32", "short"], default="short")
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--count", type=int, default=750)
    parser.add_argument("--slices", type=int, default=2)
    parser.add_argument("--photons", type=float, default=0)
    parser.add_argument("--iterations", type=int, default=24)
    parser.add_argument("--precision", choices=["single", "double"], default="single",
                        help="double: CGLS's rounding spread out of the way, the angles' effect alone")
    parser.add_argument("--out", help="make: the files' prefix")
    parser.add_argument("--xct")
    parser.add_argument("--tool")
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.mode == "make":
        make(args.angles, args.size, args.count, args.slices, args.photons, args.out)
    else:
        if not (args.xct and args.tool):
            sys.exit("compare needs --xct and --tool")
        compare(args)


if __name__ == "__main__":
    main()
