// SpGEMM: the reference on hand-computed cases, the cpu and cuda kernels against it (every
// accumulator, with and without compression, sorted and unsorted), symbolic reuse, the pieces
// (compression, meta-algorithm, memory pool).
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "core/cpu/spgemm/spgemm_compression.hpp"
#include "core/cpu/spgemm/spgemm_memory_pool.hpp"
#include "core/cpu/spgemm/spgemm_meta.hpp"
#include "core/error.hpp"
#include "core/generators.hpp"
#include "core/kernels/spgemm.hpp"

using namespace tessel;

TEST_CASE("reference spgemm on a hand-computed case", "[spgemm][reference]") {
    // A = [1 0 2; 0 0 0; 0 3 0], B = [0 1 0 4; 5 0 0 0; 2 0 3 0]
    // A·B = [4 1 6 4; 0 0 0 0; 15 0 0 0]
    Csr<double, std::int32_t> a(3, 3, {0, 2, 2, 3}, {2, 0, 1}, {2, 1, 3});
    Csr<double, std::int32_t> b(3, 4, {0, 2, 3, 5}, {3, 1, 0, 2, 0}, {4, 1, 5, 3, 2});
    auto c = reference::spgemm(a, b);
    CHECK(c.rows() == 3);
    CHECK(c.cols() == 4);
    CHECK(c.row_ptr() == std::vector<size_type>{0, 4, 4, 5});
    CHECK(c.col_idx() == std::vector<std::int32_t>{0, 1, 2, 3, 0});
    CHECK(c.values() == std::vector<double>{4, 1, 6, 4, 15});
    auto plan = reference::spgemm_symbolic(a, b);
    CHECK(plan.flops == 5);  // row 0: 2 + 2 (rows 2 and 0 of B), row 2: 1 (row 1 of B)
    CHECK(plan.max_row_flops == 4);
    CHECK(plan.max_row_nnz == 4);
    auto p = reference::spgemm_pattern(a, b);
    CHECK(p.col_idx() == c.col_idx());
    CHECK(p.values() == std::vector<double>{1, 1, 1, 1, 1});
    CHECK(spgemm_row_flops(a, b) == std::vector<size_type>{4, 0, 1});
    // Column flops: B(0,1), B(0,3) get nnz(A(:,0)) = 1; B(1,0) gets 1; B(2,0), B(2,2) get 1.
    CHECK(spgemm_column_flops(a, b) == std::vector<size_type>{2, 1, 1, 1});
}

TEST_CASE("spgemm rejects mismatched shapes and foreign plans", "[spgemm]") {
    auto a = generate::random_uniform<double, std::int32_t>(20, 30, 3, 1);
    auto b = generate::random_uniform<double, std::int32_t>(31, 10, 3, 2);
    CHECK_THROWS_AS(reference::spgemm(a, b), DimensionMismatch);
    CHECK_THROWS_WITH(cpu::spgemm(a, b), Catch::Contains("A is 20x30, B is 31x10"));
    auto b2 = generate::random_uniform<double, std::int32_t>(30, 10, 3, 2);
    auto plan = cpu::spgemm_symbolic(a, b2);
    Csr<double, std::int32_t> c;
    auto other = generate::random_uniform<double, std::int32_t>(30, 10, 4, 3);
    CHECK_THROWS_AS(cpu::spgemm_numeric(plan, a, other, c), InvalidInput);
    // Same nnz, another pattern: the rows come out with other sizes.
    auto moved = generate::random_uniform<double, std::int32_t>(30, 10, 3, 99);
    CHECK_THROWS_WITH(cpu::spgemm_numeric(plan, a, moved, c),
                      Catch::Contains("do not have the sizes of the plan"));
    SpgemmOptions bad;
    bad.hash_l1_slots = 100;
    CHECK_THROWS_AS(cpu::spgemm_symbolic(a, b2, bad), InvalidInput);
}

