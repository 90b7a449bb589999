// Row sums grouped by target (core/comm/row_sum_table.hpp) and the device kernels that use
// them (core/cuda/kernels/row_sums.hpp): the same sums, bit for bit, as the exchange executor's loops.
#include <catch2/catch.hpp>

#include <random>

#include "core/comm/row_sum_table.hpp"
#include "core/error.hpp"
#include "core/generators.hpp"
#include "core/kernels/spmm.hpp"

#if defined(TESSEL_HAVE_CUDA)
#include "core/cuda/device_spmm.hpp"
#include "core/cuda/kernels/row_sums.hpp"
#endif

using namespace tessel;
using comm::group_by_target;

namespace {

// out[target[e]] += in[source[e]] in list order: the host executor's loop.
template <typename V>
void add_in_list_order(const DenseMatrix<V>& in, const std::vector<size_type>& target,
                       const std::vector<size_type>& source, DenseMatrix<V>& out) {
    for (std::size_t e = 0; e < target.size(); ++e)
        for (size_type j = 0; j < out.cols(); ++j) out(target[e], j) += in(source[e], j);
}

// The same additions, walked through the table.
template <typename V>
void add_by_table(const DenseMatrix<V>& in, const comm::RowSumTable& t, DenseMatrix<V>& out) {
    for (size_type r = 0; r < t.targets(); ++r)
        for (size_type j = 0; j < out.cols(); ++j) {
            V sum = out(t.rows[r], j);
            for (size_type e = t.ptr[r]; e < t.ptr[r + 1]; ++e) sum += in(t.sources[e], j);
            out(t.rows[r], j) = sum;
        }
}

// Additions with repeated targets and sources in no particular order.
void random_additions(size_type count, size_type in_rows, size_type out_rows, std::uint64_t seed,
                      std::vector<size_type>& target, std::vector<size_type>& source) {
    std::mt19937_64 rng(seed);
    target.resize(count);
    source.resize(count);
    for (size_type e = 0; e < count; ++e) {
        target[e] = static_cast<size_type>(rng() % static_cast<std::uint64_t>(out_rows));
        source[e] = static_cast<size_type>(rng() % static_cast<std::uint64_t>(in_rows));
    }
}

}  // namespace

TEST_CASE("row sums grouped by target keep each target's order", "[comm][row-sums]") {
    const auto t = group_by_target(6, {4, 1, 4, 0, 4}, {10, 11, 12, 13, 14});
    CHECK(t.rows == std::vector<size_type>{0, 1, 4});
    CHECK(t.ptr == std::vector<size_type>{0, 1, 2, 5});
    CHECK(t.sources == std::vector<size_type>{13, 11, 10, 12, 14});
    // Without sources the entries are the positions in the list (a packed receive buffer).
    const auto packed = group_by_target(3, {2, 0, 2});
    CHECK(packed.sources == std::vector<size_type>{1, 0, 2});
    CHECK(group_by_target(5, {}).targets() == 0);
    CHECK_THROWS_AS(group_by_target(3, {0, 3}), DimensionMismatch);
    CHECK_THROWS_AS(group_by_target(3, {0, 1}, {0}), DimensionMismatch);
}

TEST_CASE("row sums by table equal the sums in list order bit for bit", "[comm][row-sums]") {
    std::vector<size_type> target, source;
    random_additions(500, 90, 70, 3, target, source);
    const auto in = generate::random_dense<float>(90, 13, Layout::row_major, 1);
    DenseMatrix<float> expected(70, 13), got(70, 13);
    add_in_list_order(in, target, source, expected);
    add_by_table(in, group_by_target(70, target, source), got);
    CHECK(std::equal(expected.data(), expected.data() + expected.size(), got.data()));
}

#if defined(TESSEL_HAVE_CUDA)

TEST_CASE("device row gather and row sums equal the host loops", "[cuda][row-sums]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    std::vector<size_type> target, source;
    random_additions(3000, 400, 350, 7, target, source);
    const size_type w = 37;  // a tile of 32 and a tail
    const auto in = generate::random_dense<double>(400, w, Layout::row_major, 2);
    // Host: out starts from some values; adds in list order.
    auto expected = generate::random_dense<double>(350, w, Layout::row_major, 3);
    const auto start = expected;
    add_in_list_order(in, target, source, expected);
    // Device: out with a padded leading dimension.
    const auto table = group_by_target(350, target, source);
    cuda::DeviceDense<double> din(in.view()), dout(350, w, w + 4);
    dout.upload(start.view());
    cuda::DeviceBuffer<size_type> rows(table.rows.data(), table.targets()),
        ptr(table.ptr.data(), table.targets() + 1), src(table.sources.data(), table.entries());
    cuda::device::add_row_sums(din.view(), rows.data(), ptr.data(), src.data(), table.targets(),
                               dout.view());
    DenseMatrix<double> got(350, w);
    dout.download(got.view());
    CHECK(std::equal(expected.data(), expected.data() + expected.size(), got.data()));

    // Gather: packed[e] = in[source[e]].
    cuda::DeviceBuffer<size_type> gather_rows(source.data(), static_cast<size_type>(source.size()));
    cuda::DeviceBuffer<double> packed(static_cast<size_type>(source.size()) * w);
    cuda::device::gather_rows(din.view(), gather_rows.data(), static_cast<size_type>(source.size()),
                              packed.data());
    std::vector<double> packed_host(source.size() * w);
    packed.download(packed_host.data(), packed.size());
    bool same = true;
    for (std::size_t e = 0; e < source.size(); ++e)
        for (size_type j = 0; j < w; ++j) same = same && packed_host[e * w + j] == in(source[e], j);
    CHECK(same);

    // fill_zero clears the view (padding columns are never read).
    cuda::device::fill_zero(dout.view());
    dout.download(got.view());
    CHECK(std::all_of(got.data(), got.data() + got.size(), [](double v) { return v == 0.0; }));
}

#endif
