// Tile-level symbolic product through core's SpGEMM (pattern, weighted and counting products).
#include "apps/ccsd_abcd/inspector/symbolic_product.hpp"

#include <omp.h>

#include <cmath>

#include "core/kernels/spgemm.hpp"

namespace tessel::abcd {

SymbolicProduct symbolic_product(const Problem& p) {
    SpgemmOptions opt;
    opt.sort_columns = true;
    const auto a_unit = p.a_shape.to_csr([](size_type, size_type) { return 1.0; });
    const auto b_unit = p.b_shape.to_csr([](size_type, size_type) { return 1.0; });
    // Small tile-level products run on one thread: waking a team costs more than the work.
    size_type products = 0;
    for (auto f : spgemm_row_flops(a_unit, b_unit)) products += f;
    const int threads = omp_get_max_threads();
    if (products < 200000) omp_set_num_threads(1);
    struct Restore {
        int threads;
        ~Restore() { omp_set_num_threads(threads); }
    } restore{threads};
    const auto pattern = spgemm_pattern(a_unit, b_unit, opt, Backend::cpu);
    SymbolicProduct out;
    out.c_shape = TileShape::from_csr(pattern);

    const auto a_w = p.a_shape.to_csr([&](size_type i, size_type k) {
        return double(p.m_tiling.size(i)) * double(p.k_tiling.size(k));
    });
    const auto b_w = p.b_shape.to_csr([&](size_type, size_type c) { return double(p.n_tiling.size(c)); });
    const auto weighted = spgemm(a_w, b_w, opt, Backend::cpu);
    const auto counts = spgemm(a_unit, b_unit, opt, Backend::cpu);

    out.tile_flops.assign(static_cast<std::size_t>(out.c_shape.nnz()), 0.0);
    out.tile_gemms.assign(static_cast<std::size_t>(out.c_shape.nnz()), 0);
    for (size_type i = 0; i < weighted.rows(); ++i)
        for (size_type e = weighted.row_ptr()[i]; e < weighted.row_ptr()[i + 1]; ++e) {
            const size_type pos = out.c_shape.find(i, weighted.col_idx()[e]);
            out.tile_flops[pos] = 2.0 * weighted.values()[e];
        }
    for (size_type i = 0; i < counts.rows(); ++i)
        for (size_type e = counts.row_ptr()[i]; e < counts.row_ptr()[i + 1]; ++e) {
            const size_type pos = out.c_shape.find(i, counts.col_idx()[e]);
            out.tile_gemms[pos] = static_cast<size_type>(std::llround(counts.values()[e]));
        }
    for (auto f : out.tile_flops) out.flops += f;
    for (auto g : out.tile_gemms) out.gemms += g;
    out.kernel = "core SpGEMM, cpu backend: boolean product (spgemm_pattern) for the shape of C, weighted and counting products (spgemm) for flops and GEMMs";
    return out;
}

std::vector<double> column_flops(const SymbolicProduct& product, size_type row, size_type p) {
    const TileShape& c = product.c_shape;
    std::vector<double> f(static_cast<std::size_t>(c.cols()), 0.0);
    for (size_type i = row; i < c.rows(); i += p)
        for (size_type e = c.row_ptr()[i]; e < c.row_ptr()[i + 1]; ++e) f[c.col_idx()[e]] += product.tile_flops[e];
    return f;
}

}  // namespace tessel::abcd
