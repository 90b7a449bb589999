// Problem files: round trips with and without tiles, and every kind of bad file.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>

#include "abcd_test_util.hpp"
#include "apps/ccsd_abcd/problem/problem_file.hpp"
#include "apps/ccsd_abcd/problem/synthetic_generator.hpp"
#include "apps/ccsd_abcd/results/result_file.hpp"
#include "core/error.hpp"
#include "io/hdf5_file.hpp"

using namespace tessel;
using namespace tessel::abcd;
using test::write_raw;

namespace {
std::string temp(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("tessel-abcd-test-" + name)).string();
}
}  // namespace

TEST_CASE("problems round-trip through HDF5, with and without tiles", "[abcd]") {
    SyntheticOptions o;
    o.m = 300;
    o.n = 900;
    o.tile_min = 40;
    o.tile_max = 150;
    o.density_a = 0.5;
    o.density_b = 0.3;
    o.seed = 17;
    const Problem p = synthetic_problem(o);
    for (bool with_values : {false, true}) {
        const std::string path = temp(with_values ? "values.h5" : "shapes.h5");
        save_problem(p, path, with_values);
        const Problem q = load_problem(path);
        CHECK(q.m_tiling == p.m_tiling);
        CHECK(q.k_tiling == p.k_tiling);
        CHECK(q.n_tiling == p.n_tiling);
        CHECK(q.a_shape == p.a_shape);
        CHECK(q.b_shape == p.b_shape);
        CHECK(q.seed == 17);
        // The same tiles, whether generated again from the seed or read back.
        std::vector<double> x(static_cast<std::size_t>(p.k_tiling.size(1) * p.n_tiling.size(p.b_shape.col_idx()[p.b_shape.row_ptr()[1]]))), y(x.size());
        const size_type col = p.b_shape.col_idx()[p.b_shape.row_ptr()[1]];
        p.values->fill(Operand::b, 1, col, x.data());
        q.values->fill(Operand::b, 1, col, y.data());
        CHECK(x == y);
        const auto run = test::run_serial<double>(q, test::one_process(1 << 22));
        CHECK(run.check.relative_error <= 1e-12);
        std::remove(path.c_str());
    }
}

TEST_CASE("bad problem files give clear errors", "[abcd]") {
    const std::string path = temp("bad.h5");
    // A's columns and B's rows tiled differently.
    write_raw(path, {10}, {4, 6}, {5, 5}, {3}, 10, 10, 3);
    CHECK_THROWS_AS(load_problem(path), DimensionMismatch);
    CHECK_THROWS_WITH(load_problem(path), Catch::Contains("A has K = 10 columns") && Catch::Contains("the tilings must be the same"));
    // A tiling that does not cover its extent.
    write_raw(path, {6, 3}, {10}, {10}, {3}, 10, 10, 3);
    CHECK_THROWS_WITH(load_problem(path), Catch::Contains(":/a/row_tiling: tiles cover 9 of 10 indices"));
    // A zero tile size.
    write_raw(path, {10}, {10}, {10}, {0, 3}, 10, 10, 3);
    CHECK_THROWS_WITH(load_problem(path), Catch::Contains(":/b/col_tiling: tile 0 has size 0"));
    // Not a problem file at all.
    {
        io::File f = io::File::create(path);
        f.write_attribute("/", "format", "something else");
        f.commit();
    }
    CHECK_THROWS_WITH(load_problem(path), Catch::Contains("not a tessel-abcd problem file"));
    std::remove(path.c_str());
    CHECK_THROWS_AS(load_problem(temp("missing.h5")), InvalidInput);
}

TEST_CASE("results are written with shape and norms", "[abcd]") {
    const Problem p = test::hand_problem({3, 4}, {5}, {2, 6}, {{0, 0}, {1, 0}}, {{0, 1}});
    const auto run = test::run_serial<double>(p, test::one_process(1 << 20));
    const std::string path = temp("result.h5");
    const std::vector<double> norms(static_cast<std::size_t>(run.plan.product.c_shape.nnz()), 2.5);
    write_result<double>(path, p, run.plan.product.c_shape, norms, run.plan.product.flops, nullptr);
    const io::File f = io::File::open(path);
    CHECK(f.read<double>("/r/norms") == norms);
    CHECK(f.read<std::int64_t>("/r/tiles") == std::vector<std::int64_t>{0, 1, 1, 1});
    CHECK(f.read_attribute<std::int64_t>("/r", "cols") == 8);
    std::remove(path.c_str());
}
