// The local SpMM operator: every format and backend against the reference, its description.
#include <catch2/catch.hpp>

#include <cmath>
#include <thread>

#include "core/device_traffic.hpp"
#include "core/error.hpp"
#include "core/formats/tiled_ell_transpose.hpp"
#include "core/generators.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/operator/spmm_operator.hpp"

using namespace tessel;

namespace {

template <typename V, typename I>
void check_operator(const SpmmOperatorConfig& config) {
    const auto a = generate::power_law<V, I>(900, 1200, 7.0, 2.1, 31);
    auto ep = Epilogue<V>::bias_relu_cap(V(-0.1), V(3));
    for (size_type k : {1, 5, 16, 40}) {
        ep.beta = k == 5 ? V(1) : V(0);  // C += A·B, then the bias and clamp
        const auto b = generate::random_dense<V>(a.cols(), k, Layout::row_major, 2);
        DenseMatrix<V> want = generate::random_dense<V>(a.rows(), k, Layout::row_major, 3), got = want;
        reference::spmm<V, I>(a, b.view(), want.view(), ep);
        SpmmOperator<V, I> op(Csr<V, I>(a), config);
        op.multiply(b.view(), got.view(), ep);
        size_type bad = 0;
        for (size_type i = 0; i < a.rows(); ++i)
            for (size_type j = 0; j < k; ++j)
                if (std::abs(double(got(i, j)) - double(want(i, j))) > 1e-4 * (1 + std::abs(double(want(i, j))))) ++bad;
        INFO("format " << to_string(config.format) << " backend " << to_string(config.backend) << " k " << k);
        CHECK(bad == 0);
        CHECK(op.nnz() == a.nnz());
        CHECK(op.bytes() > double(a.nnz()) * sizeof(V));
    }
}

}  // namespace

TEMPLATE_PRODUCT_TEST_CASE("the operator equals the reference in every format on cpu and reference",
                           "[operator][cpu]", std::pair, ((float, std::int32_t), (double, std::int64_t))) {
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    for (auto backend : {Backend::cpu, Backend::reference})
        for (auto format : {SparseFormat::csr, SparseFormat::tiled_ell})
            check_operator<V, I>({backend, format, {64, 300}, 0});
    check_operator<V, I>({Backend::cpu, SparseFormat::tiled_ell, {128, 4096}, 4});
}

TEST_CASE("the operator keeps one format, describes it and refuses what it cannot do", "[operator]") {
    const auto a = generate::stencil_2d<float, std::int32_t>(40);
    SpmmOperator<float, std::int32_t> tiled(Csr<float, std::int32_t>(a), {Backend::cpu, SparseFormat::tiled_ell, {64, 512}, 0});
    CHECK(tiled.tiled() != nullptr);
    CHECK(tiled.csr() == nullptr);
    CHECK(tiled.describe()["format"] == "tiled-ell");
    CHECK(tiled.describe()["block_rows"] == 64);
    CHECK(tiled.kernel_description(16) == "cpu tiled ELL, R = 16 (register tiles)");
    CHECK(tiled.kernel_description(1) == "cpu tiled ELL, R = 1 (slot order)");
    CHECK(tiled.kernel_description(0) == "cpu tiled ELL, R chosen from k (slot order for R = 1, register tiles above)");
    // long ELL rows (xct's) run in slot order at every R
    SpmmOperator<float, std::int32_t> long_rows(generate::random_uniform<float, std::int32_t>(300, 4000, 120, 17),
                                                {Backend::cpu, SparseFormat::tiled_ell, {256, 65536}, 0});
    CHECK(long_rows.kernel_description(16) == "cpu tiled ELL, R = 16 (slot order)");
    CHECK(long_rows.kernel_description(0) == "cpu tiled ELL, R chosen from k (slot order for R = 1 and these long rows)");
    SpmmOperator<float, std::int32_t> csr(Csr<float, std::int32_t>(a), {Backend::cpu, SparseFormat::csr, {}, 0});
    CHECK(csr.csr() != nullptr);
    CHECK(csr.kernel_description(8) == "cpu csr merge-based");
    DenseMatrix<float> b(a.cols(), 2), c(a.rows() + 1, 2);
    CHECK_THROWS_WITH(tiled.multiply(b.view(), c.view()), Catch::Contains("spmm operator: A is 1600x1600"));
    CHECK_THROWS_WITH(tiled.multiply_device(b.view(), c.view()), Catch::Contains("device views given to an operator on the cpu backend"));
    CHECK_THROWS_WITH(parse_format("ell"), Catch::Contains("unknown sparse format 'ell' (expected csr or tiled-ell)"));
    CHECK(parse_format("tiled-ell") == SparseFormat::tiled_ell);
    if (!cuda::device_available())
        CHECK_THROWS((SpmmOperator<float, std::int32_t>(Csr<float, std::int32_t>(a), {Backend::cuda, SparseFormat::csr, {}, 0})));
}

