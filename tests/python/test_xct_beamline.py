# tessel.xct.normalize, find_center and reconstruct(algorithm="fbp"): against numpy, a phantom
# whose rotation centre is known, and tessel-xct on the same data (raw sinograms and a Data
# Exchange file); bad arguments as ValueError naming the argument.
import subprocess

import h5py
import numpy as np
import pytest

import tessel


def phantom(n, slices=2):
    y, x = np.mgrid[0:n, 0:n] + 0.5 - n / 2
    images = []
    for s in range(slices):
        img = (x**2 + y**2 < (0.3 * n) ** 2).astype(np.float32)
        img[(x - 0.12 * n - s) ** 2 + (y + 0.08 * n) ** 2 < (0.08 * n) ** 2] = 2.0
        img[(x + 0.1 * n) ** 2 + (y - 0.1 * n + s) ** 2 < (0.05 * n) ** 2] = 0.0
        images.append(img)
    return np.stack(images)


def angles(count):
    # float32 radians, as the raw .theta files hold them (so the CLI sees the same angles).
    return (np.arange(count) * np.pi / count).astype(np.float32).astype(np.float64)


def shifted(tomo, shift):
    """tomo moved by `shift` channels (linear interpolation, zeros beyond): its rotation centre
    moves from channels / 2 to channels / 2 + shift."""
    channels = tomo.shape[-1]
    where = np.arange(channels) - shift
    out = np.empty_like(tomo)
    for index in np.ndindex(tomo.shape[:-1]):
        out[index] = np.interp(where, np.arange(channels), tomo[index], left=0.0, right=0.0)
    return out


# ----- normalize ---------------------------------------------------------------------------

def raw_counts(shape=(6, 3, 20), flats=3, darks=2, seed=1):
    rng = np.random.default_rng(seed)
    angles_, slices, channels = shape
    dark = rng.integers(90, 110, size=(darks, slices, channels)).astype(np.uint16)
    flat = rng.integers(50000, 60000, size=(flats, slices, channels)).astype(np.uint16)
    transmission = rng.uniform(0.05, 1.0, size=shape)
    tomo = (transmission * (flat.mean(0) - dark.mean(0)) + dark.mean(0)).astype(np.uint16)
    return tomo, flat, dark


def test_normalize_matches_numpy():
    tomo, flat, dark = raw_counts()
    expected = -np.log((tomo - dark.mean(0)) / (flat.mean(0) - dark.mean(0)))
    out = tessel.xct.normalize(tomo, flat, dark)
    assert out.shape == tomo.shape and out.dtype == np.float32 and out.flags.c_contiguous
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    # Any real dtype and memory order give the same values; the input is left alone.
    before = tomo.copy()
    again = tessel.xct.normalize(np.asfortranarray(tomo.astype(np.float64)), flat.astype(np.float32), dark)
    np.testing.assert_array_equal(again, out)
    np.testing.assert_array_equal(tomo, before)
    # No dark frames: zero dark, as tessel-xct without /exchange/data_dark.
    np.testing.assert_allclose(tessel.xct.normalize(tomo, flat, None), -np.log(tomo / flat.mean(0)), rtol=1e-5,
                               atol=1e-6)


def test_normalize_clamps_with_a_warning():
    tomo, flat, dark = raw_counts()
    tomo[2, 1, 7] = 0  # below the dark level: the ratio is negative
    with pytest.warns(RuntimeWarning, match=r"1 values were not positive .* clamped to 1e-6"):
        out = tessel.xct.normalize(tomo, flat, dark)
    assert out[2, 1, 7] == pytest.approx(-np.log(1e-6), rel=1e-6)
    assert np.isfinite(out).all()


def test_normalize_bad_arguments():
    tomo, flat, dark = raw_counts()
    cases = [
        (dict(tomo=tomo.tolist()), ValueError, r"^tomo: expected a numpy array, got list"),
        (dict(tomo=tomo.astype(np.complex64)), ValueError, r"^tomo: dtype complex64, expected float32, float64 or an"),
        (dict(tomo=tomo[:, 0, :]), ValueError, r"^tomo: 2 dimensions \(6, 20\), expected 3"),
        (dict(tomo=tomo[:, :, :0]), ValueError, r"^tomo: empty array of shape \(6, 3, 0\)"),
        (dict(flat=flat[:, :2, :]), ValueError, r"^flat: shape \(3, 2, 20\) does not hold frames of tomo's"),
        (dict(flat=flat[:0]), ValueError, r"^flat: shape \(0, 3, 20\)"),
        (dict(flat=flat[0]), ValueError, r"^flat: 2 dimensions"),
        (dict(dark=dark[:, :, 1:]), ValueError, r"^dark: shape \(2, 3, 19\) does not hold"),
        (dict(dark=np.ones((2, 3, 20), dtype=bool)), ValueError, r"^dark: dtype bool"),
        (dict(flat=dark), ValueError, r"^flat: flat equals dark everywhere \(all-zero flat fields\?\)"),
        (dict(flat=dark, dark=flat), ValueError, r"^flat: flat is below dark everywhere \(flat and dark fields swapped"),
    ]
    for change, error, message in cases:
        args = dict(tomo=tomo, flat=flat, dark=dark)
        args.update(change)
        with pytest.raises(error, match=message):
            tessel.xct.normalize(**args)