namespace {

// got == expected up to the order of columns inside rows, values within a tolerance scaled by
// the products of the row.
template <typename V, typename I>
void check_same(Csr<V, I> got, const Csr<V, I>& expected, bool expect_sorted) {
    REQUIRE(got.rows() == expected.rows());
    REQUIRE(got.cols() == expected.cols());
    REQUIRE(got.row_ptr() == expected.row_ptr());
    if (expect_sorted) CHECK(got.sorted());
    got.sort_columns();
    REQUIRE(got.col_idx() == expected.col_idx());
    const double tol = std::is_same_v<V, float> ? 1e-4 : 1e-12;
    size_type bad = 0;
    for (size_type i = 0; i < got.rows(); ++i)
        for (size_type e = got.row_ptr()[i]; e < got.row_ptr()[i + 1]; ++e) {
            const double scale = 1.0 + double(got.row_nnz(i));
            if (std::abs(double(got.values()[e]) - double(expected.values()[e])) > tol * scale) ++bad;
        }
    CHECK(bad == 0);
}

// A matrix with two full rows (every column) among random ones.
template <typename V, typename I>
Csr<V, I> with_dense_rows(size_type rows, size_type cols, size_type per_row, std::uint64_t seed) {
    auto r = generate::random_uniform<V, I>(rows, cols, per_row, seed);
    std::vector<size_type> rp{0};
    std::vector<I> ci;
    std::vector<V> va;
    for (size_type i = 0; i < rows; ++i) {
        if (i == 1 || i == rows / 2) {
            for (size_type j = 0; j < cols; ++j) ci.push_back(I(j)), va.push_back(V(0.25) + V(j % 7));
        } else {
            for (size_type e = r.row_ptr()[i]; e < r.row_ptr()[i + 1]; ++e)
                ci.push_back(r.col_idx()[e]), va.push_back(r.values()[e]);
        }
        rp.push_back(size_type(ci.size()));
    }
    return Csr<V, I>(rows, cols, std::move(rp), std::move(ci), std::move(va), "dense rows");
}

// Rows in reverse column order: kernels must not assume sorted inputs.
template <typename V, typename I>
Csr<V, I> reversed_rows(const Csr<V, I>& a) {
    auto col = a.col_idx();
    auto val = a.values();
    for (size_type i = 0; i < a.rows(); ++i) {
        std::reverse(col.begin() + a.row_ptr()[i], col.begin() + a.row_ptr()[i + 1]);
        std::reverse(val.begin() + a.row_ptr()[i], val.begin() + a.row_ptr()[i + 1]);
    }
    return Csr<V, I>(a.rows(), a.cols(), a.row_ptr(), std::move(col), std::move(val), "reversed");
}

template <typename V, typename I>
struct Product {
    const char* name;
    Csr<V, I> a, b;
};

// Several shapes and densities: empty rows, dense rows, rectangular, power-law, stencil,
// banded, unsorted rows, empty matrices.
template <typename V, typename I>
std::vector<Product<V, I>> test_products() {
    std::vector<Product<V, I>> p;
    auto stencil = generate::stencil_2d<V, I>(19);
    p.push_back({"stencil squared", stencil, stencil});
    auto rnd = generate::random_uniform<V, I>(300, 300, 6, 3);
    p.push_back({"random squared", rnd, rnd});
    p.push_back({"rectangular", generate::random_uniform<V, I>(120, 700, 9, 4),
                 generate::random_uniform<V, I>(700, 1500, 5, 5)});
    p.push_back({"empty rows", generate::random_with_empty_rows<V, I>(500, 400, 5, 0.3, 6),
                 generate::random_with_empty_rows<V, I>(400, 800, 4, 0.4, 7)});
    p.push_back({"dense rows", with_dense_rows<V, I>(64, 900, 3, 8),
                 generate::random_uniform<V, I>(900, 2000, 4, 9)});
    auto pl = generate::power_law<V, I>(900, 900, 5.0, 2.1, 10);
    p.push_back({"power law squared", pl, pl});
    p.push_back({"banded times random", generate::banded<V, I>(333, 7),
                 generate::random_uniform<V, I>(333, 5000, 30, 11)});
    p.push_back({"unsorted rows", reversed_rows(generate::random_uniform<V, I>(200, 3000, 40, 12)),
                 reversed_rows(generate::random_uniform<V, I>(3000, 4000, 20, 13))});
    p.push_back({"empty", Csr<V, I>(0, 10, {0}, {}, {}), generate::random_uniform<V, I>(10, 7, 2, 1)});
    p.push_back({"zero rows of B", Csr<V, I>(40, 0, std::vector<size_type>(41, 0), {}, {}),
                 Csr<V, I>(0, 30, {0}, {}, {})});
    p.push_back({"no entries", Csr<V, I>(40, 40, std::vector<size_type>(41, 0), {}, {}),
                 generate::random_uniform<V, I>(40, 50, 5, 2)});
    return p;
}

struct Variant {
    const char* name;
    SpgemmOptions options;
};

std::vector<Variant> variants() {
    std::vector<Variant> v;
    v.push_back({"automatic", {}});
    SpgemmOptions o;
    o.accumulator = SpgemmAccumulator::dense;
    o.compression = SpgemmCompression::never;
    v.push_back({"dense, plain symbolic", o});
    o.compression = SpgemmCompression::always;
    v.push_back({"dense, compressed symbolic", o});
    o.accumulator = SpgemmAccumulator::hash;
    v.push_back({"hash, compressed symbolic", o});
    o.compression = SpgemmCompression::never;
    v.push_back({"hash, plain symbolic", o});
    o.hash_l1_slots = 16;  // every row longer than 8 overflows the first level
    v.push_back({"hash, tiny first level", o});
    o.compression = SpgemmCompression::always;
    o.sort_columns = true;
    v.push_back({"hash, tiny first level, compressed, sorted", o});
    SpgemmOptions s;
    s.sort_columns = true;
    v.push_back({"automatic, sorted", s});
    return v;
}

// One body for every backend that has the two phases (cpu and cuda).
template <typename V, typename I>
void check_backend(Backend backend) {
    for (const auto& prod : test_products<V, I>()) {
        const auto expected = reference::spgemm(prod.a, prod.b);
        for (const auto& var : variants()) {
            INFO(prod.name << " / " << var.name);
            Csr<V, I> got = backend == Backend::cuda ? cuda::spgemm(prod.a, prod.b, var.options)
                                                     : cpu::spgemm(prod.a, prod.b, var.options);
            check_same(got, expected, var.options.sort_columns);
            if (backend == Backend::cpu) {
                auto pattern = cpu::spgemm_pattern(prod.a, prod.b, var.options);
                if (var.options.sort_columns) CHECK(pattern.sorted());
                pattern.sort_columns();
                CHECK(pattern.row_ptr() == expected.row_ptr());
                CHECK(pattern.col_idx() == expected.col_idx());
                CHECK(std::all_of(pattern.values().begin(), pattern.values().end(),
                                  [](V x) { return x == V(1); }));
            }
        }
    }
}

// New values, same pattern.
template <typename V, typename I>
void perturb(Csr<V, I>& m, double scale) {
    auto& v = m.values_mut();
    for (std::size_t e = 0; e < v.size(); ++e) v[e] = V(scale * (1.0 + double(e % 13)) / 7.0) - v[e];
}

// Symbolic once, numeric twice with new values in between: the reused numeric phase must give
// exactly what a fresh product gives.
template <typename V, typename I>
void check_reuse(Backend backend) {
    for (auto prod : test_products<V, I>()) {
        for (const auto& var : variants()) {
            INFO(prod.name << " / " << var.name);
            auto a = prod.a, b = prod.b;
            const SpgemmPlan plan = backend == Backend::cuda
                                        ? cuda::spgemm_symbolic(a, b, var.options)
                                        : cpu::spgemm_symbolic(a, b, var.options);
            Csr<V, I> c;
            spgemm_numeric(plan, a, b, c);
            check_same(c, reference::spgemm(a, b), var.options.sort_columns);
            const auto columns = c.col_idx();
            perturb(a, 1.5);
            perturb(b, -0.75);
            spgemm_numeric(plan, a, b, c);  // the reuse path: values in place
            CHECK(c.col_idx() == columns);
            Csr<V, I> fresh;
            spgemm_numeric(plan, a, b, fresh);  // a fresh numeric phase with the same plan
            if (backend == Backend::cpu) {
                // Same accumulator, same order of additions: bit for bit the same.
                CHECK(fresh.col_idx() == c.col_idx());
                size_type differ = 0;
                for (size_type e = 0; e < c.nnz(); ++e) differ += fresh.values()[e] != c.values()[e];
                CHECK(differ == 0);
            } else {
                // Atomic additions on the device come in any order: equal up to rounding.
                check_same(fresh, reference::spgemm(a, b), var.options.sort_columns);
            }
            check_same(c, reference::spgemm(a, b), var.options.sort_columns);
        }
    }
}

}  // namespace

