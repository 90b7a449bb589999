#!/usr/bin/env python3
"""FBP time per slice and PSNR: tessel-xct --solver fbp against scikit-image's iradon (ramp
filter, linear interpolation) on the same noise-free phantom sinograms and angles, in the same
run. tessel's time is its "fbp" phase (FFTW filter + one Aᵀ SpMM for all slices) over the
slices; building A and Aᵀ (once per geometry) is reported apart. iradon runs slice by slice.
Use an odd size: then the rotation centre and the image centre fall on a channel and a pixel
centre in both programs (for an even size scikit-image puts them half a pixel away from
tessel's, and the comparison would measure that shift).

usage: fbp_vs_iradon.py --xct build/apps/xct/tessel-xct --tool build/tests/xct/tessel-xct-test-tool
                        --size 255 --slices 16 [--threads 2] [--json out.json]
Exits 3 when scikit-image is not installed."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

try:
    import h5py
    import numpy as np
    import skimage
    from skimage.transform import iradon
except ImportError as error:
    print(f"scikit-image or h5py not installed ({error})")
    sys.exit(3)

parser = argparse.ArgumentParser()
parser.add_argument("--xct", required=True)
parser.add_argument("--tool", required=True)
parser.add_argument("--size", type=int, default=255)
parser.add_argument("--slices", type=int, default=16)
parser.add_argument("--threads", type=int, default=os.cpu_count())
parser.add_argument("--json")
args = parser.parse_args()
n, slices = args.size, args.slices


def psnr(image, truth):
    mse = np.mean((image - truth) ** 2)
    return 10 * np.log10(float(truth.max() - truth.min()) ** 2 / mse)


with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    # The 2-D phantom repeated: a volume of identical slices, one SpMM with K = slices.
    subprocess.run([args.xct, "--phantom", str(n), "--solver", "fbp", "--quiet", "--save-sinogram", f"{tmp}/s",
                    "--output", f"{tmp}/one.h5"], check=True, env=env)
    theta = np.fromfile(f"{tmp}/s.theta", dtype="<f4").astype(np.float64)
    sino = np.fromfile(f"{tmp}/s.sino", dtype="<f4").reshape(len(theta), n)
    stack = np.tile(sino, (slices, 1, 1)).astype("<f4")
    stack.tofile(f"{tmp}/stack.sino")
    subprocess.run([args.xct, "--sinogram", f"{tmp}/stack.sino", "--theta", f"{tmp}/s.theta", "--num-slices",
                    str(slices), "--center", str(n / 2), "--solver", "fbp", "--quiet", "--metrics", f"{tmp}/m.json",
                    "--output", f"{tmp}/stack.h5"], check=True, env=env)
    subprocess.run([args.tool, "phantom", str(n), f"{tmp}/truth.raw"], check=True)
    truth = np.fromfile(f"{tmp}/truth.raw", dtype="<f4").reshape(n, n).astype(np.float64)
    metrics = json.load(open(f"{tmp}/m.json"))
    with h5py.File(f"{tmp}/stack.h5", "r") as f:
        tessel_image = f["/exchange/recon"][0].astype(np.float64)

    # iradon: (channels, angles), degrees; its image rows run the other way in y.
    radon_image = np.ascontiguousarray(sino.T.astype(np.float64))
    degrees = np.degrees(theta)
    times = []
    image = None
    for _ in range(slices):
        start = time.perf_counter()
        image = iradon(radon_image, theta=degrees, output_size=n, filter_name="ramp", interpolation="linear",
                       circle=True)
        times.append(time.perf_counter() - start)
    # The image axes conventions differ: the best of the 8 flips and turns is the same image.
    turns = [np.rot90(image, k) for k in range(4)]
    best = max(max(psnr(t, truth), psnr(np.flipud(t), truth)) for t in turns)

phases = metrics["phases"]
result = {
    "size": n,
    "angles": len(theta),
    "slices": slices,
    "threads": args.threads,
    "tessel_fbp_seconds_per_slice": phases["fbp"] / slices,
    "tessel_build_seconds": phases.get("build", 0.0),
    "tessel_psnr_db": psnr(tessel_image, truth),
    "skimage_version": skimage.__version__,
    "iradon_seconds_per_slice": float(np.median(times)),
    "iradon_psnr_db": best,
}
print(json.dumps(result, indent=2))
if args.json:
    with open(args.json, "w") as out:
        json.dump(result, out, indent=2)
