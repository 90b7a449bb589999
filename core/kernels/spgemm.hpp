// SpGEMM C := A·B for sparse A (m x n) and B (n x k), C m x k, in two phases (Deveci, Trott,
// Rajamanickam 2018, Gustavson's row-wise algorithm): the symbolic phase finds the structure
// of C and returns a SpgemmPlan; the numeric phase fills in the values and can be rerun with
// the same plan while only the values of A and B change. Declared once and implemented per
// backend (core/reference, core/cpu, core/cuda); the front door at the end picks the backend.
//
// Column order: inside a row of C the columns come out in the order the accumulator met
// them (unsorted) unless SpgemmOptions::sort_columns is set. The reference backend and
// cuda::spgemm_cusparse always sort. Entries whose products cancel to zero are kept.
//
// Every function throws DimensionMismatch when A.cols() != B.rows(), and InvalidInput when a
// plan is used with operands other than those it was made for. Instantiated for
// {float, double} x {int32_t, int64_t}.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/formats/csr.hpp"
#include "core/kernels/spmm.hpp"
#include "core/types.hpp"

namespace tessel {

/// The accumulator a phase uses for one row of C.
enum class SpgemmAccumulator {
    automatic,    ///< options only: the meta-algorithm decides
    dense,        ///< a k-sized array per thread (KKDENSE)
    hash,         ///< two-level hash: small first level in cache, second level from the pool (KKMEM)
    ordered_map,  ///< the reference backend's std::map per row
    cuda_hash,    ///< cuda: first level in shared memory, second level in global memory
    cusparse      ///< cuda: cusparseSpGEMM
};

/// Whether the symbolic phase packs B's rows into 32-column bit sets.
enum class SpgemmCompression {
    automatic,  ///< when it removes more than 15% of the insertions (the paper's 0.85 rule)
    always,
    never
};

std::string_view to_string(SpgemmAccumulator accumulator);

/// C has at most this many columns -> dense accumulators. The paper's cut-off is k < 250,000
/// on KNL; on Zen 4 (1 MiB L2 per core, 32 MiB L3) dense arrays of 32-bit positions still win
/// up to about 2M columns (8 MiB per thread), measured with bench/spgemm (docs/BENCHMARKS.md).
inline constexpr size_type spgemm_dense_column_limit = size_type(1) << 21;

/// Compression is used when (compressed insertions + its own two passes over B) / plain
/// insertions is at most this (the paper's 0.85 rule, with the compression's cost counted).
inline constexpr double spgemm_compression_threshold = 0.85;

/// Default slots of the first hash level per thread (it holds half as many entries).
inline constexpr size_type spgemm_hash_l1_slots = 4096;

struct SpgemmOptions {
    /// Sort the columns inside every row of C (default: accumulator order, unsorted).
    bool sort_columns = false;
    /// Force an accumulator for both phases (dense or hash); automatic: the meta-algorithm.
    SpgemmAccumulator accumulator = SpgemmAccumulator::automatic;
    SpgemmCompression compression = SpgemmCompression::automatic;
    /// Meta-algorithm: dense accumulators when the (compressed) column count is at most this.
    size_type dense_column_limit = spgemm_dense_column_limit;
    /// Compression pays when it (with its own cost) leaves at most this fraction of the work.
    double compression_threshold = spgemm_compression_threshold;
    /// Slots of the first hash level per thread (a power of two >= 16); rows with more
    /// than half as many entries spill to the second level.
    size_type hash_l1_slots = spgemm_hash_l1_slots;
};

/// The result of the symbolic phase: the structure of C (row pointers, hence per-row sizes)
/// and what the numeric phase needs (accumulator, scratch sizes, load-balanced row blocks).
struct SpgemmPlan {
    Backend backend = Backend::reference;  ///< the backend whose numeric phase runs it
    size_type rows = 0;                    ///< m: rows of A and C
    size_type inner = 0;                   ///< n: columns of A, rows of B
    size_type cols = 0;                    ///< k: columns of B and C
    size_type a_nnz = 0, b_nnz = 0;        ///< the operand patterns it was made for
    std::vector<size_type> row_ptr{0};     ///< C's row pointers (rows + 1 entries)
    size_type flops = 0;                   ///< multiplications of A·B
    size_type max_row_flops = 0;           ///< MAXRF: most multiplications of one row
    size_type max_row_nnz = 0;             ///< MAXRS: longest row of C
    SpgemmAccumulator symbolic_accumulator = SpgemmAccumulator::ordered_map;
    SpgemmAccumulator numeric_accumulator = SpgemmAccumulator::ordered_map;
    bool compressed = false;            ///< the symbolic phase ran on B as 32-column bit sets
    double compression_ratio = 1.0;     ///< CF: insertions with compression / without
    size_type hash_l1_slots = 0;        ///< first hash level per thread (numeric phase)
    size_type hash_l2_slots = 0;        ///< second-level chunk per thread (0: never needed)
    size_type scratch_bytes = 0;        ///< numeric accumulator memory per thread
    std::vector<size_type> row_blocks;  ///< cpu: block b is rows [row_blocks[b], row_blocks[b+1])
    bool prefetch_b_rows = false;       ///< cpu: A names rows of B far apart, prefetch them
    bool sort_columns = false;          ///< the numeric phase sorts each row
    std::string reason;                 ///< why the meta-algorithm chose the accumulators

