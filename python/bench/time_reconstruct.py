"""Times tessel.xct.reconstruct against tessel-xct on the same sinograms (README's numbers).

    PYTHONPATH=build/python python3 python/bench/time_reconstruct.py build/apps/xct/tessel-xct [N] [slices] [iterations]

The sinograms are the 3-D Shepp-Logan phantom's, written by tessel-xct --save-sinogram (raw
MemXCT files); the CLI reads them, the module gets them as a TomoPy-layout numpy array. Both
wall times include building A and Aᵀ; the CLI's also process start, reading and writing HDF5.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

import tessel


def main():
    cli = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    slices = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    iterations = int(sys.argv[4]) if len(sys.argv) > 4 else 30
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "p")
        subprocess.run([cli, "--phantom", str(n), "--num-slices", str(slices), "--iterations", "0",
                        "--save-sinogram", prefix, "--quiet"], check=True)
        theta = np.fromfile(prefix + ".theta", dtype=np.float32).astype(np.float64)
        sino = np.fromfile(prefix + ".sino", dtype=np.float32).reshape(slices, len(theta), -1)
        tomo = np.ascontiguousarray(sino.transpose(1, 0, 2))  # TomoPy's layout
        out, metrics = os.path.join(tmp, "r.h5"), os.path.join(tmp, "m.json")
        command = [cli, "--sinogram", prefix + ".sino", "--theta", prefix + ".theta", "--num-slices", str(slices),
                   "--iterations", str(iterations), "--output", out, "--metrics", metrics, "--quiet"]
        rows = []
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run(command, check=True)
            cli_s = time.perf_counter() - start
            with open(metrics) as f:
                phases = json.load(f)["phases"]
            start = time.perf_counter()
            rec = tessel.xct.reconstruct(tomo, theta, algorithm="cgls", num_iter=iterations)
            py_s = time.perf_counter() - start
            rows.append((cli_s, phases.get("build", 0.0), phases.get("iterate", 0.0), py_s))
        with h5py.File(out, "r") as f:
            diff = float(np.abs(f["/exchange/recon"][...] - rec).max())
    print(f"{n} x {n}, {len(theta)} angles, {slices} slices, CGLS {iterations} iterations, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '-')}; max |python - cli| = {diff:.3g}")
    print("run  cli wall s  cli build s  cli iterate s  python wall s")
    for i, (c, b, it, p) in enumerate(rows):
        print(f"{i + 1:3d}  {c:10.3f}  {b:11.3f}  {it:13.3f}  {p:13.3f}")


if __name__ == "__main__":
    main()
