// The cpu kernels compiled once per x86-64 level, as each level's namespace declares them
// (tessel::cpu::isa_generic, isa_avx2, isa_avx512; core/cpu/isa_region.hpp). They assume
// their arguments checked: only the entry points of namespace tessel::cpu call them.
#pragma once

#include <cstdint>

#include "core/dense.hpp"
#include "core/formats/csr.hpp"
#include "core/formats/tiled_ell.hpp"
#include "core/kernels/backprojection.hpp"
#include "core/kernels/epilogue.hpp"
#include "core/kernels/spgemm.hpp"
#include "core/kernels/tiled_ell_tiles.hpp"

// One list for the three namespaces, so that they cannot drift apart.
#define TESSEL_CPU_VARIANT_KERNELS                                                                             \
    const char* compiled_level();                                                                              \
    template <typename V, typename I>                                                                          \
    void spmm_row_split(const Csr<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep);      \
    template <typename V, typename I>                                                                          \
    void spmm_merge(const Csr<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep);          \
    template <typename V, typename I>                                                                          \
    void spmm_tiled_ell(const TiledEll<V, I>& a, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep,  \
                        int register_factor);                                                                  \
    template <typename V, typename I>                                                                          \
    void spmm_tiled_ell_transposed(const TiledEll<V, I>& a, DenseView<const V> b, DenseView<V> c,             \
                                   const Epilogue<V>& ep, int register_factor);                                \
    template <typename V, typename I>                                                                          \
    void spmm_tiled_ell_tiles(const TiledEll<V, I>& a, TileBatchView<const V> in, TileBatchView<V> out,       \
                              const Epilogue<V>& ep, std::uint64_t* live_masks, const size_type* from);        \
    template <typename V, typename I>                                                                          \
    void spmm_tiled_ell_tiles_sparse(const TiledEll<V, I>& a, const Csr<V, I>& bt, const std::int64_t* ids,   \
                                     TileBatchView<V> out, const Epilogue<V>& ep, std::uint64_t* live_masks);  \
    template <typename V, typename I>                                                                          \
    SpgemmPlan spgemm_symbolic(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options);          \
    template <typename V, typename I>                                                                          \
    void spgemm_numeric(const SpgemmPlan& plan, const Csr<V, I>& a, const Csr<V, I>& b, Csr<V, I>& c);        \
    template <typename V, typename I>                                                                          \
    Csr<V, I> spgemm_pattern(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options);         \
    template <typename V>                                                                                      \
    void backproject(DenseView<const V> s, const ParallelBeam& scan, DenseView<V> image);

namespace tessel::cpu::isa_generic {
TESSEL_CPU_VARIANT_KERNELS
}  // namespace tessel::cpu::isa_generic

namespace tessel::cpu::isa_avx2 {
TESSEL_CPU_VARIANT_KERNELS
}  // namespace tessel::cpu::isa_avx2

namespace tessel::cpu::isa_avx512 {
TESSEL_CPU_VARIANT_KERNELS
}  // namespace tessel::cpu::isa_avx512

#undef TESSEL_CPU_VARIANT_KERNELS
