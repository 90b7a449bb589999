#!/usr/bin/env python3
"""FBP image quality: tessel-xct --solver fbp against TomoPy's gridrec on the same phantom
sinograms, against the known phantom (the stand-in for CDS1, whose truth nobody knows), with
and without Poisson noise.

The sinograms are tessel-xct's 3-D Shepp-Logan phantom (--phantom N --num-slices S --angles A,
--noise I0 for counts of I0 photons per ray), saved as MemXCT raw files; both programs
reconstruct those files: tessel-xct from the raw files (centre N/2), TomoPy with
tomopy.recon(..., algorithm="gridrec") as bench/xct/tomopy_peer.py calls it (centre N/2,
TomoPy's default, the same column as tessel's), and gridrec once more with the sinogram
padded to twice its width (edge values; TomoPy's advice against the cupping of gridrec's
unpadded FFT), the image cropped back. --projector tomopy makes the sinograms with
tomopy.project on the same phantom instead (TomoPy's own pixel model and orientation; noise as
tessel's --noise), so that neither program is favoured by reconstructing its own projector's
data: the figures below agree with that run to 0.05 dB. --projector analytic: a real angle
file's case (real_angles.py): the exact line integrals of the 2-D phantom's ellipses at the
file's float32 angles (--angle-file short: encoder steps of 179.99/n degrees, pairs 89.995
degrees apart; float32: i·180/n), the same object in every slice. Filters in pairs: tessel ramp /
gridrec ramlak, tessel shepp-logan / gridrec shepp (TomoPy's default).

Orientation: tessel's /exchange/recon is slices x N x N (attribute axes z:y:x), row 0 the top
of the head, the phantom as tessel-xct-test-tool writes it. gridrec's image is the same picture
upside down (rows reversed), and its pixel grid is offset from tessel's by a fraction of a
pixel (measured on the 512 phantom: 1/2 pixel in x, 1/8 in y). The script finds both on the
noise-free data: the flip or turn that correlates best with the phantom, then the sub-pixel
shift (1/8 pixel grid, Fourier phase, no smoothing) that does; it prints them and applies them
to every image of that program, noisy or not (tessel's: as is, no shift). "as written" is the
PSNR with the flip alone.

Figures, over all slices inside the reconstruction circle (radius N/2 - 1; the corners are
masked): Pearson r with the phantom and between the two programs (scale and offset free);
the least-squares scale s (s·image ≈ phantom: 1 for tessel, which keeps the phantom's
units), RMSE of s·image against the phantom and PSNR = 20·log10(range / RMSE).

usage (TomoPy built from source as in bench/xct/tomopy_peer.py):
  PYTHONPATH=/tmp/tomopy-work/src/source LD_LIBRARY_PATH=/tmp/tomopy-work/prefix/lib \\
  /usr/bin/python3 bench/xct/fbp_quality.py --xct build/apps/xct/tessel-xct \\
      --tool build/tests/xct/tessel-xct-test-tool [--size 512] [--angles 750] [--slices 16] \\
      [--photons 1e4,1e3] [--projector tessel|tomopy] [--threads 2] [--json out.json]
Exits 3 when TomoPy or h5py cannot be imported.

Measured with the defaults and --photons 1e4,1e3 on two busy cores (512 x 512 x 16 slices,
750 angles, 88 s; PSNR after the least-squares scale and alignment, "as written" in brackets;
r with the phantom):

  noise (I0)  filter               tessel fbp      gridrec          gridrec padded
  none        ramp / ramlak        33.62 dB 0.9949 18.37 (18.16) 0.9061  29.68 (26.99) 0.9886
  none        shepp-logan / shepp  32.58 dB 0.9935 18.38 (18.18) 0.9061  29.89 (27.33) 0.9891
  1e4         ramp / ramlak        30.35 dB 0.9891 18.08 (17.88) 0.8936  26.66 (25.14) 0.9763
  1e4         shepp-logan / shepp  30.58 dB 0.9896 18.16 (18.01) 0.8971  27.70 (26.01) 0.9814
  1e3         ramp / ramlak        23.06 dB 0.9408 16.41 (16.32) 0.7993  19.94 (19.62) 0.8825
  1e3         shepp-logan / shepp  24.42 dB 0.9568 16.96 (16.86) 0.8352  21.53 (21.10) 0.9194
"""
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
    import tomopy
except ImportError as error:
    print(f"TomoPy, h5py or numpy not importable ({error})")
    sys.exit(3)

FILTERS = [("ramp", "ramlak"), ("shepp-logan", "shepp")]

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import real_angles  # noqa: E402  (the analytic projector of real angle files)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--xct", required=True, help="the tessel-xct binary")
    parser.add_argument("--tool", required=True, help="tessel-xct-test-tool (writes the phantom)")
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--angles", type=int, default=750)
    parser.add_argument("--slices", type=int, default=16)
    parser.add_argument("--photons", default="1e4", help="noise levels, comma separated (I0 per ray)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--projector", choices=["tessel", "tomopy", "analytic"], default="tessel",
                        help="who projects the phantom: tessel-xct, tomopy.project, or the exact line integrals "
                             "of the 2-D phantom's ellipses at a real angle file's float32 angles (real_angles.py)")
    parser.add_argument("--angle-file", choices=["float32", "short"], default="short",
                        help="--projector analytic: float32 i*180/n, or encoder steps 179.99/n degrees")
    parser.add_argument("--json")
    return parser.parse_args()