    size_type nnz() const { return row_ptr.back(); }
    /// Size of row i of C.
    size_type row_nnz(size_type i) const { return row_ptr[i + 1] - row_ptr[i]; }
    /// One line for --verbose: backend, accumulators, compression, sizes and the reason.
    std::string describe() const;
};

namespace reference {

/// The oracle's symbolic phase: a std::set per row.
template <typename ValueType, typename IndexType>
SpgemmPlan spgemm_symbolic(const Csr<ValueType, IndexType>& a, const Csr<ValueType, IndexType>& b);

/// The oracle's numeric phase: a std::map per row, columns sorted. C is rebuilt. Throws
/// InvalidInput when the rows it finds do not have the sizes of the plan.
template <typename ValueType, typename IndexType>
void spgemm_numeric(const SpgemmPlan& plan, const Csr<ValueType, IndexType>& a,
                    const Csr<ValueType, IndexType>& b, Csr<ValueType, IndexType>& c);

/// C := A·B, columns sorted, by the obvious serial loop.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> spgemm(const Csr<ValueType, IndexType>& a,
                                 const Csr<ValueType, IndexType>& b);

/// The boolean product: the pattern of A·B with every value 1, columns sorted.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> spgemm_pattern(const Csr<ValueType, IndexType>& a,
                                         const Csr<ValueType, IndexType>& b);

}  // namespace reference

namespace cpu {

/// Symbolic phase: row flops, the 0.85 compression rule, the meta-algorithm's choice of
/// accumulators, then the size of every row of C (OpenMP over flop-balanced row blocks).
template <typename ValueType, typename IndexType>
SpgemmPlan spgemm_symbolic(const Csr<ValueType, IndexType>& a, const Csr<ValueType, IndexType>& b,
                           const SpgemmOptions& options = {});

/// Numeric phase: C := A·B with the structure of `plan`. When C already has the plan's shape
/// and row pointers it is taken to hold this product's pattern from an earlier call (the
/// reuse case): only its values are recomputed, in place, its columns kept. Otherwise C is
/// rebuilt (columns unsorted unless the plan's options asked for sorting).
template <typename ValueType, typename IndexType>
void spgemm_numeric(const SpgemmPlan& plan, const Csr<ValueType, IndexType>& a,
                    const Csr<ValueType, IndexType>& b, Csr<ValueType, IndexType>& c);

/// Both phases.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> spgemm(const Csr<ValueType, IndexType>& a,
                                 const Csr<ValueType, IndexType>& b,
                                 const SpgemmOptions& options = {});

/// The boolean product (values 1): the symbolic phase run twice, the second time writing the
/// columns (from the bit sets when B is compressed); no floating-point work.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> spgemm_pattern(const Csr<ValueType, IndexType>& a,
                                         const Csr<ValueType, IndexType>& b,
                                         const SpgemmOptions& options = {});

}  // namespace cpu

namespace cuda {

/// True when this build has CUDA and a device is present (never throws).
bool device_available();

// Host-level entry points: copy the operands to the device, run, copy the result back.
// Without CUDA in the build they throw NotCompiled.

/// Symbolic phase on the device: one warp per row, hash sets with the first level in shared
/// memory and the second in global memory (chunks of a memory pool).
template <typename ValueType, typename IndexType>
SpgemmPlan spgemm_symbolic(const Csr<ValueType, IndexType>& a, const Csr<ValueType, IndexType>& b,
                           const SpgemmOptions& options = {});

/// Numeric phase on the device with the same two-level hash maps; C rebuilt, or only its
/// values when it already has the plan's row pointers (as cpu::spgemm_numeric).
template <typename ValueType, typename IndexType>
void spgemm_numeric(const SpgemmPlan& plan, const Csr<ValueType, IndexType>& a,
                    const Csr<ValueType, IndexType>& b, Csr<ValueType, IndexType>& c);

/// Both phases on the device.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> spgemm(const Csr<ValueType, IndexType>& a,
                                 const Csr<ValueType, IndexType>& b,
                                 const SpgemmOptions& options = {});

/// The baseline: cuSPARSE cusparseSpGEMM (columns sorted). Throws InvalidInput when the
/// sizes need more than 32-bit indices, which cusparseSpGEMM does not take.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> spgemm_cusparse(const Csr<ValueType, IndexType>& a,
                                          const Csr<ValueType, IndexType>& b);

}  // namespace cuda

