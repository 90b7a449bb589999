// Reference SpMM on tiled ELL, written on the format's own arrays: the oracle of the tiled
// kernels and a check of the builder (it never converts to CSR).
#include <vector>

#include "core/instantiate.hpp"
#include "core/kernels/spmm_kernels.hpp"

namespace tessel::reference {

template <typename V, typename I>
void spmm(const TiledEll<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& epilogue) {
    check_spmm_dims(a.rows, a.cols, b, c);
    constexpr size_type w = TiledEll<V, I>::warp_size;
    const size_type warps = a.warps_per_block();
    std::vector<V> sum(static_cast<std::size_t>(a.config.block_rows));
    for (size_type blk = 0; blk < a.num_blocks(); ++blk) {
        const size_type first_row = blk * a.config.block_rows;
        for (size_type j = 0; j < b.cols; ++j) {
            std::fill(sum.begin(), sum.end(), V{0});
            for (size_type s = a.buffdispl[blk]; s < a.buffdispl[blk + 1]; ++s)
                for (size_type wi = 0; wi < warps; ++wi)
                    for (size_type m = a.warpdispl[s * warps + wi]; m < a.warpdispl[s * warps + wi + 1]; ++m)
                        for (size_type lane = 0; lane < w; ++lane) {
                            const size_type col = a.map[a.mapdispl[s] + a.index[m * w + lane]];
                            sum[wi * w + lane] += a.value(m * w + lane) * b(col, j);
                        }
            for (size_type r = 0; r < a.config.block_rows && first_row + r < a.rows; ++r)
                c(first_row + r, j) = epilogue.apply(sum[r], c(first_row + r, j));
        }
    }
}

template <typename V, typename I>
void spmm_transposed(const TiledEll<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& epilogue) {
    TESSEL_ENSURE_DIMS(a.rows == b.rows && a.cols == c.rows && b.cols == c.cols,
                       "spmm_transposed: A is " + std::to_string(a.rows) + "x" + std::to_string(a.cols) + ", B is " +
                           std::to_string(b.rows) + "x" + std::to_string(b.cols) + ", C is " +
                           std::to_string(c.rows) + "x" + std::to_string(c.cols));
    constexpr size_type w = TiledEll<V, I>::warp_size;
    const size_type warps = a.warps_per_block();
    std::vector<V> sum(static_cast<std::size_t>(a.cols));
    for (size_type j = 0; j < b.cols; ++j) {
        std::fill(sum.begin(), sum.end(), V{0});
        for (size_type blk = 0; blk < a.num_blocks(); ++blk)
            for (size_type s = a.buffdispl[blk]; s < a.buffdispl[blk + 1]; ++s)
                for (size_type wi = 0; wi < warps; ++wi)
                    for (size_type m = a.warpdispl[s * warps + wi]; m < a.warpdispl[s * warps + wi + 1]; ++m)
                        for (size_type lane = 0; lane < w; ++lane) {
                            const size_type row = blk * a.config.block_rows + wi * w + lane;
                            if (row >= a.rows) continue;  // padding lanes of the last block
                            const size_type col = a.map[a.mapdispl[s] + a.index[m * w + lane]];
                            sum[col] += a.value(m * w + lane) * b(row, j);
                        }
        for (size_type p = 0; p < a.cols; ++p) c(p, j) = epilogue.apply(sum[p], c(p, j));
    }
}

#define TESSEL_INSTANTIATE(V, I) \
    template void spmm(const TiledEll<V, I>&, DenseView<const V>, DenseView<V>, const Epilogue<V>&); \
    template void spmm_transposed(const TiledEll<V, I>&, DenseView<const V>, DenseView<V>, const Epilogue<V>&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::reference
