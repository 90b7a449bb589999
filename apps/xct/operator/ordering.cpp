// Domain orderings from partition's Hilbert curves.
#include "apps/xct/operator/ordering.hpp"

#include "core/error.hpp"
#include "partition/hilbert.hpp"

namespace tessel::xct {

std::string_view to_string(DomainOrder order) {
    return order == DomainOrder::natural ? "natural" : "hilbert";
}

DomainOrder parse_domain_order(std::string_view name) {
    if (name == "natural") return DomainOrder::natural;
    if (name == "hilbert") return DomainOrder::hilbert;
    TESSEL_INVALID_INPUT("order", 0, "unknown order '" + std::string(name) + "', expected natural or hilbert");
}

Ordering make_ordering(const Geometry& geometry, DomainOrder kind, size_type tile) {
    Ordering o;
    o.kind = kind;
    o.tile = tile;
    if (kind == DomainOrder::natural) {
        o.pixels = partition::identity_permutation(geometry.num_pixels());
        o.rays = partition::identity_permutation(geometry.num_rays());
    } else {
        o.pixels = partition::hilbert_order_2d(geometry.n, geometry.n, tile);
        o.rays = partition::hilbert_order_2d(geometry.num_rho, geometry.num_theta(), tile);
    }
    o.pixel_position = partition::inverse(o.pixels);
    o.ray_position = partition::inverse(o.rays);
    return o;
}

}  // namespace tessel::xct
