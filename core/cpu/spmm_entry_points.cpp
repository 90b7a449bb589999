// The cpu SpMM entry points (core/kernels/spmm_kernels.hpp, tiled_ell_tiles.hpp): each checks
// its operands once, then runs the kernel compiled for the level chosen at start-up
// (core/cpu/isa_dispatch.hpp).
#include <algorithm>
#include <iterator>
#include <string>

#include <omp.h>

#include "core/cpu/isa_dispatch.hpp"
#include "core/cpu/tiled_ell_design.hpp"
#include "core/error.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/kernels/tiled_ell_tiles.hpp"

namespace tessel::cpu {

namespace {

std::string shape(size_type rows, size_type cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

/// C := A·B or Aᵀ·B: `inner` rows of B, `outer` rows of C (A's cols and rows, or the reverse).
template <typename V>
void check_dense_operands(const char* kernel, size_type a_rows, size_type a_cols, size_type inner, size_type outer,
                          DenseView<const V> b, DenseView<V> c) {
    TESSEL_ENSURE_DIMS(inner == b.rows && outer == c.rows && b.cols == c.cols,
                       std::string(kernel) + ": A is " + shape(a_rows, a_cols) + ", B is " + shape(b.rows, b.cols) +
                           ", C is " + shape(c.rows, c.cols));
    TESSEL_ENSURE_DIMS(b.layout == Layout::row_major && c.layout == Layout::row_major,
                       std::string(kernel) + ": B and C must be row-major");
}

void check_register_factor(int r) {
    if (std::find(std::begin(register_factors), std::end(register_factors), r) == std::end(register_factors))
        TESSEL_INVALID_INPUT("register factor", 0,
                             std::to_string(r) + " is not one of the compiled factors 1, 2, 4, 8, 12, 16, 32, 64");
}

void check_tile_width(int width) {
    if (!tile_width_supported(width))
        TESSEL_INVALID_INPUT("tile width", 0,
                             std::to_string(width) + " is not one of the compiled tile widths 8, 12, 16, 32, 64");
}

}  // namespace

const char* dispatched_isa_name() { TESSEL_CPU_DISPATCH(compiled_level()); }

template <typename V, typename I>
void spmm_row_split(const Csr<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep) {
    check_dense_operands("cpu::spmm_row_split", a.rows(), a.cols(), a.cols(), a.rows(), b, c);
    TESSEL_CPU_DISPATCH(spmm_row_split(a, b, c, ep));
}

template <typename V, typename I>
void spmm_merge(const Csr<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep) {
    check_dense_operands("cpu::spmm_merge", a.rows(), a.cols(), a.cols(), a.rows(), b, c);
    TESSEL_CPU_DISPATCH(spmm_merge(a, b, c, ep));
}

int choose_register_factor(size_type k) {
    // The smallest tile that holds every column reads A once; past 64 columns A is read once
    // per 64 (xct measured this on its operators: slices are cheap, passes over A are not).
    for (int r : {1, 2, 4, 8, 16, 32})
        if (k <= r) return r;
    return 64;
}

namespace {
// The factor asked for, or (0) the one chosen for k columns; checked either way.
int checked_register_factor(int register_factor, size_type k) {
    if (register_factor == 0) register_factor = choose_register_factor(k);
    check_register_factor(register_factor);
    return register_factor;
}
}  // namespace

template <typename V, typename I>
void spmm_tiled_ell(const TiledEll<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep,
                    int register_factor) {
    check_dense_operands("cpu::spmm_tiled_ell", a.rows, a.cols, a.cols, a.rows, b, c);
    register_factor = checked_register_factor(register_factor, b.cols);
    TESSEL_CPU_DISPATCH(spmm_tiled_ell(a, b, c, ep, register_factor));
}

template <typename V, typename I>
void spmm_tiled_ell_transposed(const TiledEll<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep,
                               int register_factor) {
    check_dense_operands("cpu::spmm_tiled_ell_transposed", a.rows, a.cols, a.rows, a.cols, b, c);
    register_factor = checked_register_factor(register_factor, b.cols);
    TESSEL_CPU_DISPATCH(spmm_tiled_ell_transposed(a, b, c, ep, register_factor));
}

template <typename V, typename I>
const char* tiled_ell_design(const TiledEll<V, I>& a, int register_factor) {
    return register_factor == 1 || detail::prefers_slot_order(a) ? "slot order" : "register tiles";
}

bool tile_width_supported(int width) {
    return std::find(std::begin(tile_widths), std::end(tile_widths), width) != std::end(tile_widths);
}

bool tiles_can_gather(size_type count, int width) {
    return (count + width - 1) / width >= 4 * omp_get_max_threads();
}

template <typename V, typename I>
void spmm_tiled_ell_tiles(const TiledEll<V, I>& a, TileBatchView<const V> in, TileBatchView<V> out,
                          const Epilogue<V>& ep, std::uint64_t* live_masks, const size_type* from) {
    TESSEL_ENSURE_DIMS(a.cols == in.rows && a.rows == out.rows && in.width == out.width &&
                           (from || in.count == out.count),
                       "spmm_tiled_ell_tiles: A is " + shape(a.rows, a.cols) + ", input tiles " +
                           shape(in.rows, in.width) + ", output tiles " + shape(out.rows, out.width));
    check_tile_width(out.width);
    TESSEL_ENSURE_DIMS(!from || tiles_can_gather(out.count, out.width),
                       "spmm_tiled_ell_tiles: a gathered input needs many tiles");
    TESSEL_CPU_DISPATCH(spmm_tiled_ell_tiles(a, in, out, ep, live_masks, from));
}

template <typename V, typename I>
void spmm_tiled_ell_tiles_sparse(const TiledEll<V, I>& a, const Csr<V, I>& bt, const std::int64_t* ids,
                                 TileBatchView<V> out, const Epilogue<V>& ep, std::uint64_t* live_masks) {
    TESSEL_ENSURE_DIMS(a.rows == out.rows && a.cols == bt.cols(),
                       "spmm_tiled_ell_tiles_sparse: A is " + shape(a.rows, a.cols) + ", the input has " +
                           std::to_string(bt.cols()) + " features, the output " + std::to_string(out.rows) +
                           " rows");
    check_tile_width(out.width);
    TESSEL_CPU_DISPATCH(spmm_tiled_ell_tiles_sparse(a, bt, ids, out, ep, live_masks));
}

#define TESSEL_INSTANTIATE(V, I)                                                                                 \
    template void spmm_row_split(const Csr<V, I>&, DenseView<const V>, DenseView<V>, const Epilogue<V>&);       \
    template void spmm_merge(const Csr<V, I>&, DenseView<const V>, DenseView<V>, const Epilogue<V>&);           \
    template void spmm_tiled_ell(const TiledEll<V, I>&, DenseView<const V>, DenseView<V>, const Epilogue<V>&,   \
                                 int);                                                                          \
    template void spmm_tiled_ell_transposed(const TiledEll<V, I>&, DenseView<const V>, DenseView<V>,            \
                                            const Epilogue<V>&, int);                                           \
    template const char* tiled_ell_design(const TiledEll<V, I>&, int);                                          \
    template void spmm_tiled_ell_tiles(const TiledEll<V, I>&, TileBatchView<const V>, TileBatchView<V>,          \
                                       const Epilogue<V>&, std::uint64_t*, const size_type*);                   \
    template void spmm_tiled_ell_tiles_sparse(const TiledEll<V, I>&, const Csr<V, I>&, const std::int64_t*,      \
                                              TileBatchView<V>, const Epilogue<V>&, std::uint64_t*);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cpu
