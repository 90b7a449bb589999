// Column blocks side by side (core/kernels/column_blocks.hpp): the cpu functions on a hand-computed
// case and their exact errors, and the cuda kernels against the cpu ones with a permutation as
// the row list and padded leading dimensions.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "core/kernels/column_blocks.hpp"

#if defined(TESSEL_HAVE_CUDA)
#include "core/cuda/device_spmm.hpp"
#endif

using namespace tessel;

TEST_CASE("cpu column blocks on a hand-computed case", "[core][columns]") {
    // x = [1 2; 3 4; 5 6], turn = (2, 0, 1): wide = [x | x(turn)].
    std::vector<float> x{1, 2, 3, 4, 5, 6}, wide(12), top(6), bottom(6), sum(6);
    const std::vector<size_type> turn{2, 0, 1}, unturn{1, 2, 0};
    const DenseView<const float> xv(x.data(), 3, 2);
    cpu::join_column_blocks(xv, nullptr, xv, turn.data(), DenseView<float>(wide.data(), 3, 4));
    CHECK(wide == std::vector<float>{1, 2, 5, 6, 3, 4, 1, 2, 5, 6, 3, 4});
    const DenseView<const float> wv(wide.data(), 3, 4);
    cpu::split_column_blocks(wv, DenseView<float>(top.data(), 3, 2), DenseView<float>(bottom.data(), 3, 2));
    CHECK(top == x);
    CHECK(bottom == std::vector<float>{5, 6, 1, 2, 3, 4});
    // Row i's own block plus the second block of row unturn[i]: x(i) + x(turn(unturn(i))) = 2 x(i).
    cpu::add_column_blocks(wv, unturn.data(), DenseView<float>(sum.data(), 3, 2));
    CHECK(sum == std::vector<float>{2, 4, 6, 8, 10, 12});
}

TEST_CASE("column blocks of the wrong shapes are refused", "[core][columns]") {
    std::vector<float> a(12), b(12);
    const DenseView<const float> left(a.data(), 3, 2);
    CHECK_THROWS_WITH(cpu::join_column_blocks(left, nullptr, left, nullptr, DenseView<float>(b.data(), 3, 3)),
                      Catch::EndsWith("join_column_blocks: blocks of 3x2 and 3x2 beside 3x3 (all row-major)"));
    CHECK_THROWS_WITH(cpu::join_column_blocks(left, nullptr, DenseView<const float>(a.data(), 2, 2), nullptr,
                                              DenseView<float>(b.data(), 3, 4)),
                      Catch::EndsWith("join_column_blocks: blocks of 3x2 and 2x2 beside 3x4 (all row-major)"));
    CHECK_THROWS_WITH(cpu::split_column_blocks(DenseView<const float>(a.data(), 2, 4), DenseView<float>(b.data(), 2, 2),
                                               DenseView<float>(b.data(), 2, 2, Layout::col_major)),
                      Catch::EndsWith("split_column_blocks: blocks of 2x2 and 2x2 beside 2x4 (all row-major)"));
    // The sum takes in's two halves: 3 columns are not two blocks of 2.
    CHECK_THROWS_WITH(cpu::add_column_blocks(DenseView<const float>(a.data(), 3, 3), nullptr,
                                             DenseView<float>(b.data(), 3, 2)),
                      Catch::EndsWith("add_column_blocks: blocks of 3x2 and 3x2 beside 3x3 (all row-major)"));
}

#if defined(TESSEL_HAVE_CUDA)

TEST_CASE("cuda column blocks equal the cpu ones", "[cuda][columns]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    std::mt19937 rng(5);
    const size_type rows = 1000, k = 7, ld = 9, wide_ld = 2 * k + 3;
    std::vector<float> x(std::size_t(rows * ld), std::nanf(""));  // padding never read
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (size_type i = 0; i < rows; ++i)
        for (size_type j = 0; j < k; ++j) x[std::size_t(i * ld + j)] = u(rng);
    std::vector<size_type> turn(static_cast<std::size_t>(rows)), unturn(turn.size());
    std::iota(turn.begin(), turn.end(), size_type(0));
    std::shuffle(turn.begin(), turn.end(), rng);
    for (size_type q = 0; q < rows; ++q) unturn[std::size_t(turn[std::size_t(q)])] = q;

    std::vector<float> wide(std::size_t(rows * wide_ld), 0.0f), top(std::size_t(rows * k)), bottom(top.size()),
        sum(top.size());
    const DenseView<const float> xv(x.data(), rows, k, Layout::row_major, ld);
    const DenseView<float> wv(wide.data(), rows, 2 * k, Layout::row_major, wide_ld);
    cpu::join_column_blocks(xv, nullptr, xv, turn.data(), wv);
    cpu::split_column_blocks(DenseView<const float>(wv), DenseView<float>(top.data(), rows, k),
                             DenseView<float>(bottom.data(), rows, k));
    cpu::add_column_blocks(DenseView<const float>(wv), unturn.data(), DenseView<float>(sum.data(), rows, k));

    cuda::DeviceBuffer<float> dx(x.data(), size_type(x.size())), dwide(std::vector<float>(wide.size(), 0.0f).data(),
                                                                          size_type(wide.size()));
    cuda::DeviceBuffer<float> dtop(top.size()), dbottom(top.size()), dsum(top.size());
    cuda::DeviceBuffer<size_type> dturn(turn.data(), rows), dunturn(unturn.data(), rows);
    const DenseView<const float> dxv(dx.data(), rows, k, Layout::row_major, ld);
    const DenseView<float> dwv(dwide.data(), rows, 2 * k, Layout::row_major, wide_ld);
    cuda::device::join_column_blocks(dxv, nullptr, dxv, dturn.data(), dwv, nullptr);
    cuda::device::split_column_blocks(DenseView<const float>(dwv), DenseView<float>(dtop.data(), rows, k),
                                      DenseView<float>(dbottom.data(), rows, k), nullptr);
    cuda::device::add_column_blocks(DenseView<const float>(dwv), dunturn.data(), DenseView<float>(dsum.data(), rows, k),
                                    nullptr);
    auto download = [](cuda::DeviceBuffer<float>& d) {
        std::vector<float> h(static_cast<std::size_t>(d.size()));
        d.download(h.data(), d.size());
        return h;
    };
    CHECK(download(dwide) == wide);  // the padding between rows stays zero in both
    CHECK(download(dtop) == top);
    CHECK(download(dbottom) == bottom);
    CHECK(download(dsum) == sum);
}

#endif
