// METIS row reordering (built only with METIS): a permutation in exact clusters, deterministic,
// and on a matrix with hidden block structure a tiled-ELL reuse well above the natural order's.
#include <catch2/catch.hpp>

#ifdef TESSEL_HAVE_METIS

#include <random>

#include "core/error.hpp"
#include "partition/kmeans_reorder.hpp"
#include "partition/metis_reorder.hpp"
#include "partition/tomography.hpp"

using namespace tessel;
using namespace tessel::partition;

namespace {

// As in test_kmeans.cpp: groups x rows_per_group rows; the rows of a group draw `per_row`
// columns from the group's own random set of `group_cols` columns; rows are then shuffled.
Csr<double, std::int32_t> hidden_blocks(size_type groups, size_type rows_per_group,
                                        size_type group_cols, size_type per_row, size_type cols,
                                        std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    Coo<double, std::int32_t> coo;
    coo.rows = groups * rows_per_group;
    coo.cols = cols;
    const auto shuffled = random_permutation(coo.rows, seed + 1);
    for (size_type g = 0; g < groups; ++g) {
        std::vector<std::int32_t> pool(group_cols);
        for (auto& c : pool) c = std::uniform_int_distribution<std::int32_t>(0, cols - 1)(rng);
        for (size_type r = 0; r < rows_per_group; ++r) {
            std::vector<std::int32_t> picked = pool;
            std::shuffle(picked.begin(), picked.end(), rng);
            picked.resize(per_row);
            for (auto c : picked) {
                coo.row.push_back(static_cast<std::int32_t>(shuffled[g * rows_per_group + r]));
                coo.col.push_back(c);
                coo.values.push_back(1.0);
            }
        }
    }
    return csr_from_coo(coo);
}

}  // namespace

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
