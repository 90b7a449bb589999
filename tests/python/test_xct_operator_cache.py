# tessel.xct.reconstruct(operator_cache=...): the operator stored once and reused, the images
# bit for bit those of an uncached call, a damaged file rebuilt with one note.
import numpy as np

import tessel


def problem(n=40, angles=60, slices=2):
    y, x = np.mgrid[0:n, 0:n] + 0.5 - n / 2
    truth = np.stack([((x - 3 * s) ** 2 + y**2 < (0.3 * n) ** 2).astype(np.float32) for s in range(slices)])
    theta = np.arange(angles) * np.pi / angles
    return tessel.xct.project(truth, theta), theta


def test_cached_operator_gives_the_same_images(tmp_path):
    tomo, theta = problem()
    plain = tessel.xct.reconstruct(tomo, theta, num_iter=6)
    cache = tmp_path / "ops"  # created by the first call; os.PathLike accepted
    first = tessel.xct.reconstruct(tomo, theta, num_iter=6, operator_cache=cache)
    files = list(cache.iterdir())
    assert len(files) == 1 and files[0].name.startswith("xct-op-") and files[0].suffix == ".bin"
    stamp = files[0].stat().st_mtime_ns
    second = tessel.xct.reconstruct(tomo, theta, num_iter=6, operator_cache=str(cache))
    assert files[0].stat().st_mtime_ns == stamp, "the second call rewrote the cache file instead of loading it"
    np.testing.assert_array_equal(first, plain)
    np.testing.assert_array_equal(second, plain)


def test_another_geometry_gets_its_own_file(tmp_path):
    tomo, theta = problem()
    tessel.xct.reconstruct(tomo, theta, num_iter=2, operator_cache=tmp_path)
    tessel.xct.reconstruct(tomo, theta, num_iter=2, transpose="scatter", operator_cache=tmp_path)
    tomo2, theta2 = problem(angles=50)
    plain = tessel.xct.reconstruct(tomo2, theta2, num_iter=4)
    cached = tessel.xct.reconstruct(tomo2, theta2, num_iter=4, operator_cache=tmp_path)
    assert len(list(tmp_path.glob("xct-op-*.bin"))) == 3
    np.testing.assert_array_equal(cached, plain)


def test_truncated_file_is_rebuilt_with_a_note(tmp_path, capfd):
    tomo, theta = problem()
    plain = tessel.xct.reconstruct(tomo, theta, num_iter=6)
    tessel.xct.reconstruct(tomo, theta, num_iter=6, operator_cache=tmp_path)
    (path,) = tmp_path.glob("xct-op-*.bin")
    path.write_bytes(path.read_bytes()[:5000])
    capfd.readouterr()
    again = tessel.xct.reconstruct(tomo, theta, num_iter=6, operator_cache=tmp_path)
    err = capfd.readouterr().err
    assert "operator cache" in err and "truncated; rebuilt" in err, err
    np.testing.assert_array_equal(again, plain)
    assert path.stat().st_size > 5000
