// The device-resident CUDA API (core/cuda/device_spmm.hpp): buffers, uploaded formats,
// kernels on device pointers with streams and padded leading dimensions, event timing.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "core/device_warmup.hpp"
#include "core/error.hpp"
#include "core/formats/grouped_ell.hpp"
#include "core/formats/tiled_ell_bank_order.hpp"
#include "core/formats/tiled_ell_transpose.hpp"
#include "core/generators.hpp"
#include "core/kernels/spmm.hpp"

#if defined(TESSEL_HAVE_CUDA)
#include "core/cuda/device_spmm.hpp"
#include "core/cuda/runtime/device_limits.hpp"
#endif

using namespace tessel;

#if defined(TESSEL_HAVE_CUDA)

namespace {

// Counts entries of got (row-major host, ld) that differ from the reference C.
template <typename V, typename I>
size_type count_bad(const Csr<V, I>& a, const DenseMatrix<V>& expected, const std::vector<V>& got,
                    size_type ld) {
    const double tol = std::is_same_v<V, float> ? 1e-4 : 1e-12;
    size_type bad = 0;
    for (size_type i = 0; i < expected.rows(); ++i)
        for (size_type j = 0; j < expected.cols(); ++j) {
            const double scale = 1.0 + double(a.row_nnz(i));
            if (std::abs(double(got[i * ld + j]) - double(expected(i, j))) > tol * scale) ++bad;
        }
    return bad;
}

// RAII stream for the tests.
struct Stream {
    cudaStream_t s = nullptr;
    Stream() { TESSEL_CUDA_CHECK(cudaStreamCreate(&s)); }
    ~Stream() { cudaStreamDestroy(s); }
};

}  // namespace

