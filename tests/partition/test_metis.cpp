// METIS row reordering (built only with METIS): a permutation in exact clusters, deterministic,
// and on a matrix with hidden block structure a tiled-ELL reuse well above the natural order's.
#include <catch2/catch.hpp>

#ifdef TESSEL_HAVE_METIS

#include <random>

#include "core/error.hpp"
#include "partition/kmeans_reorder.hpp"
#include "partition/metis_reorder.hpp"
#include "partition/tomography.hpp"
#include "tests/partition/hidden_blocks.hpp"

using namespace tessel;
using namespace tessel::partition;

using test::hidden_blocks;

TEST_CASE("METIS row order is a permutation in exact clusters, deterministic for a seed", "[metis]") {
    const auto a = hidden_blocks(20, 32, 40, 10, 5000, 3);
    const auto a_odd = hidden_blocks(7, 29, 30, 8, 800, 4);  // 203 rows: a partial last cluster
    for (bool kway : {false, true})
        for (size_type neighbors : {size_type(0), size_type(8)})
            for (const auto* m : {&a, &a_odd}) {
                MetisOptions options;
                options.kway = kway;
                options.max_neighbors = neighbors;
                const auto clusters = metis_row_order(*m, options);
                CAPTURE(kway, neighbors, m->rows());
                CHECK(static_cast<size_type>(clusters.order.size()) == m->rows());
                CHECK(is_permutation(clusters.order));
                REQUIRE(clusters.offsets.front() == 0);
                REQUIRE(clusters.offsets.back() == m->rows());
                for (std::size_t c = 0; c + 2 < clusters.offsets.size(); ++c)
                    CHECK(clusters.offsets[c + 1] - clusters.offsets[c] == 32);
                CHECK(metis_row_order(*m, options).order == clusters.order);
            }
    MetisOptions bad;
    bad.cluster_rows = 0;
    CHECK_THROWS_AS(metis_row_order(a, bad), InvalidInput);
    CHECK(metis_row_order(Csr<double, std::int32_t>(0, 5, {0}, {}, {}), {}).order.empty());
    // One cluster, and a graph without edges (every column dropped): still permutations.
    CHECK(metis_row_order(a_odd, {.cluster_rows = 256}).order == identity_permutation(a_odd.rows()));
    MetisOptions no_edges;
    no_edges.max_column_rows = 1;
    CHECK(is_permutation(metis_row_order(a, no_edges).order));
}

TEST_CASE("METIS recovers hidden block structure: reuse well above natural order", "[metis]") {
    const auto a = hidden_blocks(32, 32, 48, 12, 20000, 5);
    const double natural = tiled_ell_reuse(a, 32);
    const double kmeans = tiled_ell_reuse(permute(a, kmeans_row_order(a, {}).order, {}), 32);
    const double metis = tiled_ell_reuse(permute(a, metis_row_order(a, {}).order, {}), 32);
    MetisOptions kway;
    kway.kway = true;
    const double metis_kway = tiled_ell_reuse(permute(a, metis_row_order(a, kway).order, {}), 32);
    CAPTURE(natural, kmeans, metis, metis_kway);
    CHECK(metis > 2.0 * natural);
    CHECK(metis_kway > 2.0 * natural);
    // The planted optimum: each group's 32 rows share 48 columns, 32·12/48 = 8 uses each.
    CHECK(metis > 6.0);
}

TEST_CASE("METIS on the tomography toy: reuse above natural order", "[metis]") {
    TomographyGeometry g{16, 16, 16};
    const auto a = parallel_beam_matrix<double, std::int32_t>(g);
    const double natural = tiled_ell_reuse(a, 32);
    const double metis = tiled_ell_reuse(permute(a, metis_row_order(a, {}).order, {}), 32);
    CAPTURE(natural, metis);
    CHECK(metis > natural);
}

#endif  // TESSEL_HAVE_METIS
