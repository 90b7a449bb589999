// The lean build of A and Aᵀ (traced straight into tiled ELL, tiled transpose) equals core's
// tiled_ell_from_csr on today's CSR path (build_rows, transpose_parallel) and the oracle.
#include <catch2/catch.hpp>

#include <omp.h>

#include "apps/xct/operator/system_matrix.hpp"
#include "apps/xct/operator/tiled_system_matrix.hpp"
#include "core/error.hpp"
#include "tests/core/tiled_ell_oracle.hpp"

using namespace tessel;
using namespace tessel::xct;

TEMPLATE_TEST_CASE("lean tiled A and Aᵀ equal the CSR path array for array", "[xct][operator][tiled-ell]", float,
                   double) {
    using V = TestType;
    const Geometry g{48, 40, uniform_angles(30)};
    for (const auto kind : {DomainOrder::natural, DomainOrder::hilbert}) {
        const auto o = make_ordering(g, kind, 8);
        const auto a = build_rows<V>(g, o, 0, g.num_rays());
        const auto at = transpose_parallel(a);
        for (const TiledEllConfig cut : {TiledEllConfig{32, 64}, TiledEllConfig{64, 1000}, TiledEllConfig{256, 4096}})
            for (const int threads : {1, 2, 3}) {
                omp_set_num_threads(threads);
                INFO("order " << to_string(kind) << " block rows " << cut.block_rows << " threads " << threads);
                const auto built = build_tiled_operators<V>(g, o, cut);
                test::check_same_tiled_ell(built.a, tiled_ell_from_csr(a, cut));
                test::check_same_tiled_ell(built.at, tiled_ell_from_csr(at, cut));
                test::check_same_tiled_ell(built.at, test::tiled_ell_oracle(at, cut));
                // A run of rays (a data rank's rows) equals the same rows traced alone.
                test::check_same_tiled_ell(trace_tiled<V>(g, o, 100, 420, cut),
                                           tiled_ell_from_csr(build_rows<V>(g, o, 100, 420), cut));
            }
    }
    omp_set_num_threads(2);
    const auto o = make_ordering(g, DomainOrder::natural, 8);
    CHECK_THROWS_AS(trace_tiled<V>(g, o, 10, g.num_rays() + 1, {}), DimensionMismatch);
}