TEMPLATE_PRODUCT_TEST_CASE("device-resident kernels on padded operands and a stream",
                           "[cuda][device]", std::pair,
                           ((float, std::int32_t), (double, std::int64_t))) {
    if (!tessel::cuda::device_available()) {
        WARN("skipped: no CUDA device");
        return;
    }
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    const auto a = generate::power_law<V, I>(1500, 900, 6.0, 2.1, 21);
    const size_type k = 37;  // one tile of 32, then a tail of 4 and one of 1
    const auto b = generate::random_dense<V>(a.cols(), k, Layout::row_major, 5);
    const auto ep = Epilogue<V>::bias_relu_cap(V(-0.1), V(2));
    DenseMatrix<V> expected(a.rows(), k);
    reference::spmm<V, I>(a, b.view(), expected.view(), ep);

    Stream stream;
    const size_type ldb = k + 3, ldc = k + 5;
    cuda::DeviceCsr<V, I> da(a, stream.s);
    cuda::DeviceDense<V> db(a.cols(), k, ldb);
    cuda::DeviceDense<V> dc(a.rows(), k, ldc);
    db.upload(b.view(), stream.s);
    REQUIRE(da.nnz() == a.nnz());

    std::vector<V> got(static_cast<std::size_t>(a.rows() * ldc));
    // Only the k written columns of each row: the padding is never written (initcheck).
    auto download = [&] {
        TESSEL_CUDA_CHECK(cudaMemcpy2DAsync(got.data(), ldc * sizeof(V), dc.data(), ldc * sizeof(V), k * sizeof(V),
                                            a.rows(), cudaMemcpyDeviceToHost, stream.s));
        TESSEL_CUDA_CHECK(cudaStreamSynchronize(stream.s));
    };

    SECTION("warp per row") {
        cuda::device::spmm_warp_row(da, db.view(), dc.view(), ep, stream.s);
        download();
        CHECK(count_bad(a, expected, got, ldc) == 0);
    }
    SECTION("merge") {
        cuda::device::spmm_merge(da, db.view(), dc.view(), ep, stream.s);
        download();
        CHECK(count_bad(a, expected, got, ldc) == 0);
    }
    SECTION("cusparse with a kept handle") {
        cuda::CusparseHandle handle;
        for (int repeat = 0; repeat < 2; ++repeat)
            cuda::device::spmm_cusparse(da, db.view(), dc.view(), ep, stream.s, &handle);
        download();
        CHECK(count_bad(a, expected, got, ldc) == 0);
    }
    SECTION("tiled ell, timed with events") {
        TiledEllConfig config;
        config.block_rows = 128;
        config.buffer_entries = 512;
        cuda::DeviceTiledEll<V, I> dt(tiled_ell_from_csr(a, config), stream.s);
        const auto plan = cuda::device::plan_tiled_ell(dt, k, 32);
        CHECK(plan.block_threads == 128);
        // 37 columns: full tiles, then a width-4 tail and a masked 1-column tail (factor 4:
        // nine tiles and the masked tail only).
        CHECK(plan.tail_launches == (plan.register_factor == 4 ? 1 : 2));
        cuda::TiledEllLaunch ran;
        const double ms = cuda::time_ms(
            [&] { ran = cuda::device::spmm_tiled_ell(dt, db.view(), dc.view(), ep, 32, stream.s); },
            stream.s, 3);
        CHECK(ms > 0);
        CHECK(ran.register_factor == plan.register_factor);
        download();
        CHECK(count_bad(a, expected, got, ldc) == 0);
    }
    SECTION("row groups, every group size, full tiles and a masked tail") {
        const auto tiled = tiled_ell_from_csr(a, TiledEllConfig{256, 512});
        // Stages that end inside an octet of the kernel's staging (stage_entries.hpp) among them.
        size_type partial_octets = 0;
        for (size_type s = 0; s < tiled.num_stages(); ++s)
            partial_octets += (tiled.mapdispl[s + 1] - tiled.mapdispl[s]) % 8 != 0;
        CHECK(partial_octets > 0);
        for (size_type group : {1, 2, 4, 8}) {
            cuda::DeviceGroupedEll<V, I> dg(group_rows(tiled, group), stream.s);
            for (int factor : {0, int(64 / group)}) {
                CAPTURE(group, factor);
                if (factor != 0 && (group == 1 || sizeof(V) == 8)) {  // 64 accumulators: float groups only
                    CHECK_THROWS_WITH(cuda::device::spmm_grouped_ell(dg, db.view(), dc.view(), ep, factor, stream.s),
                                      Catch::EndsWith("register factor: " + std::to_string(factor) + " for groups of " +
                                                      std::to_string(group) + " rows: " + std::to_string(32 / group) +
                                                      " (32 accumulators a thread)"));
                    continue;
                }
                const auto ran = cuda::device::spmm_grouped_ell(dg, db.view(), dc.view(), ep, factor, stream.s);
                CHECK(ran.register_factor == (factor ? factor : 32 / group));
                CHECK(ran.block_threads == 256 / group);
                CHECK(ran.tail_launches == 1);  // 37 columns: no tile width divides them
                download();
                CHECK(count_bad(a, expected, got, ldc) == 0);
            }
        }
        if constexpr (sizeof(V) == 4) {
            // Half values stay half on the device: against the reference on their widened values.
            auto half = tiled;
            store_values_in_half(half);
            DenseMatrix<V> widened(a.rows(), k);
            reference::spmm<V, I>(csr_from_tiled_ell(half), b.view(), widened.view(), ep);
            cuda::DeviceGroupedEll<V, I> dh(group_rows(half, 4), stream.s);
            REQUIRE(dh.half_values() != nullptr);
            cuda::device::spmm_grouped_ell(dh, db.view(), dc.view(), ep, 16, stream.s);
            download();
            CHECK(count_bad(a, widened, got, ldc) == 0);
            cuda::DeviceGroupedEll<V, I> pairs(group_rows(tiled, 2), stream.s);
            CHECK_THROWS_WITH(cuda::device::spmm_grouped_ell(pairs, db.view(), dc.view(), ep, 8, stream.s),
                              Catch::EndsWith("register factor: 8 for groups of 2 rows: 16 or 32 (32 or 64 "
                                              "accumulators a thread)"));
        }
    }
    SECTION("host-level front door agrees") {
        DenseMatrix<V> c(a.rows(), k);
        CHECK(spmm<V, I>(a, b.view(), c.view(), ep, Backend::cuda) != SpmmAlgorithm::reference);
        std::vector<V> flat(c.data(), c.data() + c.size());
        CHECK(count_bad(a, expected, flat, k) == 0);
    }
}

TEST_CASE("row groups of more than 512 threads a block are refused by name", "[cuda][device]") {
    if (!tessel::cuda::device_available()) {
        WARN("skipped: no CUDA device");
        return;
    }
    const auto a = generate::stencil_2d<float, std::int32_t>(40);
    const cuda::DeviceGroupedEll<float, std::int32_t> dg(group_rows(tiled_ell_from_csr(a, {1024, 512}), 1));
    cuda::DeviceDense<float> db(a.cols(), 4), dc(a.rows(), 4);
    CHECK_THROWS_WITH(cuda::device::spmm_grouped_ell(dg, db.view(), dc.view()),
                      Catch::EndsWith("row groups: block_rows 1024 / group 1 must be a multiple of 32 threads of at "
                                      "most 512 for the cuda kernel"));
}

