# tessel.spdnn.infer against a numpy evaluation of Y_{k+1} = min(32, max(0, Y_k W_k + b)).
import numpy as np
import pytest
import scipy.sparse as sp

import tessel


def problem(neurons=64, layers=6, images=70, seed=11):
    rng = np.random.default_rng(seed)
    weights = []
    for _ in range(layers):
        w = sp.random(neurons, neurons, density=0.12, format="csr", dtype=np.float32, random_state=rng)
        w.data = (w.data * 0.5).astype(np.float32)
        weights.append(w)
    y0 = sp.csr_matrix((rng.random((images, neurons)) < 0.15).astype(np.float32))
    return weights, y0


def numpy_categories(weights, bias, y0):
    y = y0.toarray().astype(np.float32)
    for w in weights:
        y = np.minimum(np.float32(32), np.maximum(np.float32(0), (y @ w.toarray()) + np.float32(bias)))
    return np.nonzero(y.sum(axis=1) > 0)[0]


@pytest.mark.parametrize("bias", [-0.3, -0.2])
def test_matches_numpy(bias):
    weights, y0 = problem()
    ids = tessel.spdnn.infer(weights, bias, y0, backend="cpu")
    expected = numpy_categories(weights, bias, y0)
    assert 0 < len(expected) < y0.shape[0]  # the problem is neither trivial nor empty
    assert ids.dtype == np.int64
    np.testing.assert_array_equal(ids, expected)


def test_bias_per_layer_and_neuron():
    weights, y0 = problem()
    per_neuron = [np.full(64, -0.3, dtype=np.float32)] * len(weights)
    np.testing.assert_array_equal(tessel.spdnn.infer(weights, per_neuron, y0),
                                  tessel.spdnn.infer(weights, -0.3, y0))


def test_bad_arguments():
    weights, y0 = problem()
    with pytest.raises(ValueError, match=r"^biases: tessel applies one bias"):
        tessel.spdnn.infer(weights, [-0.3] * 5 + [-0.2], y0)
    bad = list(weights)
    bad[1] = sp.random(64, 32, density=0.1, format="csr", dtype=np.float32)
    with pytest.raises(ValueError, match=r"^weights\[1\]: shape \(64, 32\), expected \(64, 64\)"):
        tessel.spdnn.infer(bad, -0.3, y0)
    with pytest.raises(ValueError, match=r"^weights\[0\].data: dtype float64, expected float32"):
        tessel.spdnn.infer([w.astype(np.float64) for w in weights], -0.3, y0)
    with pytest.raises(ValueError, match=r"^images: 32 columns, expected 64"):
        tessel.spdnn.infer(weights, -0.3, y0[:, :32])
    with pytest.raises(ValueError, match=r"^images: expected a scipy.sparse CSR matrix"):
        tessel.spdnn.infer(weights, -0.3, y0.toarray())
    with pytest.raises(ValueError, match=r"^weights: no layers"):
        tessel.spdnn.infer([], -0.3, y0)
