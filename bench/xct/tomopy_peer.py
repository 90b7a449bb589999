#!/usr/bin/env python3
"""TomoPy, the peer of tessel-xct's "xct: first image" figures (docs/BENCHMARKS.md): reads a
MemXCT raw sinogram stack (slices x angles x channels float32, angles float32 in radians, as
tessel-xct --save-sinogram writes it), reconstructs slices A..B-1 with tomopy.recon and prints
the seconds of recon() alone. TomoPy built from source: /work/shared/tools/build-tomopy.sh's
PYTHONPATH and LD_LIBRARY_PATH. The centre is TomoPy's default, channels / 2, as tessel-xct's.

  python3 tomopy_peer.py --sinogram ph16.sino --theta ph16.theta --num-slices 16 \\
      --algorithm gridrec [--slices 0:16] [--iterations 24] [--ncore 2] [--center C] [--save out.npy]
"""
import argparse
import time

import numpy as np
import tomopy

parser = argparse.ArgumentParser()
parser.add_argument("--sinogram", required=True)
parser.add_argument("--theta", required=True)
parser.add_argument("--num-slices", type=int, required=True)
parser.add_argument("--slices", default=None, help="A:B, slices A..B-1 (default all)")
parser.add_argument("--algorithm", choices=["gridrec", "sirt"], required=True)
parser.add_argument("--iterations", type=int, default=24, help="sirt's num_iter")
parser.add_argument("--ncore", type=int, default=2)
parser.add_argument("--center", type=float, help="rotation centre in detector columns (default channels / 2)")
parser.add_argument("--save", help="the volume as .npy (slices, N, N) float32")
args = parser.parse_args()

theta = np.fromfile(args.theta, dtype="<f4").astype(np.float64)
sino = np.fromfile(args.sinogram, dtype="<f4").reshape(args.num_slices, theta.size, -1)
first, last = (int(v) for v in args.slices.split(":")) if args.slices else (0, args.num_slices)
sino = np.ascontiguousarray(sino[first:last])
extra = {"num_iter": args.iterations} if args.algorithm == "sirt" else {}
if args.center is not None:
    extra["center"] = args.center
start = time.perf_counter()
rec = tomopy.recon(sino, theta, algorithm=args.algorithm, sinogram_order=True, ncore=args.ncore, **extra)
seconds = time.perf_counter() - start
print(f"tomopy {args.algorithm}: {sino.shape[0]} slices of {theta.size} angles x {sino.shape[2]} channels, "
      f"recon {seconds:.3f} s")
if args.save:
    np.save(args.save, rec.astype(np.float32))