TEMPLATE_TEST_CASE("tiled ell whose stage needs more than 48 KiB of shared memory opts in", "[cuda][device]", float,
                   double) {
    if (!tessel::cuda::device_available()) {
        WARN("skipped: no CUDA device");
        return;
    }
    using V = TestType;
    // Wide rows over many columns: stages of up to 4096 distinct columns of B.
    const auto a = generate::power_law<V, std::int32_t>(600, 30000, 40.0, 2.1, 4);
    const size_type k = 12;
    const auto b = generate::random_dense<V>(a.cols(), k, Layout::row_major, 6);
    DenseMatrix<V> expected(a.rows(), k);
    reference::spmm<V, std::int32_t>(a, b.view(), expected.view());
    TiledEllConfig config;
    config.block_rows = 256;
    config.buffer_entries = 4096;
    Stream stream;
    cuda::DeviceTiledEll<V, std::int32_t> dt(tiled_ell_from_csr(a, config), stream.s);
    cuda::DeviceDense<V> db(a.cols(), k), dc(a.rows(), k);
    db.upload(b.view(), stream.s);
    const auto ran = cuda::device::spmm_tiled_ell(dt, db.view(), dc.view(), Epilogue<V>{}, 8, stream.s);
    CHECK(ran.shared_bytes > 48 * 1024);
    std::vector<V> got(static_cast<std::size_t>(a.rows() * k));
    TESSEL_CUDA_CHECK(cudaMemcpyAsync(got.data(), dc.data(), got.size() * sizeof(V), cudaMemcpyDeviceToHost, stream.s));
    TESSEL_CUDA_CHECK(cudaStreamSynchronize(stream.s));
    CHECK(count_bad(a, expected, got, k) == 0);
}

TEST_CASE("tiled ell with room for six blocks per multiprocessor runs the kernel sized for them", "[cuda][device]") {
    if (!tessel::cuda::device_available()) {
        WARN("skipped: no CUDA device");
        return;
    }
    if (cuda::detail::current_device_limits().shared_per_multiprocessor < 228 * 1024) {
        WARN("skipped: the expected variants are those of a device with 228 KiB of shared memory per SM");
        return;
    }
    const auto a = generate::power_law<float, std::int32_t>(900, 6000, 30.0, 2.1, 8);
    const size_type k = 21;  // a tile of 16, then tails of 4 and 1 (each its own variant)
    const auto b = generate::random_dense<float>(a.cols(), k, Layout::row_major, 9);
    DenseMatrix<float> expected(a.rows(), k);
    reference::spmm<float, std::int32_t>(a, b.view(), expected.view());
    // 512-entry stages of 16 floats: 32 KiB, six blocks of 256 by shared memory, four by the
    // usual variant's registers; 1024 entries: 64 KiB, three blocks; blocks of 512 rows: never.
    struct Case {
        size_type block_rows, entries;
        int min_blocks;
    };
    for (const Case c : {Case{256, 512, 6}, Case{256, 1024, 1}, Case{512, 256, 1}, Case{128, 256, 6}}) {
        INFO("block rows " << c.block_rows << ", stage " << c.entries);
        TiledEllConfig config;
        config.block_rows = c.block_rows;
        config.buffer_entries = c.entries;
        Stream stream;
        cuda::DeviceTiledEll<float, std::int32_t> dt(tiled_ell_from_csr(a, config), stream.s);
        CHECK(cuda::device::plan_tiled_ell(dt, k, 16).min_blocks == c.min_blocks);
        cuda::DeviceDense<float> db(a.cols(), k), dc(a.rows(), k);
        db.upload(b.view(), stream.s);
        const auto ran = cuda::device::spmm_tiled_ell(dt, db.view(), dc.view(), Epilogue<float>{}, 16, stream.s);
        CHECK(ran.min_blocks == c.min_blocks);
        std::vector<float> got(static_cast<std::size_t>(a.rows() * k));
        TESSEL_CUDA_CHECK(cudaMemcpyAsync(got.data(), dc.data(), got.size() * sizeof(float), cudaMemcpyDeviceToHost,
                                          stream.s));
        TESSEL_CUDA_CHECK(cudaStreamSynchronize(stream.s));
        CHECK(count_bad(a, expected, got, k) == 0);
    }
}

