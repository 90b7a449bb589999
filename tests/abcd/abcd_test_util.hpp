// Helpers of the tessel-abcd tests: small hand-made problems and the single-process run
// checked against the dense reference.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "apps/ccsd_abcd/executor/executor.hpp"
#include "apps/ccsd_abcd/inspector/inspector.hpp"
#include "apps/ccsd_abcd/problem/problem.hpp"
#include "apps/ccsd_abcd/results/dense_verification.hpp"
#include "io/hdf5_file.hpp"

namespace tessel::abcd::test {

/// A file with the problem layout, written field by field so that it can be wrong on purpose
/// (tilings, their sizes, one tile in A and one in B).
inline void write_raw(const std::string& path, std::vector<std::int64_t> a_rows, std::vector<std::int64_t> a_cols,
                      std::vector<std::int64_t> b_rows, std::vector<std::int64_t> b_cols, std::int64_t m,
                      std::int64_t k, std::int64_t n) {
    io::File f = io::File::create(path);
    f.write_attribute("/", "format", "tessel-abcd problem");
    for (auto [name, v] : {std::pair{"/a/row_tiling", &a_rows}, std::pair{"/a/col_tiling", &a_cols},
                           std::pair{"/b/row_tiling", &b_rows}, std::pair{"/b/col_tiling", &b_cols}})
        f.write<std::int64_t>(name, {static_cast<size_type>(v->size())}, v->data());
    f.write_attribute<std::int64_t>("/a", "rows", m);
    f.write_attribute<std::int64_t>("/a", "cols", k);
    f.write_attribute<std::int64_t>("/b", "rows", k);
    f.write_attribute<std::int64_t>("/b", "cols", n);
    const std::vector<std::int64_t> one{0, 0};
    f.write<std::int64_t>("/a/tiles", {1, 2}, one.data());
    f.write<std::int64_t>("/b/tiles", {1, 2}, one.data());
    f.commit();
}

/// A problem from tile sizes and non-zero tile lists, values from the seeded function.
inline Problem hand_problem(std::vector<size_type> m, std::vector<size_type> k, std::vector<size_type> n,
                            std::vector<std::pair<size_type, size_type>> a_tiles,
                            std::vector<std::pair<size_type, size_type>> b_tiles, std::uint64_t seed = 3) {
    Tiling mt = Tiling::from_sizes(std::move(m)), kt = Tiling::from_sizes(std::move(k)), nt = Tiling::from_sizes(std::move(n));
    TileShape a = TileShape::from_pairs(mt.count(), kt.count(), std::move(a_tiles), "A");
    TileShape b = TileShape::from_pairs(kt.count(), nt.count(), std::move(b_tiles), "B");
    Problem p = make_problem(mt, kt, std::move(a), kt, nt, std::move(b));
    p.seed = seed;
    p.values = std::make_shared<GeneratedTiles>(seed, p.m_tiling, p.k_tiling, p.n_tiling);
    p.description = "hand-made";
    return p;
}

/// The values of another source, not recognisably the generated function: the cuda executor
/// makes such B tiles on the host and copies them up, as for tiles stored in a file.
class HostOnlyTiles final : public TileSource {
public:
    explicit HostOnlyTiles(std::shared_ptr<const TileSource> inner) : inner_(std::move(inner)) {}
    void fill(Operand w, size_type i, size_type j, double* out) const override { inner_->fill(w, i, j, out); }
    void fill(Operand w, size_type i, size_type j, float* out) const override { inner_->fill(w, i, j, out); }
    std::string describe() const override { return "host only (" + inner_->describe() + ")"; }

private:
    std::shared_ptr<const TileSource> inner_;
};

/// Inspector options for one process with the given budget.
inline InspectorOptions one_process(size_type budget, Precision precision = Precision::float64) {
    InspectorOptions o;
    o.device_memory = budget;
    o.precision = precision;
    return o;
}

/// Runs the cpu executor on one process (no MPI) and returns its result, the plan and the
/// verification against the dense reference.
template <typename T>
struct SerialRun {
    Plan plan;
    ExecutionResult result;
    Verification check;
};

template <typename T>
SerialRun<T> run_serial(const Problem& p, const InspectorOptions& io) {
    SerialRun<T> run;
    run.plan = inspect(p, io);
    auto a = make_local_a<T>(p, run.plan.grid, 0);
    TileStore<T> c;
    ExecutorOptions eo;
    eo.backend = Backend::cpu;
    run.result = execute<T>(p, run.plan, a, c, eo);
    run.check = verify_dense<T>(p, run.plan.product.c_shape, c);
    return run;
}

}  // namespace tessel::abcd::test
