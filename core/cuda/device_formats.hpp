// Sparse matrices uploaded to the device once (CSR, tiled ELL, its row groups), for the device kernels of
// core/cuda/device_spmm.hpp (implementations: core/cuda/device_formats.cpp).
#pragma once

#if !defined(TESSEL_HAVE_CUDA)
#error "core/cuda/device_formats.hpp needs a build with the CUDA backend (TESSEL_HAVE_CUDA)"
#endif

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/cuda/runtime/device_buffer.hpp"
#include "core/formats/csr.hpp"
#include "core/formats/grouped_ell.hpp"
#include "core/formats/tiled_ell.hpp"
#include "core/formats/tiled_ell_bank_order.hpp"
#include "core/types.hpp"

namespace tessel::cuda {

/// A CSR matrix uploaded once: 64-bit row offsets, IndexType columns, values. With 32-bit
/// column indices it also keeps 32-bit row offsets for cuSPARSE when nnz fits in int32.
template <typename ValueType, typename IndexType>
class DeviceCsr {
public:
    DeviceCsr() = default;
    /// Uploads `host` (ordered on `stream`; the host matrix may change once this returns).
    explicit DeviceCsr(const Csr<ValueType, IndexType>& host, cudaStream_t stream = nullptr);

    /// New values for the same pattern. Throws DimensionMismatch when nnz differs.
    void update_values(const Csr<ValueType, IndexType>& host, cudaStream_t stream = nullptr);

    size_type rows() const { return rows_; }
    size_type cols() const { return cols_; }
    size_type nnz() const { return nnz_; }
    double average_row_length() const { return rows_ ? double(nnz_) / double(rows_) : 0.0; }
    const size_type* row_ptr() const { return row_ptr_.data(); }
    const IndexType* col_idx() const { return col_idx_.data(); }
    const ValueType* values() const { return values_.data(); }
    /// 32-bit copy of row_ptr; nullptr for 64-bit IndexType or when nnz exceeds int32.
    const std::int32_t* row_ptr32() const { return row_ptr32_.empty() ? nullptr : row_ptr32_.data(); }

private:
    size_type rows_ = 0;
    size_type cols_ = 0;
    size_type nnz_ = 0;
    DeviceBuffer<size_type> row_ptr_;
    DeviceBuffer<IndexType> col_idx_;
    DeviceBuffer<ValueType> values_;
    DeviceBuffer<std::int32_t> row_ptr32_;
};

/// The device arrays the tiled ELL matrix and its row groups share (blocks, stages, staged
/// columns, slots): uploaded from a host matrix with the same members.
template <typename ValueType, typename IndexType>
class DeviceStagedSlots {
public:
    size_type rows() const { return rows_; }
    size_type cols() const { return cols_; }
    size_type nnz() const { return nnz_; }
    size_type block_rows() const { return block_rows_; }
    size_type num_blocks() const { return num_blocks_; }
    /// Longest stage (staged entries of B per column); sets the shared memory per block.
    size_type max_stage_entries() const { return max_stage_entries_; }
    const size_type* buffdispl() const { return buffdispl_.data(); }
    const size_type* mapdispl() const { return mapdispl_.data(); }
    const IndexType* map() const { return map_.data(); }
    const size_type* warpdispl() const { return warpdispl_.data(); }
    const std::uint16_t* index() const { return index_.data(); }
    /// The values as ValueType, or null when they are stored in half (half_values()).
    const ValueType* values() const { return values_.data(); }
    const std::uint16_t* half_values() const { return half_values_.data(); }

protected:
    DeviceStagedSlots() = default;
    /// Every array of `host` (a TiledEll or GroupedEll) uploaded on `stream`.
    template <typename Host>
    DeviceStagedSlots(const Host& host, size_type block_rows, cudaStream_t stream)
        : rows_(host.rows), cols_(host.cols), nnz_(host.nnz), block_rows_(block_rows),
          num_blocks_(host.num_blocks()), max_stage_entries_(host.max_stage_entries()),
          buffdispl_(host.buffdispl.data(), static_cast<size_type>(host.buffdispl.size()), stream),
          mapdispl_(host.mapdispl.data(), static_cast<size_type>(host.mapdispl.size()), stream),
          map_(host.map.data(), static_cast<size_type>(host.map.size()), stream),
          warpdispl_(host.warpdispl.data(), static_cast<size_type>(host.warpdispl.size()), stream),
          index_(host.index.data(), static_cast<size_type>(host.index.size()), stream),
          values_(host.values.data(), static_cast<size_type>(host.values.size()), stream),
          half_values_(host.half_values.data(), static_cast<size_type>(host.half_values.size()), stream) {}