def run(command, env):
    subprocess.run([str(c) for c in command], check=True, env=env)


def make_sinogram(args, tmp, photons, truth, env):
    """The phantom's sinograms (with noise when photons > 0) as PREFIX.sino / PREFIX.theta, made
    by tessel-xct (its Siddon operator on its own pixel grid) or by tomopy.project (TomoPy's)."""
    prefix = f"{tmp}/p{photons:g}"
    if args.projector == "analytic":
        real_angles.make(args.angle_file, args.size, args.angles, args.slices, photons, prefix, args.seed)
    elif args.projector == "tessel":
        noise = ["--noise", photons, "--seed", args.seed] if photons > 0 else []
        # --solver fbp: the sinograms are traced on the fly, no operator is built.
        run([args.xct, "--phantom", args.size, "--angles", args.angles, "--num-slices", args.slices, "--solver",
             "fbp", "--quiet", *noise, "--save-sinogram", prefix], env)
    else:
        theta = np.pi * np.arange(args.angles) / args.angles  # tessel's angles
        sino = np.swapaxes(tomopy.project(truth.astype(np.float32), theta, center=args.size / 2, pad=False,
                                          ncore=args.threads), 0, 1).astype(np.float64)
        if photons > 0:
            sino = poisson(sino, photons, args.seed)
        sino.astype("<f4").tofile(f"{prefix}.sino")
        theta.astype("<f4").tofile(f"{prefix}.theta")
    theta = np.fromfile(f"{prefix}.theta", dtype="<f4").astype(np.float64)
    sino = np.fromfile(f"{prefix}.sino", dtype="<f4").reshape(args.slices, theta.size, args.size)
    return prefix, sino, theta


def poisson(sino, photons, seed):
    """tessel-xct's --noise: counts ~ Poisson(I0·e^(-p·k)) with k = 2/max(p) per slice, back to p;
    a slice that attenuates nothing stays noise-free, as there."""
    rng = np.random.default_rng(seed)
    out = sino.copy()
    for s, peak in enumerate(sino.max(axis=(1, 2))):
        if peak > 0:
            k = 2.0 / peak
            out[s] = -np.log(np.maximum(rng.poisson(photons * np.exp(-sino[s] * k)), 1) / photons) / k
    return out


def tessel_fbp(args, tmp, prefix, filter_name, env):
    out = f"{tmp}/tessel.h5"
    start = time.perf_counter()
    run([args.xct, "--sinogram", f"{prefix}.sino", "--theta", f"{prefix}.theta", "--num-slices", args.slices,
         "--solver", "fbp", "--filter", filter_name, "--quiet", "--output", out], env)
    seconds = time.perf_counter() - start
    with h5py.File(out, "r") as f:
        recon = f["/exchange/recon"]
        axes = recon.attrs["axes"]
        assert (axes.decode() if isinstance(axes, bytes) else axes) == "z:y:x", axes
        return recon[...].astype(np.float64), seconds


def gridrec(args, sino, theta, filter_name, pad):
    """tomopy.recon gridrec at centre N/2; pad > 0: edge-padded by pad columns each side, cropped."""
    n = args.size
    if pad:
        sino = np.pad(sino, ((0, 0), (0, 0), (pad, pad)), mode="edge")
    start = time.perf_counter()
    rec = tomopy.recon(np.ascontiguousarray(sino), theta, center=n / 2 + pad, algorithm="gridrec",
                       sinogram_order=True, ncore=args.threads, filter_name=filter_name)
    seconds = time.perf_counter() - start
    return rec[:, pad:pad + n, pad:pad + n].astype(np.float64), seconds


# The 8 flips and turns of an image (applied to the last two axes).
ORIENTATIONS = {
    "as is": lambda v: v,
    "rows reversed (upside down)": lambda v: v[..., ::-1, :],
    "columns reversed": lambda v: v[..., :, ::-1],
    "turned 180": lambda v: v[..., ::-1, ::-1],
    "transposed": lambda v: np.swapaxes(v, -1, -2),
    "transposed, turned 180": lambda v: np.swapaxes(v, -1, -2)[..., ::-1, ::-1],
    "turned 90": lambda v: np.rot90(v, 1, axes=(-2, -1)),
    "turned 270": lambda v: np.rot90(v, 3, axes=(-2, -1)),
}


def circle(n):
    y, x = np.mgrid[:n, :n]
    return (x - (n - 1) / 2) ** 2 + (y - (n - 1) / 2) ** 2 <= (n / 2 - 1) ** 2


def correlation(a, b, mask):
    return float(np.corrcoef(a[..., mask].ravel(), b[..., mask].ravel())[0, 1])


