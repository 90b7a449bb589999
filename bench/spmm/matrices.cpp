// Built-in matrix sets and the one place that turns a MatrixSpec into a CSR matrix.
#include "bench/spmm/matrices.hpp"

#include <cmath>
#include <filesystem>

#include "bench/common/input_matrix.hpp"
#include "core/error.hpp"
#include "core/generators.hpp"
#ifdef TESSEL_BENCH_HAVE_IO
#include "io/matrix_market.hpp"
#endif

namespace tessel::bench {

namespace {
size_type grid_side(size_type rows) {
    return std::max<size_type>(1, static_cast<size_type>(std::llround(std::sqrt(double(rows)))));
}
}  // namespace

std::string MatrixSpec::label() const {
    if (kind == "file") return std::filesystem::path(path).filename().string();
    if (kind == "stencil") {
        const auto n = grid_side(size);
        return "stencil_2d " + std::to_string(n) + "x" + std::to_string(n);
    }
    if (kind == "banded") return "banded n=" + std::to_string(size) + " hw=" + std::to_string(per_row / 2);
    if (kind == "powerlaw") return "powerlaw n=" + std::to_string(size) + " mean=" + std::to_string(per_row);
    return kind + " n=" + std::to_string(size) + " per_row=" + std::to_string(per_row);
}

std::vector<MatrixSpec> builtin_matrices(bool quick) {
    const size_type n = quick ? size_type(1) << 16 : size_type(1) << 20;
    return {generator_spec("stencil", n, 5), generator_spec("banded", n, 8),
            generator_spec("random", n, 8), generator_spec("powerlaw", n, 8)};
}

MatrixSpec generator_spec(const std::string& kind, size_type size, size_type per_row) {
    if (kind != "stencil" && kind != "random" && kind != "powerlaw" && kind != "banded")
        TESSEL_INVALID_INPUT("--generator", 0,
                             "unknown generator '" + kind +
                                 "' (one of stencil, random, powerlaw, banded)");
    if (size < 1) TESSEL_INVALID_INPUT("--size", 0, "must be positive");
    if (per_row < 1) TESSEL_INVALID_INPUT("--per-row", 0, "must be positive");
    MatrixSpec spec;
    spec.kind = kind;
    spec.size = size;
    spec.per_row = per_row;
    return spec;
}

template <typename V>
Csr<V, Index> make_matrix(const MatrixSpec& spec) {
    if (spec.kind == "file") {
#ifdef TESSEL_BENCH_HAVE_IO
        auto a = io::read_matrix_market_csr<V, Index>(spec.path);
        require_nonempty(a, spec.path);
        if (!a.sorted()) a.sort_columns();
        return a;
#else
        TESSEL_THROW(NotCompiled, "--matrix " + spec.path +
                                      ": this build has no Matrix Market reader (tessel::io)");
#endif
    }
    if (spec.kind == "stencil") return generate::stencil_2d<V, Index>(grid_side(spec.size));
    if (spec.kind == "random")
        return generate::random_uniform<V, Index>(spec.size, spec.size, spec.per_row, 1);
    if (spec.kind == "powerlaw")
        return generate::power_law<V, Index>(spec.size, spec.size, double(spec.per_row), 2.5, 1);
    return generate::banded<V, Index>(spec.size, std::max<size_type>(1, spec.per_row / 2));
}

template Csr<float, Index> make_matrix<float>(const MatrixSpec&);
template Csr<double, Index> make_matrix<double>(const MatrixSpec&);

}  // namespace tessel::bench
