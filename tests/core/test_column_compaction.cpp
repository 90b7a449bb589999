// Column passes of sparse DNN inference (core/kernels/column_compaction.hpp): the cpu functions
// against naive loops, and the cuda kernels against the cpu functions, on matrices wider than a
// block of threads and taller than a strip, with empty and single-nonzero columns.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "core/kernels/column_compaction.hpp"

#if defined(TESSEL_HAVE_CUDA)
#include "core/cuda/device_spmm.hpp"
#endif

using namespace tessel;

namespace {

// n x k images as CSR rows (one row per image, columns < n): every third image empty, the
// image 5 with one nonzero in the last row.
struct Images {
    size_type n = 300, k = 700;
    std::vector<std::int64_t> row_ptr{0};
    std::vector<std::int32_t> col;
    std::vector<float> val;
};

Images make_images() {
    Images im;
    std::mt19937 rng(3);
    for (size_type j = 0; j < im.k; ++j) {
        if (j == 5) {
            im.col.push_back(std::int32_t(im.n - 1));
            im.val.push_back(2.0f);
        } else if (j % 3 != 0) {
            for (std::int32_t r = 0; r < std::int32_t(im.n); r += 1 + int(rng() % 40)) {
                im.col.push_back(r);
                im.val.push_back(float(1 + rng() % 7));
            }
        }
        im.row_ptr.push_back(std::int64_t(im.col.size()));
    }
    return im;
}

std::vector<float> scattered(const Images& im) {
    std::vector<float> b(std::size_t(im.n * im.k), 0.0f);
    for (size_type j = 0; j < im.k; ++j)
        for (std::int64_t e = im.row_ptr[j]; e < im.row_ptr[j + 1]; ++e) b[std::size_t(im.col[e] * im.k + j)] = im.val[e];
    return b;
}

}  // namespace

TEST_CASE("cpu column passes equal the naive loops", "[core][spdnn-columns]") {
    const Images im = make_images();
    std::vector<float> b(std::size_t(im.n * im.k), 0.0f);
    cpu::scatter_rows_as_columns(im.row_ptr.data(), im.col.data(), im.val.data(), DenseView<float>(b.data(), im.n, im.k));
    CHECK(b == scattered(im));
    // The pattern alone: every entry 1.
    Images ones = im;
    std::fill(ones.val.begin(), ones.val.end(), 1.0f);
    std::vector<float> p(b.size(), 0.0f);
    cpu::scatter_pattern_as_columns(im.row_ptr.data(), im.col.data(), 1.0f, DenseView<float>(p.data(), im.n, im.k));
    CHECK(p == scattered(ones));
    // The pattern as bits by column, expanded whole and from column 37 on (not a word's start).
    const size_type words = pattern_words(im.k);
    std::vector<std::uint32_t> bits(std::size_t(im.n * words), 0xffffffffu);
    cpu::pattern_bits(im.row_ptr.data(), im.col.data(), im.k, im.n, bits.data());
    std::vector<float> x(b.size(), -1.0f);
    cpu::expand_bits_as_columns(bits.data(), words, 0, 1.0f, DenseView<float>(x.data(), im.n, im.k));
    CHECK(x == p);
    constexpr size_type from = 37;
    std::vector<float> tail(std::size_t(im.n * (im.k - from)), -1.0f);
    cpu::expand_bits_as_columns(bits.data(), words, from, 1.0f, DenseView<float>(tail.data(), im.n, im.k - from));
    bool same_tail = true;
    for (size_type i = 0; i < im.n; ++i)
        for (size_type j = from; j < im.k; ++j)
            same_tail = same_tail && tail[std::size_t(i * (im.k - from) + j - from)] == p[std::size_t(i * im.k + j)];
    CHECK(same_tail);

    std::vector<int> live(std::size_t(im.k), 7);
    cpu::mark_live_columns(DenseView<const float>(b.data(), im.n, im.k), live.data());
    std::vector<std::int64_t> keep;
    for (size_type j = 0; j < im.k; ++j) {
        CHECK(live[std::size_t(j)] == (j % 3 != 0 || j == 5 ? 1 : 0));
        if (live[std::size_t(j)]) keep.push_back(j);
    }
    std::vector<float> g(std::size_t(im.n) * keep.size());
    cpu::gather_columns(DenseView<const float>(b.data(), im.n, im.k), keep.data(),
                        DenseView<float>(g.data(), im.n, size_type(keep.size())));
    bool same = true;
    for (size_type i = 0; i < im.n; ++i)
        for (std::size_t j = 0; j < keep.size(); ++j)
            same = same && g[std::size_t(i) * keep.size() + j] == b[std::size_t(i * im.k + keep[j])];
    CHECK(same);
}

#if defined(TESSEL_HAVE_CUDA)