TEST_CASE("device buffers move, round-trip and check their bounds", "[cuda][device]") {
    if (!tessel::cuda::device_available()) {
        WARN("skipped: no CUDA device");
        return;
    }
    std::vector<double> host{1, 2, 3, 4, 5};
    cuda::DeviceBuffer<double> a(host.data(), 5);
    cuda::DeviceBuffer<double> b(std::move(a));
    CHECK(a.empty());
    CHECK(a.data() == nullptr);
    REQUIRE(b.size() == 5);
    std::vector<double> back(5, 0);
    b.download(back.data(), 5);
    CHECK(back == host);
    b.fill_zero();
    b.download(back.data(), 3, nullptr, 2);
    CHECK(back[0] == 0);
    CHECK_THROWS_AS(b.upload(host.data(), 5, nullptr, 1), DimensionMismatch);
    cuda::DeviceDense<double> d(2, 2);
    DenseMatrix<double> col_major(2, 2, Layout::col_major);
    CHECK_THROWS_AS(d.upload(col_major.view()), DimensionMismatch);
    CHECK(cuda::device_description().rfind("none", 0) != 0);
}

TEST_CASE("tiled ell that cannot be staged names the shared memory it needs", "[cuda][device]") {
    if (!tessel::cuda::device_available()) {
        WARN("skipped: no CUDA device");
        return;
    }
    // 32 rows of 2000 random columns out of 200000: one block stages ~60000 entries of B,
    // 60000 x 4 doubles = 1.9 MB, more than any GPU's shared memory per block.
    const auto a = generate::random_uniform<double, std::int32_t>(32, 200000, 2000, 3);
    TiledEllConfig config;
    config.block_rows = 32;
    config.buffer_entries = 65536;
    cuda::DeviceTiledEll<double, std::int32_t> dt(tiled_ell_from_csr(a, config));
    CHECK_THROWS_AS(cuda::device::plan_tiled_ell(dt, 8), CudaError);
    CHECK_THROWS_WITH(cuda::device::plan_tiled_ell(dt, 8), Catch::Contains("bytes of shared memory"));
    CHECK_THROWS_AS(cuda::device::plan_tiled_ell(dt, 8, 5), InvalidInput);
}

TEST_CASE("the device context made on a background thread serves the device calls after it", "[cuda][device]") {
    if (!tessel::cuda::device_available()) {
        WARN("skipped: no CUDA device");
        return;
    }
    DeviceWarmup warmup(true);
    // A device call while the context may still be in the making: the runtime waits for it.
    const std::vector<float> host{1.0f, 2.0f, 3.0f};
    cuda::DeviceBuffer<float> d(host.data(), 3, nullptr);
    std::vector<float> back(3);
    d.download(back.data(), 3, nullptr);
    cuda::synchronize_stream(nullptr);
    CHECK(back == host);
    const double seconds = warmup.seconds();
    CHECK(seconds >= 0);
    CHECK(warmup.seconds() == seconds);  // joined once, the same answer after
    DeviceWarmup idle(false);
    CHECK(idle.seconds() == 0);
}

namespace {

template <typename T>
std::vector<T> fetch(const T* device, size_type count) {
    std::vector<T> host(static_cast<std::size_t>(count));
    if (count > 0) cuda::copy_to_host(host.data(), device, host.size() * sizeof(T), nullptr);
    cuda::synchronize_stream(nullptr);
    return host;
}

// `csr` with every `every`-th stored value set to zero.
template <typename V, typename I>
Csr<V, I> with_stored_zeros(Csr<V, I> csr, std::size_t every) {
    auto& values = csr.values_mut();
    for (std::size_t e = 0; e < values.size(); e += every) values[e] = V(0);
    return csr;
}

// body(config, half) for every configuration, the values in the matrix's precision and, when
// they are float, also in IEEE half.
template <typename V, typename Body>
void for_each_config(std::initializer_list<TiledEllConfig> configs, Body&& body) {
    for (const TiledEllConfig config : configs)
        for (const bool half : {false, true}) {
            if (half && !std::is_same_v<V, float>) continue;
            INFO("block rows " << config.block_rows << ", stage " << config.buffer_entries << ", half " << half);
            body(config, half);
        }
}

// `csr` in tiled ELL cut by `cut`, its values in half when `half`.
template <typename V, typename I>
TiledEll<V, I> tiled(const Csr<V, I>& csr, TiledEllConfig cut, bool half) {
    auto a = tiled_ell_from_csr(csr, cut);
    if (half) store_values_in_half(a);
    return a;
}

// Every array of two device tiled ELL matrices equal, bit for bit.
template <typename V, typename I>
void check_same_arrays(const cuda::DeviceTiledEll<V, I>& got, const cuda::DeviceTiledEll<V, I>& want,
                       const TiledEll<V, I>& host) {
    const auto stored = static_cast<size_type>(host.index.size());
    CHECK(got.rows() == want.rows());
    CHECK(got.nnz() == want.nnz());
    CHECK(fetch(got.buffdispl(), size_type(host.buffdispl.size())) == fetch(want.buffdispl(), size_type(host.buffdispl.size())));
    CHECK(fetch(got.mapdispl(), size_type(host.mapdispl.size())) == fetch(want.mapdispl(), size_type(host.mapdispl.size())));
    CHECK(fetch(got.map(), size_type(host.map.size())) == fetch(want.map(), size_type(host.map.size())));
    CHECK(fetch(got.warpdispl(), size_type(host.warpdispl.size())) == fetch(want.warpdispl(), size_type(host.warpdispl.size())));
    CHECK(fetch(got.index(), stored) == fetch(want.index(), stored));
    if (host.stores_half()) {
        CHECK(got.values() == nullptr);
        CHECK(fetch(got.half_values(), stored) == fetch(want.half_values(), stored));
    } else {
        CHECK(got.half_values() == nullptr);
        CHECK(fetch(got.values(), stored) == fetch(want.values(), stored));
    }
}

}  // namespace

