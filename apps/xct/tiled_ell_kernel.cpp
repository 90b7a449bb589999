// Slot-order tiled ELL SpMM for CPUs.
#include "apps/xct/tiled_ell_kernel.hpp"

#include <algorithm>
#include <vector>

#include "core/aligned_allocator.hpp"
#include "core/error.hpp"

namespace tessel::xct {

int choose_slot_register_factor(size_type k) {
    for (int r : {1, 2, 4, 8, 16, 32})
        if (k <= r) return r;
    return 64;
}

namespace {

constexpr size_type lanes_per_slot = 32;

// One block of rows for columns k0 .. k0 + R - 1 (columns beyond `width` are left out).
template <int R, typename V>
void block(const TiledEll<V, Index>& a, size_type blk, DenseView<const V> b, DenseView<V> c, size_type k0,
           size_type width, V* buf, V* acc) {
    const size_type warps = a.warps_per_block();
    const size_type first_row = blk * a.config.block_rows;
    const size_type rows = std::min(a.config.block_rows, a.rows - first_row);
    std::fill(acc, acc + rows * R, V{0});
    for (size_type s = a.buffdispl[blk]; s < a.buffdispl[blk + 1]; ++s) {
        const Index* map = a.map.data() + a.mapdispl[s];
        const size_type staged = a.mapdispl[s + 1] - a.mapdispl[s];
        if (width == R) {
            for (size_type e = 0; e < staged; ++e) {
                const V* src = b.data + static_cast<size_type>(map[e]) * b.ld + k0;
#pragma omp simd
                for (int k = 0; k < R; ++k) buf[e * R + k] = src[k];
            }
        } else {  // the last, narrower tile: zeros in the unused columns
            for (size_type e = 0; e < staged; ++e) {
                const V* src = b.data + static_cast<size_type>(map[e]) * b.ld + k0;
                for (int k = 0; k < R; ++k) buf[e * R + k] = k < width ? src[k] : V{0};
            }
        }
        const size_type* wd = a.warpdispl.data() + s * warps;
        constexpr size_type L = lanes_per_slot;
        for (size_type w = 0; w * L < rows; ++w) {
            V* out = acc + w * L * R;
            size_type m = wd[w];
            const size_type end = wd[w + 1];
            // Four slots per visit of a lane's accumulators: a quarter of their loads and stores
            // (the 4 x 32 values and indices stay in L1 meanwhile). R = 1 runs SIMD over the
            // lanes (contiguous values and indices, a gather from buf), R > 1 SIMD over the
            // columns; both evaluate the same expression per lane and column, so a slice gets
            // the same bits whatever the number of slices beside it.
            for (; m + 4 <= end; m += 4) {
                const V* val = a.values.data() + m * L;
                const std::uint16_t* idx = a.index.data() + m * L;
                if constexpr (R == 1) {
#pragma omp simd
                    for (size_type lane = 0; lane < L; ++lane)
                        out[lane] += val[lane] * buf[idx[lane]] + val[L + lane] * buf[idx[L + lane]] +
                                     val[2 * L + lane] * buf[idx[2 * L + lane]] +
                                     val[3 * L + lane] * buf[idx[3 * L + lane]];
                } else {
                    for (size_type lane = 0; lane < L; ++lane) {
                        V* o = out + lane * R;
                        const V v0 = val[lane], v1 = val[L + lane], v2 = val[2 * L + lane], v3 = val[3 * L + lane];
                        const V* x0 = buf + static_cast<size_type>(idx[lane]) * R;
                        const V* x1 = buf + static_cast<size_type>(idx[L + lane]) * R;
                        const V* x2 = buf + static_cast<size_type>(idx[2 * L + lane]) * R;
                        const V* x3 = buf + static_cast<size_type>(idx[3 * L + lane]) * R;
#pragma omp simd
                        for (int k = 0; k < R; ++k) o[k] += v0 * x0[k] + v1 * x1[k] + v2 * x2[k] + v3 * x3[k];
                    }
                }
            }
            for (; m < end; ++m) {
                const V* val = a.values.data() + m * L;
                const std::uint16_t* idx = a.index.data() + m * L;
                if constexpr (R == 1) {
#pragma omp simd
                    for (size_type lane = 0; lane < L; ++lane) out[lane] += val[lane] * buf[idx[lane]];
                } else {
                    for (size_type lane = 0; lane < L; ++lane) {
                        const V v = val[lane];
                        const V* x = buf + static_cast<size_type>(idx[lane]) * R;
                        V* o = out + lane * R;
#pragma omp simd
                        for (int k = 0; k < R; ++k) o[k] += v * x[k];
                    }
                }
            }
        }
    }
    for (size_type r = 0; r < rows; ++r) {
        V* crow = c.data + (first_row + r) * c.ld + k0;
        const V* src = acc + r * R;
        for (size_type k = 0; k < width; ++k) crow[k] = src[k];
    }
}

template <int R, typename V>
void run(const TiledEll<V, Index>& a, DenseView<const V> b, DenseView<V> c) {
    const size_type staged_max = a.max_stage_entries();
    // Accumulators cover whole warps: padding lanes of the last warp write there harmlessly.
    const size_type acc_rows = (a.config.block_rows + lanes_per_slot - 1) / lanes_per_slot * lanes_per_slot;
    const size_type k = b.cols;
#pragma omp parallel
    {
        std::vector<V, AlignedAllocator<V>> buf(static_cast<std::size_t>(std::max<size_type>(1, staged_max) * R));
        std::vector<V, AlignedAllocator<V>> acc(static_cast<std::size_t>(acc_rows * R));
#pragma omp for schedule(dynamic, 1) collapse(2)
        for (size_type blk = 0; blk < a.num_blocks(); ++blk)
            for (size_type k0 = 0; k0 < k; k0 += R)
                block<R>(a, blk, b, c, k0, std::min<size_type>(R, k - k0), buf.data(), acc.data());
    }
}

}  // namespace

template <typename V>
void spmm_tiled_slots(const TiledEll<V, Index>& a, DenseView<const V> b, DenseView<V> c, int register_factor) {
    TESSEL_ENSURE_DIMS(a.cols == b.rows && a.rows == c.rows && b.cols == c.cols,
                       "spmm_tiled_slots: A is " + std::to_string(a.rows) + "x" + std::to_string(a.cols) + ", B is " +
                           std::to_string(b.rows) + "x" + std::to_string(b.cols) + ", C is " +
                           std::to_string(c.rows) + "x" + std::to_string(c.cols));
    TESSEL_ENSURE_DIMS(b.layout == Layout::row_major && c.layout == Layout::row_major,
                       "spmm_tiled_slots: B and C must be row-major");
    if (b.cols == 0 || a.rows == 0) return;
    if (register_factor == 0) register_factor = choose_slot_register_factor(b.cols);
    switch (register_factor) {
    case 1: return run<1>(a, b, c);
    case 2: return run<2>(a, b, c);
    case 4: return run<4>(a, b, c);
    case 8: return run<8>(a, b, c);
    case 16: return run<16>(a, b, c);
    case 32: return run<32>(a, b, c);
    case 64: return run<64>(a, b, c);
    default:
        TESSEL_INVALID_INPUT("register factor", 0,
                             std::to_string(register_factor) + " is not one of 1, 2, 4, 8, 16, 32, 64");
    }
}

template void spmm_tiled_slots(const TiledEll<float, Index>&, DenseView<const float>, DenseView<float>, int);
template void spmm_tiled_slots(const TiledEll<double, Index>&, DenseView<const double>, DenseView<double>, int);

}  // namespace tessel::xct
