// A parallel-beam projection matrix (rays x pixels) for tests and benchmarks, with the Hilbert
// orderings of its image (columns) and sinogram (rows) domains.
#pragma once

#include "core/formats/csr.hpp"
#include "partition/permutation.hpp"

namespace tessel::partition {

/// Parallel-beam geometry: an N x N pixel grid of unit pixels centred at the origin, `angles`
/// projection angles θ_a = π·a/angles and `channels` parallel rays per angle, spaced
/// N·√2/channels apart (the detector spans the image diagonal).
struct TomographyGeometry {
    size_type pixels = 64;    // N
    size_type angles = 64;
    size_type channels = 64;
};

/// The projection matrix A: row a*channels + c is the ray (θ_a, channel c), column y*N + x the
/// pixel (x, y); A(ray, pixel) is the ray's length inside the pixel, approximated by marching
/// the ray in steps of 1/4 pixel (the exact Siddon projector belongs to the xct app). Rays that
/// miss the image are empty rows. Throws InvalidInput on a size below 1.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> parallel_beam_matrix(const TomographyGeometry& geometry);

/// Orders of the two domains along two-level Hilbert curves (hilbert_order_2d with `tile`):
/// columns on the N x N pixel grid, rows on the angles x channels sinogram (x = channel,
/// y = angle). Apply with permute(a, rows, columns).
struct TomographyOrder {
    Permutation rows;
    Permutation columns;
};
TomographyOrder tomography_hilbert_order(const TomographyGeometry& geometry, size_type tile);

}  // namespace tessel::partition