TEMPLATE_PRODUCT_TEST_CASE("the operator on cuda equals the reference (resident matrix)", "[operator][cuda]", std::pair,
                           ((float, std::int32_t), (double, std::int64_t))) {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    for (auto format : {SparseFormat::csr, SparseFormat::tiled_ell})
        check_operator<V, I>({Backend::cuda, format, {128, 1024}, 0});
    // Half values: the device kernel against the cpu kernel on the same rounded values.
    const auto a = generate::power_law<V, I>(900, 1200, 7.0, 2.1, 31);
    SpmmOperatorConfig config{Backend::cuda, SparseFormat::tiled_ell, {128, 1024}, 0, true};
    SpmmOperator<V, I> device(Csr<V, I>(a), config);
    config.backend = Backend::cpu;
    SpmmOperator<V, I> host(Csr<V, I>(a), config);
    for (size_type k : {1, 16}) {
        const auto b = generate::random_dense<V>(a.cols(), k, Layout::row_major, 2);
        DenseMatrix<V> want(a.rows(), k), got(a.rows(), k);
        host.multiply(b.view(), want.view());
        device.multiply(b.view(), got.view());
        for (size_type i = 0; i < a.rows(); ++i)
            for (size_type j = 0; j < k; ++j) REQUIRE(double(got(i, j)) == Approx(double(want(i, j))).epsilon(1e-4).margin(1e-5));
    }
}

namespace {

// The matrix and the cuda tiled ELL configuration with a deferred upload of the tests below.
Csr<float, std::int32_t> deferred_matrix() { return generate::power_law<float, std::int32_t>(900, 1200, 7.0, 2.1, 31); }

SpmmOperatorConfig deferred_config() {
    SpmmOperatorConfig config{Backend::cuda, SparseFormat::tiled_ell, {128, 1024}, 0};
    config.defer_upload = true;
    return config;
}

}  // namespace

TEST_CASE("a deferred upload goes up on another thread while the host copy is read", "[operator][cuda]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    using V = float;
    using I = std::int32_t;
    const auto a = deferred_matrix();
    const SpmmOperatorConfig config = deferred_config();
    device_traffic::reset();
    SpmmOperator<V, I> op(Csr<V, I>(a), config);
    CHECK(device_traffic::counts(device_traffic::Phase::setup).h2d_bytes == 0);
    const auto b = generate::random_dense<V>(a.cols(), 3, Layout::row_major, 2);
    DenseMatrix<V> got(a.rows(), 3), want(a.rows(), 3);
    CHECK_THROWS_WITH(op.multiply(b.view(), got.view()),
                      Catch::Contains("spmm operator: multiplied on cuda before upload() (defer_upload)"));
    // What xct does: Aᵀ made from the host copy while A goes up.
    std::thread uploader([&] { op.upload(); });
    const TiledEll<V, I> at = tiled_ell_transpose(*op.tiled(), op.config().tiles);
    uploader.join();
    const std::int64_t uploaded = device_traffic::counts(device_traffic::Phase::setup).h2d_bytes;
    CHECK(uploaded >= std::int64_t(op.tiled()->stored()) * std::int64_t(sizeof(std::uint16_t) + sizeof(V)));
    op.upload();  // already there: nothing goes up again
    CHECK(device_traffic::counts(device_traffic::Phase::setup).h2d_bytes == uploaded);
    op.multiply(b.view(), got.view());
    reference::spmm<V, I>(a, b.view(), want.view(), Epilogue<V>{});
    for (size_type i = 0; i < a.rows(); ++i)
        for (size_type j = 0; j < 3; ++j) REQUIRE(double(got(i, j)) == Approx(double(want(i, j))).epsilon(1e-4).margin(1e-5));
    CHECK(csr_from_tiled_ell(at).nnz() == a.nnz());
}

