// Dense reference GEMM and relative error.
#include "apps/ccsd_abcd/results/dense_verification.hpp"

#include <omp.h>

#include <cmath>
#include <cstdio>
#include <type_traits>

#include "apps/ccsd_abcd/inspector/inspector.hpp"
#include "core/app/byte_size.hpp"
#include "core/error.hpp"
#include "core/kernels/gemm_kernels.hpp"
#include "core/timer.hpp"

namespace tessel::abcd {

namespace {
// Operand `which` as a dense column-major matrix (rows x cols), zeros outside its shape.
template <typename T>
std::vector<double> densify(const Problem& p, Operand which) {
    const TileShape& s = which == Operand::a ? p.a_shape : p.b_shape;
    const Tiling& rt = which == Operand::a ? p.m_tiling : p.k_tiling;
    const Tiling& ct = which == Operand::a ? p.k_tiling : p.n_tiling;
    const size_type ld = rt.extent();
    std::vector<double> d(static_cast<std::size_t>(rt.extent() * ct.extent()), 0.0);
#pragma omp parallel for schedule(dynamic, 1)
    for (size_type e = 0; e < s.nnz(); ++e) {
        const size_type i = s.row_of(e), j = s.col_idx()[e];
        const size_type m = rt.size(i), n = ct.size(j);
        std::vector<T> tile(static_cast<std::size_t>(m * n));
        p.values->fill(which, i, j, tile.data());
        for (size_type c = 0; c < n; ++c)
            for (size_type r = 0; r < m; ++r)
                d[(ct.offset(j) + c) * ld + rt.offset(i) + r] = double(tile[c * m + r]);
    }
    return d;
}
}  // namespace

template <typename T>
Verification verify_dense(const Problem& p, const TileShape& cs, const TileStore<T>& c_tiles) {
    Timer timer;
    const double M = double(p.m()), K = double(p.k()), N = double(p.n());
    const double bytes = 8.0 * (M * K + K * N + 2 * M * N);
    if (bytes > verify_dense_limit_bytes)
        TESSEL_INVALID_INPUT("--verify", 0, "the dense reference needs " + app::format_bytes(bytes) +
                                                " (more than " + app::format_bytes(verify_dense_limit_bytes) +
                                                "); verify a smaller problem");
    const auto a = densify<T>(p, Operand::a);
    const auto b = densify<T>(p, Operand::b);
    std::vector<double> ref(static_cast<std::size_t>(p.m() * p.n()), 0.0);
    {
        cpu::BlasThreads all(omp_get_max_threads());
        cpu::gemm(p.m(), p.n(), p.k(), 1.0, a.data(), p.m(), b.data(), p.k(), 1.0, ref.data(), p.m());
    }
    // Subtract the block-sparse result tile by tile (in place: ref becomes the difference).
    double ref_norm2 = 0;
#pragma omp parallel for reduction(+ : ref_norm2)
    for (std::size_t x = 0; x < ref.size(); ++x) ref_norm2 += ref[x] * ref[x];
    for (size_type e = 0; e < cs.nnz(); ++e) {
        const size_type i = cs.row_of(e), c = cs.col_idx()[e];
        TESSEL_ENSURE_DIMS(static_cast<size_type>(c_tiles[e].size()) == p.m_tiling.size(i) * p.n_tiling.size(c),
                           "verify: tile (" + std::to_string(i) + ", " + std::to_string(c) + ") of C is missing");
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (size_type e = 0; e < cs.nnz(); ++e) {
        const size_type i = cs.row_of(e), c = cs.col_idx()[e];
        const size_type m = p.m_tiling.size(i), n = p.n_tiling.size(c);
        for (size_type cc = 0; cc < n; ++cc)
            for (size_type r = 0; r < m; ++r)
                ref[(p.n_tiling.offset(c) + cc) * p.m() + p.m_tiling.offset(i) + r] -= double(c_tiles[e][cc * m + r]);
    }
    double err2 = 0;
#pragma omp parallel for reduction(+ : err2)
    for (std::size_t x = 0; x < ref.size(); ++x) err2 += ref[x] * ref[x];
    Verification v;
    v.reference_norm = std::sqrt(ref_norm2);
    v.relative_error = v.reference_norm > 0 ? std::sqrt(err2) / v.reference_norm : std::sqrt(err2);
    v.tolerance = std::is_same_v<T, double> ? 1e-12 : 1e-4;
    v.passed = std::isfinite(v.relative_error) && v.relative_error <= v.tolerance;
    v.seconds = timer.seconds();
    return v;
}

std::string verification_failure(const Verification& v) {
    if (v.passed && std::isfinite(v.relative_error) && v.relative_error <= v.tolerance) return "";
    char line[160];
    std::snprintf(line, sizeof line, "verify: relative error %.3g against the dense reference is not within the tolerance %.0e",
                  v.relative_error, v.tolerance);
    return line;
}

template Verification verify_dense<double>(const Problem&, const TileShape&, const TileStore<double>&);
template Verification verify_dense<float>(const Problem&, const TileShape&, const TileStore<float>&);

}  // namespace tessel::abcd
