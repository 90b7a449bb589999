# tessel.xct.reconstruct: the same answer as tessel-xct on the same raw sinograms, a phantom
# recovered, the GIL released, and bad arguments as ValueError naming the argument.
import re
import subprocess
import threading
import time

import h5py
import numpy as np
import pytest

import tessel


def disc_phantom(n, slices):
    y, x = np.mgrid[0:n, 0:n] + 0.5 - n / 2
    images = []
    for s in range(slices):
        r = 0.35 * n * (1 - 0.2 * s / max(1, slices))
        img = (x**2 + y**2 < r**2).astype(np.float32)
        img[(x - 0.1 * n) ** 2 + (y + 0.05 * n) ** 2 < (0.1 * n) ** 2] = 0.4
        images.append(img)
    return np.stack(images)


def sinograms(n=48, angles=64, slices=3):
    theta = (np.arange(angles) * np.pi / angles).astype(np.float32).astype(np.float64)
    truth = disc_phantom(n, slices)
    tomo = tessel.xct.project(truth, theta)  # (angles, slices, channels), TomoPy's layout
    return truth, tomo, theta


def test_project_layout():
    truth, tomo, theta = sinograms()
    assert tomo.shape == (64, 3, 48) and tomo.dtype == np.float32
    # Every angle sees the whole mass of the image (unit pixels, unit channel spacing), up to
    # the sampling of the discs' edges by the rays.
    np.testing.assert_allclose(tomo.sum(axis=2), np.broadcast_to(truth.sum(axis=(1, 2)), (64, 3)), rtol=1e-2)


@pytest.mark.parametrize("algorithm", ["cgls", "sirt"])
def test_recovers_phantom(algorithm):
    truth, tomo, theta = sinograms()
    rec = tessel.xct.reconstruct(tomo, theta, algorithm=algorithm, num_iter=40)
    assert rec.shape == truth.shape and rec.dtype == np.float32
    assert np.linalg.norm(rec - truth) / np.linalg.norm(truth) < 0.25


def test_mixed_precision_close_to_single():
    truth, tomo, theta = sinograms()
    single = tessel.xct.reconstruct(tomo, theta, num_iter=20)
    mixed = tessel.xct.reconstruct(tomo, theta, num_iter=20, precision="mixed")
    assert not np.array_equal(mixed, single)  # the operator's values really were rounded
    np.testing.assert_allclose(mixed, single, rtol=0, atol=2e-3 * np.abs(single).max())
    with pytest.raises(ValueError, match=r"^precision: 'half' is not 'single' or 'mixed'"):
        tessel.xct.reconstruct(tomo, theta, num_iter=2, precision="half")


def test_scatter_transpose_close_to_stored():
    _, tomo, theta = sinograms()
    stored = tessel.xct.reconstruct(tomo, theta, num_iter=20)
    scatter = tessel.xct.reconstruct(tomo, theta, num_iter=20, transpose="scatter")
    # Sums in another order: rounding that 20 CGLS iterations carry to about 1e-4 of the peak.
    np.testing.assert_allclose(scatter, stored, rtol=0, atol=1e-3 * np.abs(stored).max())
    with pytest.raises(ValueError, match=r"^transpose: 'none' is not 'stored' or 'scatter'"):
        tessel.xct.reconstruct(tomo, theta, num_iter=2, transpose="none")


def test_turn_symmetry_close_to_the_whole_operator():
    _, tomo, theta = sinograms()  # 64 angles over 180 degrees: pairs 90 degrees apart
    turned, info = tessel.xct.reconstruct(tomo, theta, num_iter=20, return_info=True)
    whole, whole_info = tessel.xct.reconstruct(tomo, theta, num_iter=20, turn_symmetry="off", return_info=True)
    assert info["turned"] and not whole_info["turned"]
    # The same rays in another order: rounding that 20 CGLS iterations carry to about 1e-4 of the peak.
    np.testing.assert_allclose(turned, whole, rtol=0, atol=1e-3 * np.abs(whole).max())
    odd = tomo[:63]
    _, odd_info = tessel.xct.reconstruct(odd, theta[:63], num_iter=2, return_info=True)
    assert not odd_info["turned"]  # auto: the angles do not pair up
    with pytest.raises(ValueError, match=r"^turn_symmetry: needs an even number of angles, not 63"):
        tessel.xct.reconstruct(odd, theta[:63], num_iter=2, turn_symmetry="on")
    with pytest.raises(ValueError, match=r"^turn_symmetry: 'yes' is not 'auto', 'on' or 'off'"):
        tessel.xct.reconstruct(tomo, theta, num_iter=2, turn_symmetry="yes")


