// The lean build of A and Aᵀ: core's row-block builder fed by the ray tracer, then core's
// tiled transpose.
#include "apps/xct/tiled_system_matrix.hpp"

#include "apps/xct/siddon.hpp"
#include "core/error.hpp"
#include "core/formats/tiled_ell_rows.hpp"
#include "core/formats/tiled_ell_transpose.hpp"
#include "core/timer.hpp"

namespace tessel::xct {

template <typename V>
TiledEll<V, Index> trace_tiled(const Geometry& g, const Ordering& o, size_type first, size_type last,
                               const TiledEllConfig& config, bool half_values) {
    TESSEL_ENSURE_DIMS(0 <= first && first <= last && last <= g.num_rays(), "trace_tiled: bad ray range");
    // Rows of one block: each ray traced in order along it, as build_rows writes them.
    const RowBlockSource<V, Index> rays = [&](size_type r0, size_type r1, RowBlock<V, Index>& out) {
        for (size_type i = first + r0; i < first + r1; ++i) {
            const size_type ray = o.rays[i];
            trace_ray(g.n, g.theta[ray / g.num_rho], g.rho(ray % g.num_rho), [&](size_type pixel, double length) {
                out.add(static_cast<Index>(o.pixel_position[pixel]), static_cast<V>(length));
            });
            out.end_row();
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