// ---- Front door -------------------------------------------------------------------------

/// Symbolic phase on a backend (automatic: cuda when a device is present, else cpu).
/// Throws DimensionMismatch, NotCompiled, CudaError.
template <typename ValueType, typename IndexType>
SpgemmPlan spgemm_symbolic(const Csr<ValueType, IndexType>& a, const Csr<ValueType, IndexType>& b,
                           const SpgemmOptions& options = {}, Backend backend = Backend::automatic) {
    switch (resolve_backend(backend)) {
    case Backend::reference: return reference::spgemm_symbolic(a, b);
    case Backend::cuda: return cuda::spgemm_symbolic(a, b, options);
    default: return cpu::spgemm_symbolic(a, b, options);
    }
}

/// Numeric phase on the backend that made the plan: C := A·B (see cpu::spgemm_numeric for
/// the reuse case). Throws DimensionMismatch, InvalidInput, NotCompiled, CudaError.
template <typename ValueType, typename IndexType>
void spgemm_numeric(const SpgemmPlan& plan, const Csr<ValueType, IndexType>& a,
                    const Csr<ValueType, IndexType>& b, Csr<ValueType, IndexType>& c) {
    switch (plan.backend) {
    case Backend::reference: reference::spgemm_numeric(plan, a, b, c); break;
    case Backend::cuda: cuda::spgemm_numeric(plan, a, b, c); break;
    default: cpu::spgemm_numeric(plan, a, b, c); break;
    }
}

/// C := A·B, both phases on one backend. Throws DimensionMismatch, NotCompiled, CudaError.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> spgemm(const Csr<ValueType, IndexType>& a,
                                 const Csr<ValueType, IndexType>& b,
                                 const SpgemmOptions& options = {},
                                 Backend backend = Backend::automatic) {
    switch (resolve_backend(backend)) {
    case Backend::reference: return reference::spgemm(a, b);
    case Backend::cuda: return cuda::spgemm(a, b, options);
    default: return cpu::spgemm(a, b, options);
    }
}

/// The boolean product (pattern of A·B, values 1), for shapes. The cuda backend computes the
/// values and overwrites them with 1. Throws DimensionMismatch, NotCompiled, CudaError.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> spgemm_pattern(const Csr<ValueType, IndexType>& a,
                                         const Csr<ValueType, IndexType>& b,
                                         const SpgemmOptions& options = {},
                                         Backend backend = Backend::automatic) {
    switch (resolve_backend(backend)) {
    case Backend::reference: return reference::spgemm_pattern(a, b);
    case Backend::cuda: {
        auto c = cuda::spgemm(a, b, options);
        for (auto& v : c.values_mut()) v = ValueType(1);
        return c;
    }
    default: return cpu::spgemm_pattern(a, b, options);
    }
}

/// Multiplications of every row of A·B: flops_i = Σ_{j ∈ A(i,:)} nnz(B(j,:)).
/// Throws DimensionMismatch.
template <typename ValueType, typename IndexType>
std::vector<size_type> spgemm_row_flops(const Csr<ValueType, IndexType>& a,
                                        const Csr<ValueType, IndexType>& b) {
    TESSEL_ENSURE_DIMS(a.cols() == b.rows(), "spgemm_row_flops: A has " +
                                                 std::to_string(a.cols()) + " columns, B " +
                                                 std::to_string(b.rows()) + " rows");
    std::vector<size_type> flops(static_cast<std::size_t>(a.rows()), 0);
    for (size_type i = 0; i < a.rows(); ++i)
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e)
            flops[i] += b.row_nnz(a.col_idx()[e]);
    return flops;
}

/// Multiplications landing in every column of A·B: flops_c = Σ_{B(j,c) ≠ 0} nnz(A(:,j)).
/// Throws DimensionMismatch.
template <typename ValueType, typename IndexType>
std::vector<size_type> spgemm_column_flops(const Csr<ValueType, IndexType>& a,
                                           const Csr<ValueType, IndexType>& b) {
    TESSEL_ENSURE_DIMS(a.cols() == b.rows(), "spgemm_column_flops: A has " +
                                                 std::to_string(a.cols()) + " columns, B " +
                                                 std::to_string(b.rows()) + " rows");
    std::vector<size_type> a_col_count(static_cast<std::size_t>(a.cols()), 0);
    for (auto j : a.col_idx()) ++a_col_count[j];
    std::vector<size_type> flops(static_cast<std::size_t>(b.cols()), 0);
    for (size_type j = 0; j < b.rows(); ++j)
        for (size_type e = b.row_ptr()[j]; e < b.row_ptr()[j + 1]; ++e)
            flops[b.col_idx()[e]] += a_col_count[j];
    return flops;
}

}  // namespace tessel
