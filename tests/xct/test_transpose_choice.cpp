// --transpose auto: the predicted totals of the stored Aᵀ and the scatter kernel, and the pick.
#include <catch2/catch.hpp>

#include "apps/xct/operator/system_matrix.hpp"
#include "apps/xct/operator/transpose_choice.hpp"

using namespace tessel;
using namespace tessel::xct;

namespace {

size_type reference_nnz() { return estimate_nnz(Geometry{512, 512, uniform_angles(750)}); }

// A run on the reference operator (512² x 750): `iterations` of `columns` columns a product.
TransposeWork reference_work(int iterations, size_type columns = 1) {
    return TransposeWork{reference_nnz(), 512 * 512, iterations, columns};
}

TransposeChoice choose_on(int threads, const TransposeWork& w, bool stored_fits = true, bool scatter_fits = true,
                          const CachedForms& cached = {}) {
    return choose_transpose(w, stored_fits, scatter_fits, cached, cpu_transpose_rates(threads));
}

}  // namespace

TEST_CASE("an iteration curve interpolates between its measured column counts", "[xct][transpose]") {
    IterationCurve c;
    c.at = {1, 2, 3, 5, 9, 13};  // columns 1, 2, 4, 8, 16, 32
    CHECK(c.seconds_per_nonzero(0) == 1);
    CHECK(c.seconds_per_nonzero(1) == 1);
    CHECK(c.seconds_per_nonzero(3) == Approx(2.5));
    CHECK(c.seconds_per_nonzero(6) == Approx(4));
    CHECK(c.seconds_per_nonzero(12) == Approx(7));
    CHECK(c.seconds_per_nonzero(16) == 9);
    CHECK(c.seconds_per_nonzero(24) == Approx(11));
    CHECK(c.seconds_per_nonzero(32) == 13);
    CHECK(c.seconds_per_nonzero(64) == Approx(21));  // past 32 at the slope from 16 to 32
}

TEST_CASE("transpose auto takes the form with the smaller predicted total", "[xct][transpose]") {
    // The reference run itself: the measured build times come back.
    const auto none = choose_on(2, reference_work(0));
    CHECK(none.scatter_seconds == Approx(2.47));
    CHECK(none.stored_seconds == Approx(7.1));
    // 24 iterations of one slice: 2.47 + 24·0.144 = 5.9 s against 7.1 + 24·0.089 = 9.2 s.
    const auto short_run = choose_on(2, reference_work(24));
    CHECK(short_run.scatter);
    CHECK(short_run.scatter_seconds == Approx(2.47 + 24 * 0.144));
    CHECK(short_run.why.find("A^T by the scatter kernel on A: predicted 5.9 s scatter against 9.2 s stored (build + 24 "
                             "iterations of 1 column a product; the stored A^T pays back after about 85 iterations)") ==
          0);
    CHECK_FALSE(choose_on(2, reference_work(100)).scatter);
    // 16 columns a product: 0.089·1.856 s stored against 0.144·1.803 s scatter an iteration, so
    // the transpose's 4.63 s pay back after 50 iterations.
    const auto sixteen = choose_on(2, reference_work(40, 16));
    CHECK(sixteen.scatter);
    CHECK(sixteen.stored_seconds == Approx(7.1 + 40 * 0.089 * 1.856));
    CHECK(sixteen.why.find("pays back after about 50 iterations") != std::string::npos);
    CHECK_FALSE(choose_on(2, reference_work(60, 16)).scatter);
    CHECK_FALSE(choose_on(2, reference_work(40, 64)).scatter);
    // What fits comes first.
    CHECK(choose_on(2, reference_work(1000), false, true).scatter);
    CHECK_FALSE(choose_on(2, reference_work(24), true, false).scatter);
    const auto neither = choose_on(2, reference_work(24), false, false);
    CHECK_FALSE(neither.scatter);
    CHECK(neither.why.find("data ranks") != std::string::npos);
}

TEST_CASE("transpose auto counts the scatter kernel's sums per thread", "[xct][transpose]") {
    // 24 iterations of 16 slices turned (32 columns a product on the half operator), as an
    // H200 machine's 16 host cores ran them: stored 1.9 s, scatter 3.2 s for the whole process.
    const TransposeWork turned{reference_nnz() / 2, 512 * 512, 24, 32};
    const auto two = choose_on(2, turned);
    CHECK(two.scatter);  // 2 threads: the transpose pays back after 41 iterations
    CHECK(two.why.find("pays back after about 41 iterations") != std::string::npos);
    const auto sixteen = choose_on(16, turned);
    CHECK_FALSE(sixteen.scatter);
    // The builds and iterations spread over 16 threads; the scatter's 16 copies of the image's
    // sums zeroed and added at 20 GB/s: 8 bytes x 14 threads x 262144 pixels x 32 columns.
    const double sums = 8.0 * 14 * 512 * 512 * 32 / 20e9;
    CHECK(sixteen.scatter_seconds == Approx((2.47 + 24 * (0.144 * 2.82 + 16 * sums)) / 16).epsilon(0.01));
    CHECK(sixteen.stored_seconds == Approx((7.1 + 24 * 0.089 * 3.28) / 16).epsilon(0.01));
    CHECK(sixteen.why.find("pays back after about 6 iterations") != std::string::npos);
    // One slice, as the first image: scatter on 16 threads too.
    CHECK(choose_on(16, TransposeWork{reference_nnz() / 2, 512 * 512, 24, 2}).scatter);
}

TEST_CASE("transpose auto counts no build for a form the operator cache holds", "[xct][transpose][cache]") {
    // The stored A and Aᵀ cached: 24·0.089 = 2.1 s against the scatter's 5.9 s with its build.
    const auto stored = choose_on(2, reference_work(24), true, true, CachedForms{true, false});
    CHECK_FALSE(stored.scatter);
    CHECK(stored.stored_seconds == Approx(24 * 0.089));
    CHECK(stored.why.find("A^T stored: predicted 5.9 s scatter against 2.1 s stored (cached)") == 0);
    // Both cached: the faster iterations win.
    CHECK_FALSE(choose_on(2, reference_work(24), true, true, CachedForms{true, true}).scatter);
    // Only A cached for scatter: 24·0.144 = 3.5 s against the stored build's 9.2 s.
    const auto scatter = choose_on(2, reference_work(24), true, true, CachedForms{false, true});
    CHECK(scatter.scatter);
    CHECK(scatter.why.find("3.5 s scatter (cached) against 9.2 s stored") != std::string::npos);
    // A cached form that does not fit is still not taken.
    CHECK(choose_on(2, reference_work(24), false, true, CachedForms{true, false}).scatter);
}

TEST_CASE("transpose auto fills an empty operator cache with the form later runs iterate fastest on",
          "[xct][transpose][cache]") {
    CachedForms empty_folder;
    empty_folder.folder = true;
    // This run alone would favour scatter (5.9 s against 9.2 s); the runs that load it, stored.
    const auto fill = choose_on(2, reference_work(24), true, true, empty_folder);
    CHECK_FALSE(fill.scatter);
    CHECK(fill.why.find("A^T stored: built once for the --operator-cache folder; a later run loads it and iterates in "
                        "a predicted 2.1 s, against 3.5 s scatter (this run: 9.2 s stored against 5.9 s scatter)") == 0);
    // Only what fits one rank is stored.
    CHECK(choose_on(2, reference_work(24), false, true, empty_folder).scatter);
}