TEMPLATE_PRODUCT_TEST_CASE("cpu spgemm equals the reference", "[spgemm][cpu]", std::pair,
                           ((float, std::int32_t), (double, std::int32_t),
                            (float, std::int64_t), (double, std::int64_t))) {
    check_backend<typename TestType::first_type, typename TestType::second_type>(Backend::cpu);
}

TEMPLATE_PRODUCT_TEST_CASE("cpu spgemm numeric reuse equals a fresh product", "[spgemm][cpu]",
                           std::pair, ((float, std::int32_t), (double, std::int64_t))) {
    check_reuse<typename TestType::first_type, typename TestType::second_type>(Backend::cpu);
}

TEMPLATE_PRODUCT_TEST_CASE("cuda spgemm equals the reference", "[spgemm][cuda]", std::pair,
                           ((float, std::int32_t), (double, std::int32_t),
                            (float, std::int64_t), (double, std::int64_t))) {
    if (!tessel::cuda::device_available()) {
        WARN("skipped: no CUDA device");
        return;
    }
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    check_backend<V, I>(Backend::cuda);
    check_reuse<V, I>(Backend::cuda);
    // The baseline.
    for (const auto& prod : test_products<V, I>()) {
        INFO(prod.name);
        check_same(cuda::spgemm_cusparse(prod.a, prod.b), reference::spgemm(prod.a, prod.b), true);
    }
}

