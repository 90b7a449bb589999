// SpMM front door: picks the backend and the kernel (a visible, named decision) and runs it.
#pragma once

#include <string_view>

#include "core/kernels/spmm_kernels.hpp"
#include "core/backend.hpp"
#include "core/types.hpp"

namespace tessel {

enum class SpmmAlgorithm {
    automatic,
    reference,
    csr_row_split,
    csr_merge,
    tiled_ell,
    cuda_warp_row,
    cuda_merge,
    cusparse,
    cuda_tiled_ell
};

std::string_view to_string(SpmmAlgorithm algorithm);

/// Below this average row length the merge-based CSR kernel wins (Yang, Buluç, Owens 2018).
inline constexpr double merge_row_length_threshold = 9.35;


/// The CSR kernel for a backend: merge-based below merge_row_length_threshold, else row split.
SpmmAlgorithm choose_csr_algorithm(Backend backend, double average_row_length);

/// C := epilogue(A·B) with A in CSR. B and C may have any layout (cpu and cuda kernels run
/// on row-major copies when they are not row-major). Returns the kernel that ran.
/// Throws DimensionMismatch, NotCompiled, CudaError.
template <typename ValueType, typename IndexType>
SpmmAlgorithm spmm(const Csr<ValueType, IndexType>& a, DenseView<const ValueType> b,
                   DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {},
                   Backend backend = Backend::automatic,
                   SpmmAlgorithm algorithm = SpmmAlgorithm::automatic);

/// C := epilogue(A·B) with A in tiled ELL (cpu or cuda tiled kernel; reference goes
/// through CSR). register_factor 0 = chosen from the column count of B.
template <typename ValueType, typename IndexType>
SpmmAlgorithm spmm(const TiledEll<ValueType, IndexType>& a, DenseView<const ValueType> b,
                   DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {},
                   Backend backend = Backend::automatic, int register_factor = 0);

}  // namespace tessel
