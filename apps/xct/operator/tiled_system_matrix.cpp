// The lean build of A and Aᵀ: core's row-block builder fed by the ray tracer, then core's
// tiled transpose.
#include "apps/xct/operator/tiled_system_matrix.hpp"

#include "apps/xct/geometry/siddon.hpp"
#include "core/error.hpp"
#include "core/formats/tiled_ell_rows.hpp"
#include "core/formats/tiled_ell_transpose.hpp"
#include "core/timer.hpp"

namespace tessel::xct {

namespace {

// Appends one traced ray to `out` as a row: written through plain pointers into room sized by
// the O(1) bound (a capacity check per entry was a visible share of the build); a ray the
// bound missed (a line through pixel corners) is traced again with room for all of it.
template <typename V>
void append_ray(size_type n, double theta, double rho, const partition::Permutation& position,
                RowBlock<V, Index>& out) {
    const std::size_t used = out.col.size();
    std::size_t room = static_cast<std::size_t>(bound_ray(n, theta, rho)) + 2, m = 0;
    while (true) {
        out.col.resize(used + room);
        out.values.resize(used + room);
        Index* col = out.col.data() + used;
        V* value = out.values.data() + used;
        m = 0;
        trace_ray(n, theta, rho, [&](size_type pixel, double length) {
            if (m < room) {
                col[m] = static_cast<Index>(position[pixel]);
                value[m] = static_cast<V>(length);
            }
            ++m;
        });
        if (m <= room) break;
        room = m;
    }
    out.col.resize(used + m);
    out.values.resize(used + m);
    out.end_row();
}

}  // namespace

template <typename V>
TiledEll<V, Index> trace_tiled(const Geometry& g, const Ordering& o, size_type first, size_type last,
                               const TiledEllConfig& config, bool half_values) {
    TESSEL_ENSURE_DIMS(0 <= first && first <= last && last <= g.num_rays(), "trace_tiled: bad ray range");
    // Rows of one block: each ray traced in order along it, as build_rows writes them.
    const RowBlockSource<V, Index> rays = [&](size_type r0, size_type r1, RowBlock<V, Index>& out) {
        for (size_type i = first + r0; i < first + r1; ++i) {
            const size_type ray = o.rays[i];
            append_ray(g.n, g.theta[ray / g.num_rho], g.rho(ray % g.num_rho), o.pixel_position, out);
        }
    };
    return tiled_ell_from_row_blocks<V, Index>(last - first, g.num_pixels(), rays, config, half_values);
}

template <typename V>
TiledOperators<V> build_tiled_operators(const Geometry& g, const Ordering& o, const TiledEllConfig& config,
                                        bool half_values, bool with_transpose) {
    TiledOperators<V> ops;
    Timer timer;
    ops.a = trace_tiled<V>(g, o, 0, g.num_rays(), config, half_values);
    ops.trace_seconds = timer.seconds();
    if (!with_transpose) return ops;
    timer.restart();
    ops.at = tiled_ell_transpose(ops.a, config);
    ops.transpose_seconds = timer.seconds();
    return ops;
}

template TiledEll<float, Index> trace_tiled(const Geometry&, const Ordering&, size_type, size_type,
                                            const TiledEllConfig&, bool);
template TiledEll<double, Index> trace_tiled(const Geometry&, const Ordering&, size_type, size_type,
                                             const TiledEllConfig&, bool);
template TiledOperators<float> build_tiled_operators(const Geometry&, const Ordering&, const TiledEllConfig&, bool,
                                                    bool);
template TiledOperators<double> build_tiled_operators(const Geometry&, const Ordering&, const TiledEllConfig&, bool,
                                                     bool);

}  // namespace tessel::xct
