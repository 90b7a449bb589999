"""Sparse DNN inference (MIT/IEEE/Amazon Graph Challenge): Y_{k+1} = min(32, max(0, Y_k W_k + b))."""
import numbers

import numpy as np

from . import _tessel

__all__ = ["infer"]


def infer(weights, biases, images, backend="auto"):
    """Runs `images` (scipy.sparse CSR, float32, images x N) through the layers `weights`
    (a sequence of scipy.sparse CSR float32 N x N matrices, int32 indices). `biases`: one
    number for every layer and neuron, or one per layer (tessel applies a single bias, so they
    must be equal; per-neuron arrays too). Returns the 0-based ids (int64, ascending) of the images whose final
    activations are not all zero (the Challenge's categories, minus one)."""
    from . import _csr_parts
    weights = list(weights)
    if isinstance(biases, numbers.Real):
        bias = float(biases)
    else:
        try:
            values = np.asarray(biases, dtype=np.float64).ravel()
        except (TypeError, ValueError) as e:
            raise ValueError(f"biases: cannot read them as numbers ({e})") from None
        if values.size == 0:
            raise ValueError("biases: empty")
        if np.any(values != values[0]):
            raise ValueError("biases: tessel applies one bias to every layer and neuron; they differ")
        bias = float(values[0])
    parts = [_csr_parts(w, f"weights[{k}]") for k, w in enumerate(weights)]
    return _tessel._spdnn_infer(parts, bias, _csr_parts(images, "images"), backend)
