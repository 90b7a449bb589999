// The cuda half of the local SpMM operator: the matrix uploaded once, B and C device views
// (or host views copied through buffers kept while the shapes stay the same).
#include <cuda_runtime_api.h>

#include <cstring>

#include "core/cuda/device_spmm.hpp"
#include "core/cuda/runtime/pinned_buffer.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spmm.hpp"
#include "core/operator/spmm_operator.hpp"
#include "core/timer.hpp"

namespace tessel {

template <typename V, typename I>
struct SpmmOperator<V, I>::Device {
    cuda::DeviceCsr<V, I> csr;
    cuda::DeviceTiledEll<V, I> tiled;
    cuda::DeviceGroupedEll<V, I> grouped;  // instead of `tiled` when config_.row_groups > 1
    cuda::DeviceDense<V> in, out;              // host operands on the device
    cuda::PinnedBuffer<V> in_stage, out_stage;  // and their pinned staging on the host
};

namespace {

// dst := src row by row (row-major, any leading dimensions, same shape): host memory to host
// memory, so that the device copies run from and into pinned buffers at full speed.
template <typename V>
void copy_rows(DenseView<const V> src, DenseView<V> dst) {
    TESSEL_ENSURE_DIMS(src.layout == Layout::row_major && dst.layout == Layout::row_major,
                       "spmm operator: host operands must be row-major");
#pragma omp parallel for schedule(static) if (src.rows * src.cols > (1 << 16))
    for (size_type i = 0; i < src.rows; ++i)
        std::memcpy(dst.data + i * dst.ld, src.data + i * src.ld, static_cast<std::size_t>(src.cols) * sizeof(V));
}

// A contiguous rows x cols view over pinned memory, grown to fit.
template <typename V>
DenseView<V> staged(cuda::PinnedBuffer<V>& buffer, size_type rows, size_type cols) {
    buffer.reserve(rows * cols);
    return DenseView<V>(buffer.data(), rows, cols);
}

// Host B (and C when the epilogue reads it) to the device through pinned staging.
template <typename V>
void upload_operands(cuda::PinnedBuffer<V>& in_stage, cuda::PinnedBuffer<V>& out_stage, cuda::DeviceDense<V>& in,
                     cuda::DeviceDense<V>& out, DenseView<const V> b, DenseView<V> c, bool reads_c,
                     cudaStream_t stream) {
    if (in.rows() != b.rows || in.cols() != b.cols) in = cuda::DeviceDense<V>(b.rows, b.cols);
    if (out.rows() != c.rows || out.cols() != c.cols) out = cuda::DeviceDense<V>(c.rows, c.cols);
    const DenseView<V> b_stage = staged(in_stage, b.rows, b.cols);
    copy_rows(b, b_stage);
    in.upload(DenseView<const V>(b_stage), stream);
    if (reads_c) {
        const DenseView<V> c_stage = staged(out_stage, c.rows, c.cols);
        copy_rows(DenseView<const V>(c), c_stage);
        out.upload(DenseView<const V>(c_stage), stream);
    }
}

// The device C back into host C through pinned staging (waits for the stream).
template <typename V>
void download_result(cuda::PinnedBuffer<V>& out_stage, const cuda::DeviceDense<V>& out, DenseView<V> c,
                     cudaStream_t stream) {
    const DenseView<V> c_stage = staged(out_stage, c.rows, c.cols);
    out.download(c_stage, stream);
    copy_rows(DenseView<const V>(c_stage), c);
}

// Host operands: B up through the pinned stage, the product on the device copies, C back down.
template <typename V, typename Device, typename Product>
void through_staging(Device& d, DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep, cudaStream_t stream,
                     Product&& product) {
    upload_operands(d.in_stage, d.out_stage, d.in, d.out, b, c, ep.reads_output(), stream);
    product(d.in.view(), d.out.view());
    download_result(d.out_stage, d.out, c, stream);
}

}  // namespace

template <typename V, typename I>
void SpmmOperator<V, I>::DeviceDeleter::operator()(Device* d) const {
    delete d;
}

template <typename V, typename I>
void SpmmOperator<V, I>::make_device() {
    device_.reset(new Device());
    if (format_ == SparseFormat::tiled_ell && config_.row_groups > 1) {
        make_device_row_groups();
    } else if (format_ == SparseFormat::tiled_ell) {
        device_->tiled = cuda::DeviceTiledEll<V, I>(tiled_);
        if (config_.bank_order) order_device_slots();
    } else {
        device_->csr = cuda::DeviceCsr<V, I>(csr_);
    }
    cuda::synchronize_stream(nullptr);  // uploads are ordered, not finished
}

template <typename V, typename I>
void SpmmOperator<V, I>::make_device_transposed(const SpmmOperator& a) {
    device_.reset(new Device());
    device_->tiled = cuda::DeviceTiledEll<V, I>(tiled_, a.device_->tiled);
    if (config_.bank_order) order_device_slots();
}

template <typename V, typename I>
void SpmmOperator<V, I>::order_device_slots() {
    Timer timer;
    bank_order_ = device_->tiled.order_slots_for_banks();  // waits for the device
    bank_order_->seconds = timer.seconds();
}

// The row groups made from the host copy (its slots: not a transpose made on the device), in
// bank order when asked (on the host, while they are made), sent up, and only their figures kept.
template <typename V, typename I>
void SpmmOperator<V, I>::make_device_row_groups() {
    Timer timer;
    BankOrder order;
    const GroupedEll<V, I> grouped = group_rows(tiled_, config_.row_groups, config_.bank_order ? &order : nullptr);
    if (config_.bank_order) {
        order.seconds = timer.seconds();  // with the grouping: one pass makes both
        bank_order_ = order;
    }
    RowGroupFigures figures;
    figures.group = grouped.group;
    figures.padding = grouped.padding_overhead();
    figures.entries_per_slot = grouped.entries_per_slot();
    figures.seconds = timer.seconds();
    device_->grouped = cuda::DeviceGroupedEll<V, I>(grouped);
    figures.bytes = device_->grouped.bytes();
    cuda::synchronize_stream(nullptr);  // the host arrays die here: their copies must be done
    row_groups_ = figures;
}

template <typename V, typename I>
void SpmmOperator<V, I>::multiply_on_device(DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep,
                                            void* stream_ptr, bool host_operands) {
    auto stream = static_cast<cudaStream_t>(stream_ptr);
    if (c.rows == 0 || c.cols == 0) return;
    if (!device_) TESSEL_THROW(Error, "spmm operator: multiplied on cuda before upload() (defer_upload)");
    Device& d = *device_;
    if (host_operands)
        return through_staging(d, b, c, ep, stream, [&](auto in, auto out) { multiply_on_device(in, out, ep, stream_ptr, false); });
    if (format_ == SparseFormat::tiled_ell && row_groups_) {
        // Factors the row-group kernel has for this group (32 or 64 accumulators); others choose.
        const int r = config_.register_factor;
        const int factor = row_group_factor_fits(config_.row_groups, static_cast<size_type>(sizeof(V)), r) ? r : 0;
        last_register_factor_ = cuda::device::spmm_grouped_ell(d.grouped, b, c, ep, factor, stream).register_factor;
    } else if (format_ == SparseFormat::tiled_ell) {
        // The cuda kernel takes register factors 4..32; others (cpu's 1, 2, 12, 64) choose.
        const int r = config_.register_factor;
        const int factor = (r == 4 || r == 8 || r == 16 || r == 32) ? r : 0;
        last_register_factor_ = cuda::device::spmm_tiled_ell(d.tiled, b, c, ep, factor, stream).register_factor;
    } else if (choose_csr_algorithm(Backend::cuda, d.csr.average_row_length()) == SpmmAlgorithm::cuda_merge) {
        cuda::device::spmm_merge(d.csr, b, c, ep, stream);
    } else {
        cuda::device::spmm_warp_row(d.csr, b, c, ep, stream);
    }
}

template <typename V, typename I>
void SpmmOperator<V, I>::multiply_transposed_on_device(DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep,
                                                       void* stream_ptr, bool host_operands) {
    auto stream = static_cast<cudaStream_t>(stream_ptr);
    if (c.rows == 0 || c.cols == 0) return;
    if (!device_) TESSEL_THROW(Error, "spmm operator: multiplied on cuda before upload() (defer_upload)");
    Device& d = *device_;
    if (host_operands)
        return through_staging(d, b, c, ep, stream,
                               [&](auto in, auto out) { multiply_transposed_on_device(in, out, ep, stream_ptr, false); });
    if (row_groups_)
        TESSEL_INVALID_INPUT("spmm operator", 0, "transposed products run on A's tiled ELL, not its row groups");
    cuda::device::spmm_tiled_ell_transposed(d.tiled, b, c, ep, stream);
}

#define TESSEL_INSTANTIATE(V, I) template class SpmmOperator<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
