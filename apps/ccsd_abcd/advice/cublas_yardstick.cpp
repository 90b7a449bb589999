// The cuBLAS rate at a product's tile shapes: its flops over the table's time of its GEMMs.
#include "apps/ccsd_abcd/advice/cublas_yardstick.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace tessel::abcd {

CublasYardstick cublas_yardstick(const Problem& p, const GemmRateTable& table, size_type square) {
    CublasYardstick y;
    std::unordered_map<std::uint64_t, double> seconds_of;  // tile sizes repeat: one lookup per shape
    const auto seconds = [&](size_type m, size_type n, size_type k) {
        const std::uint64_t key = (std::uint64_t(m) << 42) ^ (std::uint64_t(n) << 21) ^ std::uint64_t(k);
        auto it = seconds_of.find(key);
        if (it == seconds_of.end()) it = seconds_of.emplace(key, table.gemm_seconds(m, n, k)).first;
        return it->second;
    };
    const TileShape& as = p.a_shape;
    const TileShape& bs = p.b_shape;
    double flops = 0, time = 0;
    for (size_type i = 0; i < as.rows(); ++i)
        for (size_type e = as.row_ptr()[i]; e < as.row_ptr()[i + 1]; ++e) {
            const size_type k = as.col_idx()[e];
            for (size_type f = bs.row_ptr()[k]; f < bs.row_ptr()[k + 1]; ++f) {
                const size_type m = p.m_tiling.size(i), n = p.n_tiling.size(bs.col_idx()[f]), kk = p.k_tiling.size(k);
                flops += 2.0 * double(m) * double(n) * double(kk);
                time += seconds(m, n, kk);
            }
        }
    y.at_tiles = time > 0 ? flops / time : 0;
    y.square = std::min(square, table.sizes.back());
    y.at_square = y.square > 0 ? table.rate(y.square, y.square, y.square) : 0;
    return y;
}

}  // namespace tessel::abcd