TEST_CASE("cuda column passes equal the cpu ones", "[cuda][spdnn-columns]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    const Images im = make_images();
    std::vector<float> expected(std::size_t(im.n * im.k), 0.0f);
    cpu::scatter_rows_as_columns(im.row_ptr.data(), im.col.data(), im.val.data(),
                                 DenseView<float>(expected.data(), im.n, im.k));
    cuda::DeviceBuffer<std::int64_t> rp(im.row_ptr.data(), size_type(im.row_ptr.size()));
    cuda::DeviceBuffer<std::int32_t> col(im.col.data(), size_type(im.col.size()));
    cuda::DeviceBuffer<float> val(im.val.data(), size_type(im.val.size()));
    cuda::DeviceBuffer<float> b(im.n * im.k);
    b.fill_zero();
    cuda::device::scatter_rows_as_columns(rp.data(), col.data(), val.data(), DenseView<float>(b.data(), im.n, im.k), nullptr);
    std::vector<float> got(expected.size());
    b.download(got.data(), b.size());
    CHECK(got == expected);
    // The pattern alone, no values on the device: each entry 3.
    std::vector<float> pattern_cpu(expected.size(), 0.0f), pattern_gpu(expected.size());
    cpu::scatter_pattern_as_columns(im.row_ptr.data(), im.col.data(), 3.0f, DenseView<float>(pattern_cpu.data(), im.n, im.k));
    cuda::DeviceBuffer<float> p(im.n * im.k);
    p.fill_zero();
    cuda::device::scatter_pattern_as_columns(rp.data(), col.data(), 3.0f, DenseView<float>(p.data(), im.n, im.k), nullptr);
    p.download(pattern_gpu.data(), p.size());
    CHECK(pattern_gpu == pattern_cpu);
    // The bits expanded on the device from column 37 on, into a row-padded B: the cpu's.
    const size_type words = pattern_words(im.k), from = 37, cols = im.k - from, ld = cols + 3;
    std::vector<std::uint32_t> host_bits(std::size_t(im.n * words));
    cpu::pattern_bits(im.row_ptr.data(), im.col.data(), im.k, im.n, host_bits.data());
    std::vector<float> bits_cpu(std::size_t(im.n * ld), -1.0f), bits_gpu(bits_cpu.size());
    cpu::expand_bits_as_columns(host_bits.data(), words, from, 3.0f, DenseView<float>(bits_cpu.data(), im.n, cols, Layout::row_major, ld));
    cuda::DeviceBuffer<std::uint32_t> dbits(host_bits.data(), size_type(host_bits.size()));
    cuda::DeviceBuffer<float> x(im.n * ld);
    const std::vector<float> unset(bits_cpu.size(), -1.0f);
    x.upload(unset.data(), x.size());  // as the cpu's B before its expansion: padding -1 in both
    cuda::device::expand_bits_as_columns(dbits.data(), words, from, 3.0f,
                                         DenseView<float>(x.data(), im.n, cols, Layout::row_major, ld), nullptr);
    x.download(bits_gpu.data(), x.size());
    CHECK(bits_gpu == bits_cpu);

    std::vector<int> live_cpu(std::size_t(im.k)), live_gpu(std::size_t(im.k));
    cpu::mark_live_columns(DenseView<const float>(expected.data(), im.n, im.k), live_cpu.data());
    cuda::DeviceBuffer<int> live(im.k);
    live.fill_zero();
    cuda::device::mark_live_columns(DenseView<const float>(b.data(), im.n, im.k), live.data(), nullptr);
    live.download(live_gpu.data(), im.k);
    CHECK(live_gpu == live_cpu);

    std::vector<std::int64_t> keep;
    for (size_type j = 0; j < im.k; ++j)
        if (live_cpu[std::size_t(j)]) keep.push_back(j);
    const size_type k_new = size_type(keep.size());
    std::vector<float> g_cpu(std::size_t(im.n * k_new)), g_gpu(g_cpu.size());
    cpu::gather_columns(DenseView<const float>(expected.data(), im.n, im.k), keep.data(),
                        DenseView<float>(g_cpu.data(), im.n, k_new));
    cuda::DeviceBuffer<std::int64_t> dkeep(keep.data(), k_new);
    cuda::DeviceBuffer<float> g(im.n * k_new);
    cuda::device::gather_columns(DenseView<const float>(b.data(), im.n, im.k), dkeep.data(),
                                 DenseView<float>(g.data(), im.n, k_new), nullptr);
    g.download(g_gpu.data(), g.size());
    CHECK(g_gpu == g_cpu);
}

#endif

#if defined(TESSEL_HAVE_CUDA)

TEST_CASE("cuda live columns of a matrix taller than a grid's y extent covers", "[cuda][spdnn-columns]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    // 65535 strips of 64 rows end at 4194240: a nonzero below them must still be seen (spdnn's
    // own kernel launched one strip per block row and asked for more than 65535 of them).
    const size_type rows = 4194240 + 100, k = 2;
    std::vector<float> c(std::size_t(rows * k), 0.0f);
    c[std::size_t((rows - 1) * k + 1)] = 1.0f;
    cuda::DeviceBuffer<float> dc(c.data(), rows * k);
    cuda::DeviceBuffer<int> live(k);
    live.fill_zero();
    cuda::device::mark_live_columns(DenseView<const float>(dc.data(), rows, k), live.data(), nullptr);
    std::vector<int> got(static_cast<std::size_t>(k), -1);
    live.download(got.data(), k);
    CHECK(got == std::vector<int>{0, 1});
}

#endif
