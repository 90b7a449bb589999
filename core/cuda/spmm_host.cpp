// Host-level CUDA SpMM entry points: upload A and B, run the device kernel, download C.
#include "core/cuda/device_spmm.hpp"
#include "core/cuda/entry_points.hpp"
#include "core/cuda/kernels/spmm_launch.hpp"
#include "core/instantiate.hpp"
#include "core/kernels/spmm_kernels.hpp"

namespace tessel::cuda {

namespace {

// Runs `run(b_device, c_device)` on device copies of B and C (ld = cols) on the default
// stream and copies C back; the download waits for the kernels. C goes up too when the
// epilogue reads it (beta != 0).
template <typename V, typename Run>
void on_device(DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep, Run&& run) {
    DeviceDense<V> db(b);
    DeviceDense<V> dc = ep.reads_output() ? DeviceDense<V>(DenseView<const V>(c)) : DeviceDense<V>(c.rows, c.cols);
    run(db.view(), dc.view());
    dc.download(c);
}

}  // namespace

template <typename V, typename I>
void spmm_warp_row(const Csr<V, I>& a, DenseView<const V> b, DenseView<V> c,
                   const Epilogue<V>& ep) {
    detail::check_spmm_shapes("cuda::spmm_warp_row", a.rows(), a.cols(), b, c);
    if (c.rows == 0 || c.cols == 0) return;
    const DeviceCsr<V, I> da(a);
    on_device<V>(b, c, ep, [&](DenseView<const V> db, DenseView<V> dc) {
        device::spmm_warp_row(da, db, dc, ep);
    });
}

template <typename V, typename I>
void spmm_merge(const Csr<V, I>& a, DenseView<const V> b, DenseView<V> c,
                const Epilogue<V>& ep) {
    detail::check_spmm_shapes("cuda::spmm_merge", a.rows(), a.cols(), b, c);
    if (c.rows == 0 || c.cols == 0) return;
    const DeviceCsr<V, I> da(a);
    on_device<V>(b, c, ep, [&](DenseView<const V> db, DenseView<V> dc) {
        device::spmm_merge(da, db, dc, ep);
    });
}

template <typename V, typename I>
void spmm_cusparse(const Csr<V, I>& a, DenseView<const V> b, DenseView<V> c,
                   const Epilogue<V>& ep) {
    detail::check_spmm_shapes("cuda::spmm_cusparse", a.rows(), a.cols(), b, c);
    if (c.rows == 0 || c.cols == 0) return;
    const DeviceCsr<V, I> da(a);
    on_device<V>(b, c, ep, [&](DenseView<const V> db, DenseView<V> dc) {
        device::spmm_cusparse(da, db, dc, ep);
    });
}

template <typename V, typename I>
void spmm_tiled_ell(const TiledEll<V, I>& a, DenseView<const V> b, DenseView<V> c,
                    const Epilogue<V>& ep, int register_factor) {
    detail::check_spmm_shapes("cuda::spmm_tiled_ell", a.rows, a.cols, b, c);
    if (c.rows == 0 || c.cols == 0) return;
    const DeviceTiledEll<V, I> da(a);
    on_device<V>(b, c, ep, [&](DenseView<const V> db, DenseView<V> dc) {
        device::spmm_tiled_ell(da, db, dc, ep, register_factor);
    });
}

#define TESSEL_INSTANTIATE(V, I) TESSEL_CUDA_SPMM_ENTRY_POINTS(TESSEL_CUDA_INSTANTIATE_ENTRY, V, I)
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::cuda
