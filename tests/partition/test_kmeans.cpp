// k-means row reordering: balanced clusters, determinism, and reuse of tiled ELL on matrices
// with hidden block structure and on the tomography matrix (Hilbert ordering for comparison).
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "core/error.hpp"
#include "partition/hilbert.hpp"
#include "partition/kmeans_reorder.hpp"
#include "partition/tomography.hpp"
#include "tests/partition/hidden_blocks.hpp"

using namespace tessel;
using namespace tessel::partition;

using test::hidden_blocks;

TEST_CASE("k-means clusters are balanced and deterministic for a seed", "[kmeans]") {
    const auto a = hidden_blocks(20, 32, 40, 10, 5000, 3);
    KmeansOptions options;
    options.cluster_rows = 32;
    const auto a_odd = hidden_blocks(7, 29, 30, 8, 800, 4);  // 203 rows: a partial last cluster
    for (const auto* m : {&a, &a_odd}) {
        const auto clusters = kmeans_row_order(*m, options);
        CHECK(is_permutation(clusters.order));
        REQUIRE(clusters.offsets.front() == 0);
        REQUIRE(clusters.offsets.back() == m->rows());
        for (std::size_t c = 0; c + 2 < clusters.offsets.size(); ++c)
            CHECK(clusters.offsets[c + 1] - clusters.offsets[c] == 32);
        CHECK(clusters.offsets.back() - clusters.offsets[clusters.offsets.size() - 2] <= 32);
        const auto again = kmeans_row_order(*m, options);
        CHECK(again.order == clusters.order);
    }
    options.seed = 99;
    const auto other = kmeans_row_order(a, options);
    CHECK(is_permutation(other.order));
    options.cluster_rows = 0;
    CHECK_THROWS_AS(kmeans_row_order(a, options), InvalidInput);
    CHECK(kmeans_row_order(Csr<double, std::int32_t>(0, 5, {0}, {}, {}), {}).order.empty());
}

TEST_CASE("k-means recovers hidden block structure: reuse well above natural order", "[kmeans]") {
    const auto a = hidden_blocks(32, 32, 48, 12, 20000, 5);
    const double natural = tiled_ell_reuse(a, 32);
    const double shuffled = tiled_ell_reuse(permute(a, random_permutation(a.rows(), 7), {}), 32);
    const auto clusters = kmeans_row_order(a, {});
    const double kmeans = tiled_ell_reuse(permute(a, clusters.order, {}), 32);
    CAPTURE(natural, shuffled, kmeans);
    CHECK(kmeans >= natural);
    CHECK(kmeans > 2.0 * shuffled);
    // The planted optimum: each group's 32 rows share 48 columns, 32·12/48 = 8 uses each.
    CHECK(kmeans > 6.0);
}

TEST_CASE("reordering the tomography matrix: Hilbert and k-means beat natural and random", "[kmeans]") {
    // The thesis's toy: 256 x 256 (16 x 16 pixels, 16 angles x 16 channels), 32-row blocks.
    TomographyGeometry g{16, 16, 16};
    const auto a = parallel_beam_matrix<double, std::int32_t>(g);
    REQUIRE(a.rows() == 256);
    REQUIRE(a.cols() == 256);
    const auto order = tomography_hilbert_order(g, 4);
    const double natural = tiled_ell_reuse(a, 32);
    const double random = tiled_ell_reuse(permute(a, random_permutation(a.rows(), 3), {}), 32);
    const double hilbert = tiled_ell_reuse(permute(a, order.rows, order.columns), 32);
    const double kmeans = tiled_ell_reuse(permute(a, kmeans_row_order(a, {}).order, {}), 32);
    CAPTURE(natural, random, hilbert, kmeans);
    CHECK(hilbert > natural);
    CHECK(hilbert > random);
    CHECK(kmeans >= natural);
}