TEST_CASE("rows that overflow the first hash level spill to the second", "[spgemm][cpu]") {
    // Rows of C with thousands of entries, more than the default first level admits (2048).
    auto a = generate::random_uniform<double, std::int32_t>(40, 400, 40, 21);
    auto b = generate::random_uniform<double, std::int32_t>(400, 20000, 200, 22);
    SpgemmOptions o;
    o.accumulator = SpgemmAccumulator::hash;
    const auto plan = cpu::spgemm_symbolic(a, b, o);
    CHECK(plan.numeric_accumulator == SpgemmAccumulator::hash);
    CHECK(plan.max_row_nnz > spgemm_hash_l1_slots / 2);
    CHECK(plan.hash_l2_slots >= 2 * plan.max_row_nnz);
    Csr<double, std::int32_t> c;
    cpu::spgemm_numeric(plan, a, b, c);
    check_same(c, reference::spgemm(a, b), false);
    o.compression = SpgemmCompression::never;  // the symbolic phase spills too
    check_same(cpu::spgemm(a, b, o), reference::spgemm(a, b), false);
}

TEST_CASE("rows of B named far apart are prefetched, and the results do not change",
          "[spgemm][cpu]") {
    auto a = generate::random_uniform<double, std::int32_t>(3000, 200000, 6, 51);
    auto b = generate::random_uniform<double, std::int32_t>(200000, 50000, 8, 52);
    const auto expected = reference::spgemm(a, b);
    for (auto accumulator : {SpgemmAccumulator::dense, SpgemmAccumulator::hash})
        for (auto compression : {SpgemmCompression::never, SpgemmCompression::always}) {
            SpgemmOptions o;
            o.accumulator = accumulator;
            o.compression = compression;
            const auto plan = cpu::spgemm_symbolic(a, b, o);
            CHECK(plan.prefetch_b_rows);
            Csr<double, std::int32_t> c;
            cpu::spgemm_numeric(plan, a, b, c);
            check_same(c, expected, false);
            cpu::spgemm_numeric(plan, a, b, c);  // reuse
            check_same(c, expected, false);
            auto p = cpu::spgemm_pattern(a, b, o);
            p.sort_columns();
            CHECK(p.col_idx() == expected.col_idx());
        }
    // A stencil names its neighbours' rows: no prefetch.
    auto s = generate::stencil_2d<double, std::int32_t>(300);
    CHECK_FALSE(cpu::spgemm_symbolic(s, s).prefetch_b_rows);
}

