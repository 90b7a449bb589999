"""X-ray CT reconstruction on arrays as TomoPy holds them.

tomo: projections (angles, slices, channels) float32, C-ordered, already normalised and
-log'ed (line integrals); theta: angles in radians. The image grid is N x N pixels of one
channel each (N = channels unless size is given), rotation centre in channels (default
channels / 2), the geometry of tessel-xct (docs/xct.md).
"""
import operator
import os
import warnings

import numpy as np

from . import _tessel

__all__ = ["reconstruct", "project", "normalize", "find_center"]

ALGORITHMS = ("cgls", "sirt", "fbp")
FILTERS = ("ramp", "shepp-logan", "cosine", "hamming", "hann")
# TomoPy's names of the same filters.
FILTER_ALIASES = {"ramlak": "ramp", "shepp": "shepp-logan"}


def reconstruct(tomo, theta, center=None, algorithm="cgls", num_iter=50, *, tol=0.0, nonneg=False,
                size=0, batch_slices=0, sinogram_order=False, order="hilbert", backend="cpu",
                filter_name="ramp", filter_cutoff=1.0, precision="single", transpose="stored",
                operator_cache=None, turn_symmetry="auto", return_info=False):
    """Reconstructs every slice of `tomo`; returns (slices, N, N) float32.

    algorithm: "cgls" or "sirt" (the iterative solvers of tessel-xct); num_iter iterations
    (a slice stops early when its relative residual drops below tol > 0); nonneg clamps SIRT's
    images to x >= 0. "fbp": filtered backprojection (tessel-xct --solver fbp; num_iter, tol
    and nonneg unused; backprojected directly, no operator built, so no residual) with filter_name "ramp", "shepp-logan", "cosine", "hamming" or "hann"
    (TomoPy's "ramlak" and "shepp" are read as ramp and shepp-logan) cut off at filter_cutoff
    times Nyquist, in (0, 1]. sinogram_order=True takes tomo as (slices, angles, channels) like
    TomoPy's option of that name. batch_slices: slices solved together (0: as many as fit in
    memory). precision="mixed" keeps the projection operator's values in fp16 (vectors and sums
    in fp32, as tessel-xct --precision mixed): a third less operator memory, the images within
    about 1e-3 of "single". transpose="scatter" stores only the operator A and applies Aᵀ with
    core's transposed kernel on A's tiles (tessel-xct --transpose scatter): half the operator
    memory and a faster build, each iteration slower (about 1.3x on two cores).
    backend: "cpu", "cuda" or "auto" (cuda when a device is present, else cpu, as tessel-xct
    --backend auto); "cuda" where none is raises NotCompiled.
    operator_cache: a folder (str or os.PathLike) where the projection operator is stored under
    a key of the geometry and options and reused by later calls with the same geometry, as
    tessel-xct --operator-cache (docs/xct.md): the same images bit for bit, without the build;
    None builds it every call. turn_symmetry: "on" when the angles come in pairs 90 degrees apart
    (an even number evenly spread over 180 degrees; a real file's pairs within a bound: a ray
    moves at most 1/20 pixel at the image's corners) builds the operator of the first half only
    and applies it to the image and its quarter turn (half the build and operator memory, the
    same images to rounding; tessel-xct --turn-symmetry), "off" the whole operator, "auto"
    (default) "on" when the angles pair up. return_info=True returns (volume, info) with the
    residual history of every slice and whether the operator was turned ("turned").
    The result equals tessel-xct's on the same sinograms (raw files, same centre and options).
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm: {algorithm!r} is not one of 'cgls', 'sirt', 'fbp'")
    filter_name = FILTER_ALIASES.get(filter_name, filter_name)
    if algorithm == "fbp" and filter_name not in FILTERS:
        raise ValueError(f"filter_name: {filter_name!r} is not one of " + ", ".join(repr(f) for f in FILTERS))
    theta = _angles(theta)
    if center is not None:
        centers = np.asarray(center, dtype=np.float64).reshape(-1)
        if centers.size == 0 or np.any(centers != centers[0]):
            raise ValueError("center: one rotation centre for every slice is supported")
        center = float(centers[0])
    volume, info = _tessel._xct_reconstruct(tomo, theta, center, algorithm, int(num_iter), float(tol),
                                            bool(nonneg), int(size), int(batch_slices),
                                            bool(sinogram_order), order, backend, filter_name,
                                            float(filter_cutoff), precision, transpose,
                                            "" if operator_cache is None else os.fspath(operator_cache),
                                            turn_symmetry)
    return (volume, info) if return_info else volume


def project(obj, theta, ncol=None):
    """Line integrals of the images obj (slices, N, N) float32 along the rays of theta over
    ncol channels (default N): (angles, slices, ncol) float32, tessel-xct's projector."""
    theta = _angles(theta)
    n = obj.shape[-1] if hasattr(obj, "shape") and len(obj.shape) == 3 else 1
    return _tessel._xct_project(obj, theta, int(ncol if ncol is not None else n))