TEST_CASE("Aᵀ made on the device multiplies as the host transpose, with its slots never uploaded", "[operator][cuda]") {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    using V = float;
    using I = std::int32_t;
    const auto a = deferred_matrix();
    SpmmOperator<V, I> op(Csr<V, I>(a), deferred_config());
    auto layout = [](const SpmmOperator<V, I>& o) { return tiled_ell_transpose_layout(*o.tiled(), {64, 512}); };
    CHECK_THROWS_WITH((SpmmOperator<V, I>::transposed_on_device(op, layout(op))),
                      Catch::Contains("spmm operator: transposed on cuda before upload() (defer_upload)"));
    op.upload();
    device_traffic::reset();
    auto at = SpmmOperator<V, I>::transposed_on_device(op, layout(op));
    const auto on_host = tiled_ell_transpose(*op.tiled(), {64, 512});
    CHECK(at.tiled()->index.empty());  // no slot on the host
    CHECK(at.bytes() == SpmmOperator<V, I>(on_host, {Backend::cpu, SparseFormat::tiled_ell, {64, 512}, 0}).bytes());
    CHECK(at.describe()["padding"] == Approx(on_host.padding_overhead()));
    // What went up is the layout, a fraction of the slots the host transpose would upload.
    const std::int64_t up = device_traffic::counts(device_traffic::Phase::setup).h2d_bytes;
    CHECK(up < std::int64_t(on_host.stored() * (sizeof(std::uint16_t) + sizeof(V))) / 4);
    const auto b = generate::random_dense<V>(a.rows(), 5, Layout::row_major, 3);
    DenseMatrix<V> got(a.cols(), 5), want(a.cols(), 5);
    SpmmOperator<V, I>(on_host, {Backend::cuda, SparseFormat::tiled_ell, {64, 512}, 0}).multiply(b.view(), want.view());
    at.multiply(b.view(), got.view());
    for (size_type i = 0; i < a.cols(); ++i)
        for (size_type j = 0; j < 5; ++j) REQUIRE(got(i, j) == want(i, j));  // the same arrays: the same sums
    SpmmOperator<V, I> on_cpu(Csr<V, I>(a), {Backend::cpu, SparseFormat::tiled_ell, {128, 1024}, 0});
    CHECK_THROWS_WITH((SpmmOperator<V, I>::transposed_on_device(on_cpu, layout(on_cpu))),
                      Catch::Contains("a tiled ELL operator on cuda only"));
}

