#!/usr/bin/env python3
"""Times scikit-image's iradon_sart on a MemXCT raw sinogram (one slice, angles x channels,
float32, angles in radians) and writes the seconds per iteration as JSON. Exits 3 when
scikit-image is not installed, so that the caller can skip the comparison."""
import argparse
import json
import sys
import time

try:
    import numpy as np
    import skimage
    from skimage.transform import iradon_sart
except ImportError as error:  # the comparison is optional
    print(f"scikit-image not installed ({error})")
    sys.exit(3)

parser = argparse.ArgumentParser()
parser.add_argument("--sinogram", required=True)
parser.add_argument("--theta", required=True)
parser.add_argument("--angles", type=int, required=True)
parser.add_argument("--channels", type=int, required=True)
parser.add_argument("--iterations", type=int, default=1)
parser.add_argument("--json", required=True)
args = parser.parse_args()

sino = np.fromfile(args.sinogram, dtype="<f4").reshape(args.angles, args.channels)
theta = np.degrees(np.fromfile(args.theta, dtype="<f4").astype(np.float64))
# skimage wants (channels, angles), float64.
radon_image = np.ascontiguousarray(sino.T.astype(np.float64))
image = None
times = []
for _ in range(args.iterations):
    start = time.perf_counter()
    image = iradon_sart(radon_image, theta=theta, image=image)
    times.append(time.perf_counter() - start)
result = {
    "version": skimage.__version__,
    "angles": args.angles,
    "channels": args.channels,
    "seconds_per_iteration": min(times),
    "all_seconds": times,
}
with open(args.json, "w") as out:
    json.dump(result, out, indent=2)
print(f"iradon_sart: {min(times):.3f} s per iteration")
