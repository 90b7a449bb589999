// Orderings of the image (pixels) and sinogram (rays) domains: natural or two-level Hilbert.
#pragma once

#include <string_view>

#include "apps/xct/geometry/geometry.hpp"
#include "partition/permutation.hpp"

namespace tessel::xct {

enum class DomainOrder { natural, hilbert };

std::string_view to_string(DomainOrder order);
/// "natural" or "hilbert"; throws InvalidInput otherwise.
DomainOrder parse_domain_order(std::string_view name);

/// Where every pixel and ray sits in memory. pixels[position] = pixel index (iy·n + ix),
/// pixel_position[pixel] = position; the same for rays (a·num_rho + c). Rows of A are rays
/// and columns pixels, both in these positions.
struct Ordering {
    DomainOrder kind = DomainOrder::natural;
    size_type tile = 0;
    partition::Permutation pixels, pixel_position;
    partition::Permutation rays, ray_position;
};

/// Natural: row-major order of both domains. Hilbert (MemXCT): the n x n image and the
/// num_theta x num_rho sinogram (x = channel, y = angle) each along partition's two-level
/// Hilbert curve with tile x tile tiles (tile a power of two). Throws InvalidInput.
Ordering make_ordering(const Geometry& geometry, DomainOrder kind, size_type tile = 32);

}  // namespace tessel::xct