# ----- find_center -------------------------------------------------------------------------

@pytest.mark.parametrize("shift", [0.0, 5.0, -7.0, 3.5])
def test_find_center_of_a_shifted_phantom(shift):
    theta = angles(180)
    tomo = tessel.xct.project(phantom(64), theta, ncol=96)
    truth = 96 / 2 + shift
    tomo = shifted(tomo, shift)
    center = tessel.xct.find_center(tomo, theta)
    assert isinstance(center, float)
    assert abs(center - truth) < 0.5, (center, truth)
    # Either slice, either layout, angles in any order: the same centre.
    sino = np.ascontiguousarray(tomo.transpose(1, 0, 2))
    assert tessel.xct.find_center(sino, theta, ind=1, sinogram_order=True) == tessel.xct.find_center(tomo, theta, 1)
    order = np.random.default_rng(3).permutation(theta.size)
    assert tessel.xct.find_center(np.ascontiguousarray(tomo[order]), theta[order]) == pytest.approx(center, abs=1e-9)


def test_find_center_bad_arguments():
    theta = angles(32)
    tomo = tessel.xct.project(phantom(24), theta, ncol=32)
    cases = [
        (dict(tomo=tomo.astype(np.float64)), ValueError, r"^tomo: dtype float64, expected float32"),
        (dict(tomo=np.asfortranarray(tomo)), ValueError, r"^tomo: not C-contiguous"),
        (dict(theta=theta[:-1]), ValueError, r"^theta: 31 angles for 32 projections"),
        (dict(ind=2), ValueError, r"^ind: slice 2 outside the 2 slices of tomo"),
        (dict(ind=-1), ValueError, r"^ind: slice -1 outside"),
        (dict(ind=0.5), ValueError, r"^ind: 0\.5 is not a slice index"),
        (dict(fine_step=0.0), ValueError, r"^fine_step: step must be positive"),
        (dict(radius=-1.0), ValueError, r"^radius: negative search radius"),
        (dict(max_angles=4), ValueError, r"^max_angles: 4 is below 8"),
        (dict(theta=theta / 2), tessel.InvalidInput, r"needs a 180 degree scan .* over 87\.\d+ degrees"),
        (dict(tomo=np.ascontiguousarray(tomo[:, :, :12])), tessel.InvalidInput, r"12 channels"),
    ]
    for change, error, message in cases:
        args = dict(tomo=tomo, theta=theta)
        args.update(change)
        with pytest.raises(error, match=message):
            tessel.xct.find_center(**args)


# ----- fbp ---------------------------------------------------------------------------------

def test_fbp_recovers_phantom():
    truth = phantom(64)
    theta = angles(128)
    tomo = tessel.xct.project(truth, theta, ncol=80)
    rec, info = tessel.xct.reconstruct(tomo, theta, algorithm="fbp", size=64, return_info=True)
    assert rec.shape == truth.shape and rec.dtype == np.float32
    assert np.linalg.norm(rec - truth) / np.linalg.norm(truth) < 0.1
    assert info["iterations"] == 0 and len(info["residuals"]) == 2 and len(info["residuals"][0]) == 0  # no A: no residual
    # A known centre off the middle: the same image as the centred data.
    moved = tessel.xct.reconstruct(shifted(tomo, 6.0), theta, center=46.0, algorithm="fbp", size=64)
    np.testing.assert_allclose(moved, rec, rtol=0, atol=1e-4 * np.abs(rec).max())
    # The windows smooth: less energy at high frequencies than the ramp, TomoPy's names too.
    hann = tessel.xct.reconstruct(tomo, theta, algorithm="fbp", size=64, filter_name="hann")
    assert np.abs(np.diff(hann, axis=2)).sum() < np.abs(np.diff(rec, axis=2)).sum()
    shepp = tessel.xct.reconstruct(tomo, theta, algorithm="fbp", size=64, filter_name="shepp")
    np.testing.assert_array_equal(
        shepp, tessel.xct.reconstruct(tomo, theta, algorithm="fbp", size=64, filter_name="shepp-logan"))


@pytest.mark.parametrize("center,filter_name,cutoff", [(None, "ramp", 1.0), (23.25, "hann", 0.8)])
def test_fbp_same_answer_as_cli(tmp_path, tessel_xct, center, filter_name, cutoff):
    theta = angles(64)
    tomo = tessel.xct.project(phantom(48, slices=3), theta)
    sino = np.ascontiguousarray(tomo.transpose(1, 0, 2))  # MemXCT raw: slices x angles x channels
    sino.tofile(tmp_path / "s.sino")
    theta.astype(np.float32).tofile(tmp_path / "s.theta")
    command = [tessel_xct, "--sinogram", str(tmp_path / "s.sino"), "--theta", str(tmp_path / "s.theta"),
               "--num-slices", "3", "--solver", "fbp", "--filter", filter_name, "--filter-cutoff", str(cutoff),
               "--output", str(tmp_path / "r.h5"), "--quiet"]
    if center is not None:
        command += ["--center", str(center)]
    subprocess.run(command, check=True)
    with h5py.File(tmp_path / "r.h5", "r") as f:
        cli = f["/exchange/recon"][...]
        assert f["/exchange/recon"].attrs["algorithm"] in ("fbp", b"fbp")
    rec = tessel.xct.reconstruct(tomo, theta, center=center, algorithm="fbp", filter_name=filter_name,
                                 filter_cutoff=cutoff)
    assert cli.shape == rec.shape
    np.testing.assert_allclose(rec, cli, rtol=0, atol=1e-6 * np.abs(cli).max())


