// Uploading CSR and tiled ELL matrices to the device once, for repeated SpMM.
#include <limits>
#include <type_traits>
#include <vector>

#include "core/cuda/device_formats.hpp"
#include "core/cuda/kernels/bank_order.hpp"
#include "core/cuda/kernels/tiled_ell_transpose.hpp"
#include "core/cuda/runtime/transfer.hpp"
#include "core/formats/tiled_ell_bank_order.hpp"
#include "core/formats/tiled_ell_transpose.hpp"
#include "core/instantiate.hpp"

namespace tessel::cuda {

template <typename V, typename I>
DeviceCsr<V, I>::DeviceCsr(const Csr<V, I>& host, cudaStream_t stream)
    : rows_(host.rows()), cols_(host.cols()), nnz_(host.nnz()),
      row_ptr_(host.row_ptr().data(), host.rows() + 1, stream),
      col_idx_(host.col_idx().data(), host.nnz(), stream),
      values_(host.values().data(), host.nnz(), stream) {
    // cuSPARSE wants row offsets and column indices of one width: keep int32 offsets too.
    if constexpr (std::is_same_v<I, std::int32_t>) {
        if (nnz_ <= std::numeric_limits<std::int32_t>::max()) {
            const std::vector<std::int32_t> offsets(host.row_ptr().begin(), host.row_ptr().end());
            row_ptr32_ = DeviceBuffer<std::int32_t>(rows_ + 1);
            row_ptr32_.upload(offsets.data(), rows_ + 1, stream);
            // The temporary host vector dies here: make sure the copy has left it.
            synchronize_stream(stream);
        }
    }
}

template <typename V, typename I>
void DeviceCsr<V, I>::update_values(const Csr<V, I>& host, cudaStream_t stream) {
    TESSEL_ENSURE_DIMS(host.nnz() == nnz_ && host.rows() == rows_ && host.cols() == cols_,
                       "DeviceCsr::update_values: the device matrix is " + std::to_string(rows_) +
                           "x" + std::to_string(cols_) + " with " + std::to_string(nnz_) +
                           " nonzeros, the host matrix " + std::to_string(host.rows()) + "x" +
                           std::to_string(host.cols()) + " with " + std::to_string(host.nnz()));
    values_.upload(host.values().data(), nnz_, stream);
}

template <typename V, typename I>
DeviceTiledEll<V, I>::DeviceTiledEll(const TiledEll<V, I>& host, cudaStream_t stream)
    : DeviceStagedSlots<V, I>(host, host.config.block_rows, stream) {
    TESSEL_ENSURE_DIMS(host.index.size() == (host.stores_half() ? host.half_values.size() : host.values.size()) &&
                           static_cast<size_type>(host.warpdispl.size()) ==
                               host.num_stages() * host.warps_per_block() + 1,
                       "DeviceTiledEll: inconsistent tiled ELL arrays");
}

template <typename V, typename I>
DeviceGroupedEll<V, I>::DeviceGroupedEll(const GroupedEll<V, I>& host, cudaStream_t stream)
    : DeviceStagedSlots<V, I>(host, host.block_rows, stream), group_(host.group) {
    TESSEL_ENSURE_DIMS(host.values.size() + host.half_values.size() ==
                               host.index.size() * static_cast<std::size_t>(host.group) &&
                           static_cast<size_type>(host.warpdispl.size()) ==
                               host.num_stages() * host.warps_per_block() + 1,
                       "DeviceGroupedEll: inconsistent row-group arrays");
}

template <typename V, typename I>
double DeviceGroupedEll<V, I>::bytes() const {
    return double(index_.size() + half_values_.size()) * 2.0 + double(values_.size()) * sizeof(V) +
           double(map_.size()) * sizeof(I) +
           double(buffdispl_.size() + mapdispl_.size() + warpdispl_.size()) * sizeof(size_type);
}

template <typename V, typename I>
DeviceTiledEll<V, I>::DeviceTiledEll(const TiledEll<V, I>& layout, const DeviceTiledEll& a, cudaStream_t stream)
    : DeviceStagedSlots<V, I>(layout, layout.config.block_rows, stream) {  // no slots yet: index and values empty
    TESSEL_ENSURE_DIMS(layout.rows == a.cols() && layout.cols == a.rows() &&
                           static_cast<size_type>(layout.warpdispl.size()) ==
                               layout.num_stages() * layout.warps_per_block() + 1,
                       "DeviceTiledEll: the layout is not that of the matrix's transpose");
    const bool half = a.half_values() != nullptr;
    index_ = DeviceBuffer<std::uint16_t>(layout_stored(layout));
    if (half)
        half_values_ = DeviceBuffer<std::uint16_t>(layout_stored(layout));
    else
        values_ = DeviceBuffer<V>(layout_stored(layout));
    index_.fill_zero(stream);  // the padding: index 0, value 0
    values_.fill_zero(stream);
    half_values_.fill_zero(stream);
    DeviceBuffer<std::int32_t> counts(std::max<size_type>(layout.num_stages() * block_rows_, 1));
    counts.fill_zero(stream);
    const detail::TransposedSlots<V, I> t{block_rows_,       layout.warps_per_block(), layout.config.buffer_entries,
                                          layout.num_stages(), buffdispl_.data(),       mapdispl_.data(),
                                          map_.data(),       warpdispl_.data(),        counts.data(),
                                          index_.data(),     half ? nullptr : values_.data(),
                                          half ? half_values_.data() : nullptr};
    detail::fill_transposed_slots(a, t, stream);
    synchronize_stream(stream);  // the counters go with this scope
}

template <typename V, typename I>
BankOrder DeviceTiledEll<V, I>::order_slots_for_banks(cudaStream_t stream) {
    const size_type regions = warpdispl_.size() - 1, slot_rows = index_.size() / 32;
    if (regions <= 0 || slot_rows == 0) return {};
    const int banks = bank_lanes(sizeof(V));
    DeviceBuffer<unsigned long long> totals(2);
    totals.fill_zero(stream);
    if (half_values_.size() > 0)
        detail::order_slots_for_banks(warpdispl_.data(), regions, index_.data(), half_values_.data(), banks,
                                      totals.data(), stream);
    else
        detail::order_slots_for_banks(warpdispl_.data(), regions, index_.data(), values_.data(), banks, totals.data(),
                                      stream);
    unsigned long long host[2] = {0, 0};
    totals.download(host, 2, stream);
    synchronize_stream(stream);
    return {double(host[0]) / double(slot_rows), double(host[1]) / double(slot_rows)};
}

template <typename V>
void order_device_slots_for_banks(const size_type* warpdispl, size_type regions, std::uint16_t* index, V* values,
                                  cudaStream_t stream) {
    detail::order_slots_for_banks(warpdispl, regions, index, values, bank_lanes(sizeof(V)), nullptr, stream);
}

template void order_device_slots_for_banks(const size_type*, size_type, std::uint16_t*, float*, cudaStream_t);
template void order_device_slots_for_banks(const size_type*, size_type, std::uint16_t*, double*, cudaStream_t);

#define TESSEL_INSTANTIATE(V, I)        \
    template class DeviceCsr<V, I>;     \
    template class DeviceTiledEll<V, I>; \
    template class DeviceGroupedEll<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cuda
