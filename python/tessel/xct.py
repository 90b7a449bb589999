"""X-ray CT reconstruction on arrays as TomoPy holds them.

tomo: projections (angles, slices, channels) float32, C-ordered, already normalised and
-log'ed (line integrals); theta: angles in radians. The image grid is N x N pixels of one
channel each (N = channels unless size is given), rotation centre in channels (default
channels / 2), the geometry of tessel-xct (docs/xct.md).
"""
import numpy as np

from . import _tessel

__all__ = ["reconstruct", "project", "normalize", "find_center"]

ALGORITHMS = ("cgls", "sirt")


def reconstruct(tomo, theta, center=None, algorithm="cgls", num_iter=50, *, tol=0.0, nonneg=False,
                size=0, batch_slices=0, sinogram_order=False, order="hilbert", backend="cpu",
                return_info=False):
    """Reconstructs every slice of `tomo`; returns (slices, N, N) float32.

    algorithm: "cgls" or "sirt" (the iterative solvers of tessel-xct); num_iter iterations
    (a slice stops early when its relative residual drops below tol > 0); nonneg clamps SIRT's
    images to x >= 0. sinogram_order=True takes tomo as (slices, angles, channels) like
    TomoPy's option of that name. batch_slices: slices solved together (0: as many as fit in
    memory). return_info=True returns (volume, info) with the residual history of every slice.
    The result equals tessel-xct's on the same sinograms (raw files, same centre and options).
    """
    if algorithm == "fbp":
        # FBP is being added by the beamline work; the lead wires it here after merging.
        fbp = getattr(_tessel, "_xct_fbp", None)
        if fbp is None:
            raise NotImplementedError("algorithm: 'fbp' is not in this build of tessel (use 'cgls' or 'sirt')")
        raise NotImplementedError("algorithm: 'fbp' is not wired into tessel.xct.reconstruct yet")
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm: {algorithm!r} is not one of 'cgls', 'sirt'")
    theta = _angles(theta)
    if center is not None:
        centers = np.asarray(center, dtype=np.float64).reshape(-1)
        if centers.size == 0 or np.any(centers != centers[0]):
            raise ValueError("center: one rotation centre for every slice is supported")
        center = float(centers[0])
    volume, info = _tessel._xct_reconstruct(tomo, theta, center, algorithm, int(num_iter), float(tol),
                                            bool(nonneg), int(size), int(batch_slices),
                                            bool(sinogram_order), order, backend)
    return (volume, info) if return_info else volume


def project(obj, theta, ncol=None):
    """Line integrals of the images obj (slices, N, N) float32 along the rays of theta over
    ncol channels (default N): (angles, slices, ncol) float32, tessel-xct's projector."""
    theta = _angles(theta)
    n = obj.shape[-1] if hasattr(obj, "shape") and len(obj.shape) == 3 else 1
    return _tessel._xct_project(obj, theta, int(ncol if ncol is not None else n))


def normalize(tomo, flat, dark):
    """Hook: flat/dark normalisation and -log come with the beamline work (lead wires it)."""
    impl = getattr(_tessel, "_xct_normalize", None)
    if impl is None:
        raise NotImplementedError("tessel.xct.normalize is not in this build yet")
    return impl(tomo, flat, dark)


def find_center(tomo, theta, **options):
    """Hook: rotation-centre search comes with the beamline work (lead wires it)."""
    impl = getattr(_tessel, "_xct_find_center", None)
    if impl is None:
        raise NotImplementedError("tessel.xct.find_center is not in this build yet")
    return impl(tomo, _angles(theta), **options)


def _angles(theta):
    try:
        theta = np.ascontiguousarray(theta, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError(f"theta: cannot read the angles as numbers ({e})") from None
    if theta.ndim != 1:
        raise ValueError(f"theta: {theta.ndim} dimensions, expected 1 (angles in radians)")
    return theta