def exchange_file(path, shift=4.0, n=48, channels=64, angles_count=90):
    """A Data Exchange file of the phantom's counts (uint16, uneven flat field, theta in
    degrees), rotation centre channels / 2 + shift; returns (counts, flat, dark, theta radians)."""
    degrees = (np.arange(angles_count) * 180.0 / angles_count).astype(np.float32)
    theta = (degrees.astype(np.float64) * np.pi / 180.0).astype(np.float32).astype(np.float64)  # as the CLI
    tomo = shifted(tessel.xct.project(0.02 * phantom(n, slices=3), theta, ncol=channels), shift)
    rng = np.random.default_rng(7)
    white = 40000 + 8000 * np.sin(np.arange(channels) / 9.0)[None, :] + rng.normal(0, 50, (3, channels))
    flat = (white[None] + rng.normal(0, 200, (4, 3, channels))).astype(np.uint16)
    dark = rng.integers(95, 105, size=(2, 3, channels)).astype(np.uint16)
    counts = (np.exp(-tomo) * (flat.mean(0) - dark.mean(0)) + dark.mean(0)).astype(np.uint16)
    with h5py.File(path, "w") as f:
        f["/exchange/data"] = counts
        f["/exchange/data_white"] = flat
        f["/exchange/data_dark"] = dark
        f["/exchange/theta"] = degrees
    return counts, flat, dark, theta


def test_same_answers_as_cli_on_data_exchange(tmp_path, tessel_xct):
    counts, flat, dark, theta = exchange_file(tmp_path / "p.h5")
    tomo = tessel.xct.normalize(counts, flat, dark)
    # The sinograms tessel-xct reconstructs (default centre: not shifted) and its FBP image.
    subprocess.run([tessel_xct, "--input", str(tmp_path / "p.h5"), "--solver", "fbp", "--save-sinogram",
                    str(tmp_path / "saved"), "--output", str(tmp_path / "r1.h5"), "--quiet"], check=True)
    saved = np.fromfile(tmp_path / "saved.sino", dtype=np.float32).reshape(3, 90, 64)
    np.testing.assert_array_equal(tomo, saved.transpose(1, 0, 2))
    rec = tessel.xct.reconstruct(tomo, theta, algorithm="fbp")
    with h5py.File(tmp_path / "r1.h5", "r") as f:
        np.testing.assert_allclose(rec, f["/exchange/recon"][...], rtol=0, atol=1e-6 * np.abs(rec).max())
    # --center auto on slice 1: the same centre and image.
    subprocess.run([tessel_xct, "--input", str(tmp_path / "p.h5"), "--center", "auto", "--center-slice", "1",
                    "--solver", "fbp", "--output", str(tmp_path / "r2.h5"), "--quiet"], check=True)
    center = tessel.xct.find_center(tomo, theta, ind=1)
    assert abs(center - 36.0) < 0.5
    with h5py.File(tmp_path / "r2.h5", "r") as f:
        assert float(f["/exchange/recon"].attrs["center"]) == pytest.approx(center, abs=1e-9)
        cli = f["/exchange/recon"][...]
    rec = tessel.xct.reconstruct(tomo, theta, center=center, algorithm="fbp")
    np.testing.assert_allclose(rec, cli, rtol=0, atol=1e-6 * np.abs(cli).max())


def test_fbp_bad_arguments():
    theta = angles(12)
    tomo = tessel.xct.project(phantom(16), theta)
    cases = [
        (dict(filter_name="parzen"), r"^filter_name: 'parzen' is not one of 'ramp', 'shepp-logan', 'cosine'"),
        (dict(filter_cutoff=0.0), r"^filter_cutoff: 0\.0+ is outside \(0, 1\]"),
        (dict(filter_cutoff=1.5), r"^filter_cutoff: 1\.50* is outside"),
        (dict(center=17.0), r"^center: rotation centre 17\.0+ outside the detector \[0, 16\]"),
        (dict(tomo=tomo.astype(np.float64)), r"^tomo: dtype float64, expected float32"),
        (dict(theta=theta[1:]), r"^theta: 11 angles for 12 projections"),
    ]
    for change, message in cases:
        args = dict(tomo=tomo, theta=theta, algorithm="fbp")
        args.update(change)
        with pytest.raises(ValueError, match=message):
            tessel.xct.reconstruct(**args)