    size_type rows_ = 0;
    size_type cols_ = 0;
    size_type nnz_ = 0;
    size_type block_rows_ = 0;
    size_type num_blocks_ = 0;
    size_type max_stage_entries_ = 0;
    DeviceBuffer<size_type> buffdispl_;
    DeviceBuffer<size_type> mapdispl_;
    DeviceBuffer<IndexType> map_;
    DeviceBuffer<size_type> warpdispl_;
    DeviceBuffer<std::uint16_t> index_;
    DeviceBuffer<ValueType> values_;
    DeviceBuffer<std::uint16_t> half_values_;
};

/// A tiled ELL matrix (core/formats/tiled_ell.hpp) uploaded once.
template <typename ValueType, typename IndexType>
class DeviceTiledEll : public DeviceStagedSlots<ValueType, IndexType> {
public:
    DeviceTiledEll() = default;
    explicit DeviceTiledEll(const TiledEll<ValueType, IndexType>& host,
                            cudaStream_t stream = nullptr);
    /// Aᵀ of the device matrix `a` made on the device: `layout` (tiled_ell_transpose_layout of
    /// A's host copy, no slots) uploaded, the slots filled from a's
    /// (detail::fill_transposed_slots); the same arrays as uploading tiled_ell_transpose of A.
    /// Ordered on `stream`. Throws DimensionMismatch when `layout` is not Aᵀ's.
    DeviceTiledEll(const TiledEll<ValueType, IndexType>& layout, const DeviceTiledEll& a, cudaStream_t stream = nullptr);

    /// Moves each row's entries among its slot rows for the shared-memory banks, as
    /// order_slots_for_banks (core/formats/tiled_ell_bank_order.hpp) does on the host, with
    /// the same arrays and figures (the mean wavefronts per slot row, read back: the call waits
    /// for `stream`).
    BankOrder order_slots_for_banks(cudaStream_t stream = nullptr);

    size_type warps_per_block() const { return this->block_rows_ / 32; }

private:
    using Slots = DeviceStagedSlots<ValueType, IndexType>;
    using Slots::block_rows_, Slots::buffdispl_, Slots::mapdispl_, Slots::map_, Slots::warpdispl_, Slots::index_,
        Slots::values_, Slots::half_values_;
};

/// A tiled ELL matrix of row groups (core/formats/grouped_ell.hpp) uploaded once.
template <typename ValueType, typename IndexType>
class DeviceGroupedEll : public DeviceStagedSlots<ValueType, IndexType> {
public:
    DeviceGroupedEll() = default;
    explicit DeviceGroupedEll(const GroupedEll<ValueType, IndexType>& host, cudaStream_t stream = nullptr);

    size_type group() const { return group_; }
    size_type threads_per_block() const { return this->block_rows_ / group_; }
    size_type warps_per_block() const { return threads_per_block() / 32; }
    /// Bytes of the device arrays (the slots' index and values dominate).
    double bytes() const;

private:
    using Slots = DeviceStagedSlots<ValueType, IndexType>;
    using Slots::buffdispl_, Slots::mapdispl_, Slots::map_, Slots::warpdispl_, Slots::index_, Slots::values_,
        Slots::half_values_;
    size_type group_ = 1;
};

/// The bank order of DeviceTiledEll::order_slots_for_banks on tiled ELL arrays that already
/// live in device memory in a caller's own packing (spdnn's layers): `warpdispl` with
/// `regions` + 1 entries (stages x warps per block), the slots' `index` and `values`. Ordered
/// on `stream`, without figures.
template <typename V>
void order_device_slots_for_banks(const size_type* warpdispl, size_type regions, std::uint16_t* index, V* values,
                                  cudaStream_t stream = nullptr);

}  // namespace tessel::cuda