def normalize(tomo, flat, dark=None):
    """Line integrals from raw projections: -log((tomo - dark) / (flat - dark)) with the means
    of the flat and dark frames, i.e. TomoPy's normalize followed by minus_log in one step, as
    tessel-xct preprocesses Data Exchange input (the same values on the same data).

    tomo (angles, slices, channels), flat (flats, slices, channels) and dark (darks, slices,
    channels; None: zero) as numpy arrays of float32, float64 or an integer type (uint16 as
    detectors write it); returns a new float32 C-ordered array of tomo's shape. Where the ratio
    is not positive or not finite (dead pixels, noise below the dark level, flat == dark) it
    becomes 1e-6 before -log, with a RuntimeWarning counting such values (TomoPy clamps the
    denominator instead). The GIL is released while it runs.
    """
    out = _float32(tomo, "tomo", copy=True)
    flat = _float32(flat, "flat")
    dark = None if dark is None else _float32(dark, "dark")
    clamped = _tessel._xct_normalize(out, flat, dark)
    if clamped:
        warnings.warn(f"tessel.xct.normalize: {clamped} values were not positive after flat/dark normalisation "
                      "and were clamped to 1e-6 before -log", RuntimeWarning, stacklevel=2)
    return out


def find_center(tomo, theta, ind=None, *, radius=0.0, fine_radius=1.5, fine_step=0.1, max_angles=360,
                sinogram_order=False):
    """Rotation centre of slice `ind` (default: the middle one, slices // 2) by Vo's Fourier
    method (Vo et al., Opt. Express 22, 19078 (2014); TomoPy's find_center_vo), as tessel-xct's
    --center auto: the same value on the same sinogram. Returns a float in channels with pixel
    edges at 0..channels (channels / 2 is the detector middle), the `center` reconstruct takes.

    tomo: normalised, -log'ed projections (angles, slices, channels) float32, C-ordered
    ((slices, angles, channels) with sinogram_order=True); theta in radians, covering at least
    170 degrees; at least 8 angles and 16 channels. radius: coarse search around the middle in
    channels (0: min(50, channels / 4)); then ± fine_radius in steps of fine_step; at most
    max_angles angles are used. The GIL is released while it runs.
    """
    theta = _angles(theta)
    if ind is None:
        shape = getattr(tomo, "shape", ())
        ind = shape[0 if sinogram_order else 1] // 2 if len(shape) == 3 else 0
    try:
        ind = operator.index(ind)
    except TypeError:
        raise ValueError(f"ind: {ind!r} is not a slice index (an integer)") from None
    return _tessel._xct_find_center(tomo, theta, ind, float(radius), float(fine_radius), float(fine_step),
                                    int(max_angles), bool(sinogram_order))


def _float32(array, name, copy=False):
    """A float32 C-ordered version of a numpy array of reals (a copy when asked or needed)."""
    if not isinstance(array, np.ndarray):
        raise ValueError(f"{name}: expected a numpy array, got {type(array).__name__}")
    if array.dtype.kind not in "uif":
        raise ValueError(f"{name}: dtype {array.dtype}, expected float32, float64 or an integer type")
    if copy:
        return np.array(array, dtype=np.float32, order="C")
    return np.ascontiguousarray(array, dtype=np.float32)


def _angles(theta):
    try:
        theta = np.ascontiguousarray(theta, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError(f"theta: cannot read the angles as numbers ({e})") from None
    if theta.ndim != 1:
        raise ValueError(f"theta: {theta.ndim} dimensions, expected 1 (angles in radians)")
    return theta