def shifted(volume, dy, dx):
    """volume moved by (dy, dx) pixels, sub-pixel by a Fourier phase ramp (no smoothing)."""
    if dy == 0 and dx == 0:
        return volume
    ky = np.fft.fftfreq(volume.shape[-2])[:, None]
    kx = np.fft.fftfreq(volume.shape[-1])[None, :]
    ramp = np.exp(-2j * np.pi * (ky * dy + kx * dx))
    return np.fft.ifft2(np.fft.fft2(volume) * ramp).real


def alignment(volume, truth, mask):
    """The orientation, then the sub-pixel shift (1/8 pixel, within one pixel) that best match
    the phantom, found on the middle slice."""
    middle = volume.shape[0] // 2
    image, target = volume[middle], truth[middle]
    name = max(ORIENTATIONS, key=lambda k: correlation(ORIENTATIONS[k](image), target, mask))
    image = ORIENTATIONS[name](image)
    steps = np.arange(-8, 9) / 8
    dy, dx = max(((dy, dx) for dy in steps for dx in steps),
                 key=lambda s: correlation(shifted(image, *s), target, mask))
    return name, float(dy), float(dx)


def aligned(volume, how, shift=True):
    name, dy, dx = how
    volume = ORIENTATIONS[name](volume)
    return shifted(volume, dy, dx) if shift else volume


def quality(image, truth, mask):
    x, t = image[..., mask].ravel(), truth[..., mask].ravel()
    scale = float(x @ t / (x @ x))
    rmse = float(np.sqrt(np.mean((scale * x - t) ** 2)))
    return {"r": correlation(image, truth, mask), "scale": scale, "rmse": rmse,
            "psnr_db": float(20 * np.log10((t.max() - t.min()) / rmse))}


def main():
    args = parse_args()
    n, env = args.size, dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    mask = circle(n)
    levels = [0.0] + [float(p) for p in args.photons.split(",") if p]
    rows, how = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.projector == "analytic":  # one 2-D phantom in every slice, each with its own noise
            run([args.tool, "phantom", n, f"{tmp}/truth.raw"], env)
            truth = np.repeat(np.fromfile(f"{tmp}/truth.raw", dtype="<f4").reshape(1, n, n), args.slices, axis=0)
        else:
            run([args.tool, "phantom", n, f"{tmp}/truth.raw", args.slices], env)
            truth = np.fromfile(f"{tmp}/truth.raw", dtype="<f4").reshape(args.slices, n, n)
        truth = truth.astype(np.float64)
        for photons in levels:  # noise-free first: it fixes the alignment of every program
            prefix, sino, theta = make_sinogram(args, tmp, photons, truth, env)
            for tessel_filter, tomopy_filter in FILTERS:
                images = {"tessel fbp": tessel_fbp(args, tmp, prefix, tessel_filter, env),
                          "gridrec": gridrec(args, sino, theta, tomopy_filter, 0),
                          "gridrec padded": gridrec(args, sino, theta, tomopy_filter, n // 2)}
                done = {}
                for program, (volume, seconds) in images.items():
                    key = (program, tessel_filter)
                    if key not in how:
                        how[key] = alignment(volume, truth, mask)
                    done[program] = aligned(volume, how[key])
                    row = {"photons": photons, "program": program,
                           "filter": tessel_filter if program == "tessel fbp" else tomopy_filter,
                           "orientation": how[key][0], "shift_yx": how[key][1:], "seconds": seconds,
                           **quality(done[program], truth, mask),
                           "psnr_as_written_db": quality(aligned(volume, how[key], False), truth, mask)["psnr_db"]}
                    if program != "tessel fbp":
                        row["r_with_tessel"] = correlation(done[program], done["tessel fbp"], mask)
                    rows.append(row)
    report(args, rows)


def report(args, rows):
    angles = f" ({args.angle_file} angle file)" if args.projector == "analytic" else ""
    print(f"phantom {args.size} x {args.size} x {args.slices} slices, {args.angles} angles, projected by "
          f"{args.projector}{angles}; inside the circle of "
          f"radius {args.size / 2 - 1:g}; PSNR of the least-squares-scaled image (range of the phantom 1)")
    print(f"{'I0':>7}  {'program':15} {'filter':12} {'r truth':>8} {'r tessel':>8} {'scale':>7} {'RMSE':>7} "
          f"{'PSNR':>6} {'as written':>10}  orientation, shift (y, x)")
    for r in rows:
        noise = "none" if r["photons"] == 0 else f"{r['photons']:.0e}"
        with_tessel = f"{r['r_with_tessel']:8.4f}" if "r_with_tessel" in r else f"{'':8}"
        print(f"{noise:>7}  {r['program']:15} {r['filter']:12} {r['r']:8.4f} {with_tessel} {r['scale']:7.4f} "
              f"{r['rmse']:7.4f} {r['psnr_db']:6.2f} {r['psnr_as_written_db']:10.2f}  "
              f"{r['orientation']}, ({r['shift_yx'][0]:+.3f}, {r['shift_yx'][1]:+.3f})")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"projector": args.projector, "size": args.size, "angles": args.angles, "slices": args.slices, "rows": rows}, out, indent=2)


if __name__ == "__main__":
    main()