def test_sinogram_order_and_batches_agree():
    _, tomo, theta = sinograms()
    ref = tessel.xct.reconstruct(tomo, theta, num_iter=10)
    sino = np.ascontiguousarray(tomo.transpose(1, 0, 2))
    np.testing.assert_array_equal(tessel.xct.reconstruct(sino, theta, num_iter=10, sinogram_order=True), ref)
    one_by_one = tessel.xct.reconstruct(tomo, theta, num_iter=10, batch_slices=1)
    np.testing.assert_allclose(one_by_one, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())


@pytest.mark.parametrize("algorithm,center", [("cgls", None), ("sirt", 23.25)])
def test_same_answer_as_cli(tmp_path, tessel_xct, algorithm, center):
    _, tomo, theta = sinograms()
    sino = np.ascontiguousarray(tomo.transpose(1, 0, 2))  # MemXCT raw: slices x angles x channels
    sino.tofile(tmp_path / "s.sino")
    theta.astype(np.float32).tofile(tmp_path / "s.theta")
    command = [tessel_xct, "--sinogram", str(tmp_path / "s.sino"), "--theta", str(tmp_path / "s.theta"),
               "--num-slices", "3", "--solver", algorithm, "--iterations", "12", "--output",
               str(tmp_path / "r.h5"), "--quiet", "--transpose", "stored"]  # Python's default form
    if center is not None:
        command += ["--center", str(center)]
    subprocess.run(command, check=True)
    with h5py.File(tmp_path / "r.h5", "r") as f:
        cli = f["/exchange/recon"][...]
    rec = tessel.xct.reconstruct(tomo, theta, center=center, algorithm=algorithm, num_iter=12)
    assert cli.shape == rec.shape
    np.testing.assert_allclose(rec, cli, rtol=0, atol=1e-6 * np.abs(cli).max())


def test_gil_released():
    _, tomo, theta = sinograms(n=128, angles=192, slices=8)
    done = threading.Event()
    started = time.perf_counter()

    def work():
        tessel.xct.reconstruct(tomo, theta, num_iter=150)
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    last, longest = time.perf_counter(), 0.0
    while not done.is_set():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
        time.sleep(0.001)
    worker.join()
    elapsed = time.perf_counter() - started
    # With the GIL held this thread would stall for the whole reconstruction.
    assert elapsed > 0.2 and longest < 0.5 * elapsed, (elapsed, longest)


def test_backend_auto_is_the_cli_policy():
    # "auto" is resolved by core's resolve_backend, as in tessel-xct: cuda when a device is
    # present, else cpu; "cuda" without one is NotCompiled naming the argument.
    _, tomo, theta = sinograms(n=16, angles=12, slices=2)
    auto = tessel.xct.reconstruct(tomo, theta, num_iter=3, backend="auto")
    try:
        expected = tessel.xct.reconstruct(tomo, theta, num_iter=3, backend="cuda")
    except tessel.NotCompiled as e:
        assert re.match(r"backend cuda: (this build has no CUDA|no CUDA device is present)", str(e)), str(e)
        np.testing.assert_array_equal(auto, tessel.xct.reconstruct(tomo, theta, num_iter=3, backend="cpu"))
    else:
        np.testing.assert_allclose(auto, expected, rtol=1e-3, atol=1e-4)


def test_bad_arguments():
    _, tomo, theta = sinograms(n=16, angles=12, slices=2)
    cases = [
        (dict(tomo=tomo.astype(np.float64)), r"^tomo: dtype float64, expected float32"),
        (dict(tomo=tomo[:, 0, :]), r"^tomo: 2 dimensions \(12, 16\), expected 3"),
        (dict(tomo=np.asfortranarray(tomo)), r"^tomo: not C-contiguous"),
        (dict(tomo=tomo[:, :, :0]), r"^tomo: empty array of shape \(12, 2, 0\)"),
        (dict(theta=theta[:-1]), r"^theta: 11 angles for 12 projections"),
        (dict(theta=np.where(np.arange(12) == 3, np.nan, theta)), r"^theta:3: angle is not finite"),
        (dict(theta=[[0.0]] * 12), r"^theta: 2 dimensions"),
        (dict(algorithm="art"), r"^algorithm: 'art' is not one of 'cgls', 'sirt', 'fbp'"),
        (dict(center=40.0), r"^center: rotation centre 40\.0+ outside the detector \[0, 16\]"),
        (dict(num_iter=0), r"^num_iter: 0 is below 1"),
        (dict(size=-3), r"^size: -3 is negative"),
        (dict(order="spiral"), r"spiral"),
    ]
    for change, message in cases:
        args = dict(tomo=tomo, theta=theta)
        args.update(change)
        with pytest.raises(ValueError, match=message):
            tessel.xct.reconstruct(**args)