TEST_CASE("the bank order on cuda keeps the products and reports the host order's figures", "[operator][cuda]") {
    using V = float;
    using I = std::int32_t;
    SpmmOperatorConfig config{Backend::cuda, SparseFormat::tiled_ell, {256, 1024}, 0};
    config.bank_order = true;
    SpmmOperatorConfig on_cpu = config;
    on_cpu.backend = Backend::cpu;
    const auto a = generate::power_law<V, I>(900, 1200, 7.0, 2.1, 31);
    CHECK_FALSE(SpmmOperator<V, I>(Csr<V, I>(a), on_cpu).describe().contains("bank_order"));  // no banks on a cpu
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    check_operator<V, I>(config);  // against the reference
    SpmmOperator<V, I> op(Csr<V, I>(a), config);
    auto host = *op.tiled();  // the host copy keeps the built order
    const BankOrder want = order_slots_for_banks(host);
    REQUIRE(op.bank_order());
    CHECK(op.bank_order()->wavefronts_before == want.wavefronts_before);
    CHECK(op.bank_order()->wavefronts_after == want.wavefronts_after);
    CHECK(op.describe()["bank_order"]["wavefronts_after"] == Approx(want.wavefronts_after));
    CHECK(op.describe()["bank_order"]["seconds"].get<double>() > 0);
    // Aᵀ made on the device takes the order too.
    const auto at = SpmmOperator<V, I>::transposed_on_device(op, tiled_ell_transpose_layout(*op.tiled(), {256, 1024}));
    auto at_host = tiled_ell_transpose(*op.tiled(), {256, 1024});
    CHECK(at.bank_order()->wavefronts_after == order_slots_for_banks(at_host).wavefronts_after);
}

TEST_CASE("row groups on cuda multiply as the reference, describe themselves and refuse what they cannot do",
          "[operator][cuda]") {
    using V = float;
    using I = std::int32_t;
    SpmmOperatorConfig config{Backend::cuda, SparseFormat::tiled_ell, {256, 1024}, 0};
    config.row_groups = 4;
    config.bank_order = true;  // on the groups' slots, as they are made
    SpmmOperatorConfig on_cpu = config;
    on_cpu.backend = Backend::cpu;
    on_cpu.row_groups = 3;
    const auto a = generate::power_law<V, I>(900, 1200, 7.0, 2.1, 31);
    CHECK_THROWS_WITH((SpmmOperator<V, I>(Csr<V, I>(a), on_cpu)), Catch::EndsWith("row groups: 3 is not one of 1, 2, 4, 8"));
    on_cpu.row_groups = 4;
    on_cpu.format = SparseFormat::csr;
    CHECK_THROWS_WITH((SpmmOperator<V, I>(Csr<V, I>(a), on_cpu)),
                      Catch::EndsWith("spmm operator: row groups need the tiled-ell format"));
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    check_operator<V, I>(config);  // against the reference, beta and tails included
    SpmmOperatorConfig wide = config;
    wide.register_factor = 16;  // 64 accumulators a thread
    check_operator<V, I>(wide);
    SpmmOperator<V, I> op(Csr<V, I>(a), config);
    REQUIRE(op.row_groups());
    REQUIRE(op.bank_order());
    CHECK(op.bank_order()->wavefronts_after <= op.bank_order()->wavefronts_before);
    CHECK(op.row_groups()->group == 4);
    CHECK(op.row_groups()->entries_per_slot > 0);
    CHECK(op.describe()["row_groups"]["group"] == 4);
    CHECK(op.bytes() == op.row_groups()->bytes);
    CHECK(op.kernel_description(16) == "cuda tiled ELL of row groups (4 rows a thread, resident, shared-memory staging)");
    // Half values stay half in the groups: the device against the cpu kernel on the same values.
    SpmmOperatorConfig half = wide;
    half.half_values = true;
    SpmmOperator<V, I> device(Csr<V, I>(a), half);
    CHECK(device.row_groups()->bytes < op.row_groups()->bytes);
    half.backend = Backend::cpu;
    SpmmOperator<V, I> host(Csr<V, I>(a), half);
    {
        const auto x = generate::random_dense<V>(a.cols(), 16, Layout::row_major, 2);
        DenseMatrix<V> want(a.rows(), 16), got(a.rows(), 16);
        host.multiply(x.view(), want.view());
        device.multiply(x.view(), got.view());
        for (size_type i = 0; i < a.rows(); ++i)
            for (size_type j = 0; j < 16; ++j)
                REQUIRE(double(got(i, j)) == Approx(double(want(i, j))).epsilon(1e-4).margin(1e-5));
    }
    const auto b = generate::random_dense<V>(a.rows(), 3, Layout::row_major, 4);
    DenseMatrix<V> c(a.cols(), 3);
    CHECK_THROWS_WITH(op.multiply_transposed(b.view(), c.view()),
                      Catch::EndsWith("spmm operator: transposed products run on A's tiled ELL, not its row groups"));
    CHECK_THROWS_WITH((SpmmOperator<V, I>::transposed_on_device(op, tiled_ell_transpose_layout(*op.tiled(), {256, 1024}))),
                      Catch::EndsWith("spmm operator: Aᵀ is made on the device from A's tiled ELL, not its row groups"));
}