TEST_CASE("64-bit indices with columns beyond 2^31", "[spgemm][cpu]") {
    const size_type k = 3'000'000'000;
    auto a = generate::random_uniform<double, std::int64_t>(150, 60, 4, 31);
    auto b = generate::random_uniform<double, std::int64_t>(60, k, 25, 32);
    const auto expected = reference::spgemm(a, b);
    CHECK(*std::max_element(expected.col_idx().begin(), expected.col_idx().end()) > (1ll << 31));
    for (auto compression : {SpgemmCompression::automatic, SpgemmCompression::always}) {
        SpgemmOptions o;
        o.compression = compression;
        const auto plan = cpu::spgemm_symbolic(a, b, o);
        CHECK(plan.numeric_accumulator == SpgemmAccumulator::hash);  // k far above the cut-off
        Csr<double, std::int64_t> c;
        cpu::spgemm_numeric(plan, a, b, c);
        check_same(c, expected, false);
        auto p = cpu::spgemm_pattern(a, b, o);
        p.sort_columns();
        CHECK(p.col_idx() == expected.col_idx());
    }
}

TEST_CASE("front door picks backends and dispatches numeric on the plan", "[spgemm]") {
    auto a = generate::power_law<double, std::int32_t>(400, 500, 6.0, 2.2, 41);
    auto b = generate::random_uniform<double, std::int32_t>(500, 300, 7, 42);
    const auto expected = reference::spgemm(a, b);
    for (Backend backend : {Backend::reference, Backend::cpu}) {
        SpgemmOptions o;
        o.sort_columns = true;
        const auto plan = spgemm_symbolic(a, b, o, backend);
        CHECK(plan.backend == backend);
        CHECK(plan.nnz() == expected.nnz());
        CHECK(plan.flops == reference::spgemm_symbolic(a, b).flops);
        CHECK_FALSE(plan.describe().empty());
        Csr<double, std::int32_t> c;
        spgemm_numeric(plan, a, b, c);
        check_same(c, expected, true);
        check_same(spgemm(a, b, o, backend), expected, true);
        auto p = spgemm_pattern(a, b, o, backend);
        CHECK(p.col_idx() == expected.col_idx());
    }
    // A plan made by one backend runs on another (cpu numeric phase on the oracle's plan, and
    // on a plan without row blocks as cuda makes them).
    SpgemmPlan foreign = reference::spgemm_symbolic(a, b);
    Csr<double, std::int32_t> from_foreign;
    cpu::spgemm_numeric(foreign, a, b, from_foreign);
    check_same(from_foreign, expected, false);
    foreign.row_blocks.clear();
    Csr<double, std::int32_t> no_blocks;
    cpu::spgemm_numeric(foreign, a, b, no_blocks);
    check_same(no_blocks, expected, false);
    if (!cuda::device_available()) {
        CHECK(spgemm(a, b).nnz() == expected.nnz());  // automatic -> cpu
        CHECK_THROWS(spgemm(a, b, {}, Backend::cuda));
    }
    // Row and column flops add up to the plan's flops.
    const auto plan = cpu::spgemm_symbolic(a, b);
    const auto rows = spgemm_row_flops(a, b), cols = spgemm_column_flops(a, b);
    size_type r = 0, c = 0;
    for (auto f : rows) r += f;
    for (auto f : cols) c += f;
    CHECK(r == plan.flops);
    CHECK(c == plan.flops);
    CHECK(*std::max_element(rows.begin(), rows.end()) == plan.max_row_flops);
}

