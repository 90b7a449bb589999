// --transpose auto: the predicted totals of the stored Aᵀ and the scatter kernel, and the pick.
#include <catch2/catch.hpp>

#include "apps/xct/operator/system_matrix.hpp"
#include "apps/xct/operator/transpose_choice.hpp"

using namespace tessel;
using namespace tessel::xct;

TEST_CASE("transpose auto takes the form with the smaller predicted total", "[xct][transpose]") {
    const size_type nnz = estimate_nnz(Geometry{512, 512, uniform_angles(750)});
    // The reference run itself: the measured build times come back.
    const auto none = choose_transpose(nnz, 0, 1, true, true);
    CHECK(none.scatter_seconds == Approx(2.47));
    CHECK(none.stored_seconds == Approx(7.1));
    // 24 iterations of one slice: 2.47 + 24·0.144 = 5.9 s against 7.1 + 24·0.089 = 9.2 s.
    const auto short_run = choose_transpose(nnz, 24, 1, true, true);
    CHECK(short_run.scatter);
    CHECK(short_run.scatter_seconds == Approx(2.47 + 24 * 0.144));
    CHECK(short_run.why.find("A^T by the scatter kernel on A: predicted 5.9 s scatter against 9.2 s stored") == 0);
    CHECK(short_run.why.find("pays back after about 84 passes") != std::string::npos);
    // Past about 84 passes the stored Aᵀ pays back; 64 slices are 4 passes per iteration.
    CHECK_FALSE(choose_transpose(nnz, 200, 1, true, true).scatter);
    CHECK(choose_transpose(nnz, 50, 16, true, true).scatter);
    CHECK_FALSE(choose_transpose(nnz, 50, 64, true, true).scatter);
    // What fits comes first.
    CHECK(choose_transpose(nnz, 1000, 1, false, true).scatter);
    CHECK_FALSE(choose_transpose(nnz, 24, 1, true, false).scatter);
    const auto neither = choose_transpose(nnz, 24, 1, false, false);
    CHECK_FALSE(neither.scatter);
    CHECK(neither.why.find("data ranks") != std::string::npos);
}

TEST_CASE("transpose auto counts no build for a form the operator cache holds", "[xct][transpose][cache]") {
    const size_type nnz = estimate_nnz(Geometry{512, 512, uniform_angles(750)});
    // The stored A and Aᵀ cached: 24·0.089 = 2.1 s against the scatter's 5.9 s with its build.
    const auto stored = choose_transpose(nnz, 24, 1, true, true, CachedForms{true, false});
    CHECK_FALSE(stored.scatter);
    CHECK(stored.stored_seconds == Approx(24 * 0.089));
    CHECK(stored.why.find("A^T stored: predicted 5.9 s scatter against 2.1 s stored (cached)") == 0);
    // Both cached: the faster iterations win.
    CHECK_FALSE(choose_transpose(nnz, 24, 1, true, true, CachedForms{true, true}).scatter);
    // Only A cached for scatter: 24·0.144 = 3.5 s against the stored build's 9.2 s.
    const auto scatter = choose_transpose(nnz, 24, 1, true, true, CachedForms{false, true});
    CHECK(scatter.scatter);
    CHECK(scatter.why.find("3.5 s scatter (cached) against 9.2 s stored") != std::string::npos);
    // A cached form that does not fit is still not taken.
    CHECK(choose_transpose(nnz, 24, 1, false, true, CachedForms{true, false}).scatter);
}

TEST_CASE("transpose auto fills an empty operator cache with the form later runs iterate fastest on",
          "[xct][transpose][cache]") {
    const size_type nnz = estimate_nnz(Geometry{512, 512, uniform_angles(750)});
    CachedForms empty_folder;
    empty_folder.folder = true;
    // This run alone would favour scatter (5.9 s against 9.2 s); the runs that load it, stored.
    const auto fill = choose_transpose(nnz, 24, 1, true, true, empty_folder);
    CHECK_FALSE(fill.scatter);
    CHECK(fill.why.find("A^T stored: built once for the --operator-cache folder; a later run loads it and iterates in "
                        "a predicted 2.1 s, against 3.5 s scatter (this run: 9.2 s stored against 5.9 s scatter)") == 0);
    // Only what fits one rank is stored.
    CHECK(choose_transpose(nnz, 24, 1, false, true, empty_folder).scatter);
}