namespace {

// multiply_transposed against the reference product with A's CSR transpose, alpha/beta on.
template <typename V, typename I>
void check_transposed(const SpmmOperatorConfig& config) {
    const auto a = generate::power_law<V, I>(900, 1200, 7.0, 2.1, 31);
    SpmmOperator<V, I> op(Csr<V, I>(a), config);
    for (size_type k : {1, 5, 16, 37}) {
        const auto b = generate::random_dense<V>(a.rows(), k, Layout::row_major, 4);
        DenseMatrix<V> want = generate::random_dense<V>(a.cols(), k, Layout::row_major, 6), got = want;
        const auto ep = Epilogue<V>::scaled(V(0.5), V(2));
        reference::spmm<V, I>(transpose(a), b.view(), want.view(), ep);
        op.multiply_transposed(b.view(), got.view(), ep);
        size_type bad = 0;
        for (size_type i = 0; i < a.cols(); ++i)
            for (size_type j = 0; j < k; ++j)
                if (std::abs(double(got(i, j)) - double(want(i, j))) > 1e-4 * (1 + std::abs(double(want(i, j))))) ++bad;
        INFO("backend " << to_string(config.backend) << " k " << k);
        CHECK(bad == 0);
    }
}

}  // namespace

TEMPLATE_PRODUCT_TEST_CASE("the operator's transposed product on A's tiles equals the product with Aᵀ",
                           "[operator][cpu][transposed]", std::pair, ((float, std::int32_t), (double, std::int64_t))) {
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    for (auto backend : {Backend::cpu, Backend::reference})
        check_transposed<V, I>({backend, SparseFormat::tiled_ell, {64, 300}, 0});
    const auto a = generate::stencil_2d<V, I>(10);
    SpmmOperator<V, I> csr(Csr<V, I>(a), {Backend::cpu, SparseFormat::csr, {}, 0});
    DenseMatrix<V> b(a.rows(), 1), c(a.cols(), 1);
    CHECK_THROWS_WITH(csr.multiply_transposed(b.view(), c.view()),
                      Catch::Contains("transposed products need the tiled-ell format"));
}

TEMPLATE_PRODUCT_TEST_CASE("the transposed product on cuda equals the product with Aᵀ", "[operator][cuda][transposed]",
                           std::pair, ((float, std::int32_t), (double, std::int64_t))) {
    if (!cuda::device_available()) {
        WARN("skipped: no CUDA device (" << cuda::device_description() << ")");
        return;
    }
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    check_transposed<V, I>({Backend::cuda, SparseFormat::tiled_ell, {128, 1024}, 0});
    // Half values: the device against the cpu on the same rounded values.
    const auto a = generate::power_law<V, I>(900, 1200, 7.0, 2.1, 31);
    SpmmOperatorConfig config{Backend::cuda, SparseFormat::tiled_ell, {128, 1024}, 0, true};
    SpmmOperator<V, I> device(Csr<V, I>(a), config);
    config.backend = Backend::cpu;
    SpmmOperator<V, I> host(Csr<V, I>(a), config);
    const auto b = generate::random_dense<V>(a.rows(), 3, Layout::row_major, 2);
    DenseMatrix<V> want(a.cols(), 3), got(a.cols(), 3);
    host.multiply_transposed(b.view(), want.view());
    device.multiply_transposed(b.view(), got.view());
    for (size_type i = 0; i < a.cols(); ++i)
        for (size_type j = 0; j < 3; ++j) REQUIRE(double(got(i, j)) == Approx(double(want(i, j))).epsilon(1e-4).margin(1e-5));
}