TEST_CASE("bit-set compression of B's rows", "[spgemm][cpu]") {
    // Row 0: columns 0, 1, 31 (set 0), 32, 63 (set 1), 100 (set 3); row 1 empty; row 2 unsorted.
    Csr<float, std::int32_t> b(3, 128, {0, 6, 6, 9}, {0, 1, 31, 32, 63, 100, 70, 2, 65},
                               std::vector<float>(9, 1.0f));
    const auto lengths = cpu::bitset_row_lengths(b);
    CHECK(lengths == std::vector<size_type>{3, 0, 2});
    const auto packed = cpu::compress_rows(b, lengths);
    CHECK(packed.sets == 4);
    CHECK(packed.row_ptr == std::vector<size_type>{0, 3, 3, 5});
    CHECK(packed.set == std::vector<std::int32_t>{0, 1, 3, 0, 2});
    CHECK(packed.bits == std::vector<std::uint32_t>{0x80000003u, 0x80000001u, 1u << 4, 1u << 2,
                                                    (1u << 6) | (1u << 1)});
    // The 0.85 rule: compress only when more than 15% of the work goes away, counting the
    // compression's two passes over B (10 entries here) as work.
    CHECK(cpu::compression_pays(100, 65, 10, 0.85));
    CHECK_FALSE(cpu::compression_pays(100, 66, 10, 0.85));
    CHECK_FALSE(cpu::compression_pays(0, 0, 0, 0.85));
    // A wide band packs well (33 neighbouring columns in two sets) and is compressed; a 2-D
    // stencil halves the insertions but does not win back the compression; a scattered
    // random matrix does not pack at all.
    auto band = generate::banded<double, std::int32_t>(2000, 16);
    auto bp = cpu::spgemm_symbolic(band, band);
    CHECK(bp.compressed);
    CHECK(bp.compression_ratio < 0.15);
    auto s = generate::stencil_2d<double, std::int32_t>(60);
    auto sp = cpu::spgemm_symbolic(s, s);
    CHECK(sp.compression_ratio < 0.85);
    CHECK_FALSE(sp.compressed);
    auto r = generate::random_uniform<double, std::int32_t>(3000, 3000000, 8, 5);
    auto rt = transpose(r);
    auto rp = cpu::spgemm_symbolic(r, rt);
    CHECK_FALSE(rp.compressed);
    CHECK(rp.compression_ratio > 0.85);
}

TEST_CASE("meta-algorithm picks dense for few columns and hash for many", "[spgemm][cpu]") {
    SpgemmOptions o;
    const auto small = cpu::choose_spgemm_accumulator({1000, 50, 4, 8}, o);
    CHECK(small.accumulator == SpgemmAccumulator::dense);
    const auto large = cpu::choose_spgemm_accumulator({10'000'000, 50, 4, 8}, o);
    CHECK(large.accumulator == SpgemmAccumulator::hash);
    CHECK_THAT(large.reason, Catch::Contains("hash"));
    // Rows nearly k long: a hash accumulator would be larger than a dense one.
    const auto full = cpu::choose_spgemm_accumulator({10'000'000, 9'000'000, 4, 8}, o);
    CHECK(full.accumulator == SpgemmAccumulator::dense);
    o.accumulator = SpgemmAccumulator::hash;
    CHECK(cpu::choose_spgemm_accumulator({1000, 50, 4, 8}, o).accumulator ==
          SpgemmAccumulator::hash);
    // The plan records the choice and the compressed symbolic phase sees k/32 columns.
    auto a = generate::random_uniform<double, std::int32_t>(100, 5'000'000, 3, 7);
    auto b = generate::random_uniform<double, std::int32_t>(20'000, 100, 3, 8);
    auto plan = cpu::spgemm_symbolic(b, a);  // C is 20k x 5M
    CHECK(plan.numeric_accumulator == SpgemmAccumulator::hash);
    CHECK_THAT(plan.describe(), Catch::Contains("numeric hash"));
}

TEST_CASE("memory pool hands each chunk to one holder at a time", "[spgemm][cpu]") {
    cpu::SpgemmMemoryPool one(4, 100);
    CHECK(one.chunk_bytes() == 128);
    void* c0 = one.acquire(0);
    void* c1 = one.acquire(1);
    CHECK(c0 != c1);
    CHECK(reinterpret_cast<std::uintptr_t>(c1) % 64 == 0);
    CHECK_THROWS(one.acquire(0));  // one_to_one: chunk 0 is held
    one.release(c0);
    CHECK(one.acquire(0) == c0);

    // many_to_many: 8 threads share 3 chunks; a holder writes its id into the chunk and
    // checks that nobody else did, and never more than 3 hold a chunk at once.
    cpu::SpgemmMemoryPool many(3, 64, cpu::SpgemmMemoryPool::Mode::many_to_many);
    std::atomic<int> holding{0}, violations{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            for (int r = 0; r < 2000; ++r) {
                auto* p = static_cast<volatile int*>(many.acquire(t));
                if (holding.fetch_add(1) >= 3) ++violations;
                *p = t;
                for (int spin = 0; spin < 50; ++spin)
                    if (*p != t) ++violations;
                holding.fetch_sub(1);
                many.release(const_cast<int*>(p));
            }
        });
    for (auto& th : threads) th.join();
    CHECK(violations.load() == 0);
}