TEMPLATE_PRODUCT_TEST_CASE("Aᵀ made on the device has the host transpose's arrays, bit for bit", "[cuda][device]",
                           std::pair, ((float, std::int32_t), (double, std::int64_t))) {
    if (!tessel::cuda::device_available()) {
        WARN("skipped: no CUDA device");
        return;
    }
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    // Stored zeros: left out of Aᵀ.
    const auto csr = with_stored_zeros(generate::power_law<V, I>(700, 1100, 9.0, 2.1, 41), 17);
    // Small stages and blocks: blocks of Aᵀ with several stages, partial warps, empty rows.
    for_each_config<V>({{64, 96}, {128, 4096}, {32, 7}}, [&](TiledEllConfig config, bool half) {
        const auto a = tiled(csr, {96, 128}, half);
        const cuda::DeviceTiledEll<V, I> a_device(a);
        const TiledEll<V, I> host = tiled_ell_transpose(a, config);
        const TiledEll<V, I> layout = tiled_ell_transpose_layout(a, config);
        CHECK(layout.index.empty());
        CHECK(layout.nnz == host.nnz);
        const cuda::DeviceTiledEll<V, I> made(layout, a_device);
        check_same_arrays(made, cuda::DeviceTiledEll<V, I>(host), host);
    });
}

TEMPLATE_PRODUCT_TEST_CASE("the bank order made on the device has the host's arrays and figures, bit for bit",
                           "[cuda][device][bank_order]", std::pair, ((float, std::int32_t), (double, std::int64_t))) {
    if (!tessel::cuda::device_available()) {
        WARN("skipped: no CUDA device");
        return;
    }
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    // Stored zeros: entries like any other.
    const auto csr = with_stored_zeros(generate::power_law<V, I>(900, 1300, 12.0, 2.1, 43), 13);
    // Stages of 96 to 4096 entries; warps of 2 to more than bank_order_max_width slot rows.
    for_each_config<V>({{64, 96}, {256, 1024}, {32, 4096}}, [&](TiledEllConfig config, bool half) {
        auto host = tiled(csr, config, half);
        cuda::DeviceTiledEll<V, I> device(host);
        const BankOrder want = order_slots_for_banks(host);
        const BankOrder got = device.order_slots_for_banks();
        CHECK(want.wavefronts_after < want.wavefronts_before);
        CHECK(got.wavefronts_before == want.wavefronts_before);
        CHECK(got.wavefronts_after == want.wavefronts_after);
        check_same_arrays(device, cuda::DeviceTiledEll<V, I>(host), host);
    });
}

TEST_CASE("Aᵀ made on the device refuses a layout that is not the matrix's transpose", "[cuda][device]") {
    if (!tessel::cuda::device_available()) {
        WARN("skipped: no CUDA device");
        return;
    }
    const auto csr = generate::power_law<float, std::int32_t>(300, 200, 5.0, 2.1, 3);
    const auto a = tiled_ell_from_csr(csr, {64, 128});
    const cuda::DeviceTiledEll<float, std::int32_t> a_device(a);
    const auto wrong = tiled_ell_transpose_layout(tiled_ell_transpose(a, {64, 128}), {64, 128});  // A's own layout
    CHECK_THROWS_WITH((cuda::DeviceTiledEll<float, std::int32_t>(wrong, a_device)),
                      Catch::Contains("DeviceTiledEll: the layout is not that of the matrix's transpose"));
}


#else

TEST_CASE("device-resident CUDA API", "[cuda][device]") {
    if (!tessel::cuda::device_available()) {
        WARN("skipped: no CUDA device");
        return;
    }
    FAIL("a device is present but this build has no CUDA backend");
}

#endif

