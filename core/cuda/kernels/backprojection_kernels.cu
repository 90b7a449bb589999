// cuda backprojection (the cpu twin: core/cpu/backprojection_kernels.cpp): one thread per (pixel,
// slice), consecutive threads the slices of one pixel then the next pixel, so a warp reads
// neighbouring sinogram entries when the K slices lie side by side. Each thread sums its
// angles in order, as the cpu kernel does, from the same row positions.
#include <algorithm>

#include "core/cuda/entry_points.hpp"
#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/device_buffer.hpp"
#include "core/cuda/runtime/device_code.hpp"
#include "core/cuda/runtime/stream.hpp"
#include "core/kernels/backprojection.hpp"

namespace tessel::cuda {

namespace {

constexpr int threads_per_block = 256;

// Where entry (i, j) of a row-major or column-major matrix lives.
struct Strides {
    long long row;
    long long col;
};

Strides strides_of(Layout layout, size_type ld) {
    return layout == Layout::row_major ? Strides{ld, 1} : Strides{1, ld};
}

// Sinogram value of slice j at channel c of the angle whose first ray is `ray0`; zero off the
// detector (the cpu kernel's padded channels).
template <typename V>
__device__ V channel_value(const V* s, Strides st, long long ray0, long long c, long long num_rho, long long j) {
    return c >= 0 && c < num_rho ? s[(ray0 + c) * st.row + j * st.col] : V(0);
}

// image(iy·n + ix, j) := Σ_a s_j at u = starts[a·n + iy] + ix·steps[a].
template <typename V>
__global__ void backproject_kernel(const V* s, Strides s_strides, const V* starts, const V* steps, long long n,
                                   long long num_rho, long long num_theta, long long k, V* image,
                                   Strides image_strides) {
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= n * n * k) return;
    const long long j = t % k, pixel = t / k, iy = pixel / n, ix = pixel % n;
    V sum = V(0);
    for (long long a = 0; a < num_theta; ++a) {
        long long left;
        V w;
        backprojection::padded_sample<V, long long>(starts[a * n + iy] + V(ix) * steps[a], num_rho, &left, &w);
        const long long c = left - 1, ray0 = a * num_rho;  // padded index left is channel left - 1
        sum += backprojection::interpolate(channel_value(s, s_strides, ray0, c, num_rho, j),
                                           channel_value(s, s_strides, ray0, c + 1, num_rho, j), w);
    }
    image[pixel * image_strides.row + j * image_strides.col] = sum;
}

// A device copy of a host matrix of any layout, kept in that layout (ld = its leading size).
template <typename V>
DeviceBuffer<V> upload_matrix(DenseView<const V> m, cudaStream_t stream) {
    const size_type inner = m.layout == Layout::row_major ? m.cols : m.rows;
    const size_type outer = m.layout == Layout::row_major ? m.rows : m.cols;
    DeviceBuffer<V> d(inner * outer);
    if (d.empty()) return d;
    copy_2d_to_device(d.data(), inner * sizeof(V), m.data, m.ld * sizeof(V), inner * sizeof(V), outer, stream);
    return d;
}

// The host image (any layout) := the device image stored with ld = its leading size; waits.
template <typename V>
void download_matrix(const DeviceBuffer<V>& d, DenseView<V> m, cudaStream_t stream) {
    const size_type inner = m.layout == Layout::row_major ? m.cols : m.rows;
    const size_type outer = m.layout == Layout::row_major ? m.rows : m.cols;
    if (d.empty()) return;
    copy_2d_to_host(m.data, m.ld * sizeof(V), d.data(), inner * sizeof(V), inner * sizeof(V), outer, stream);
    synchronize_stream(stream);
}

}  // namespace

template <typename V>
void backproject(DenseView<const V> s, const ParallelBeam& scan, DenseView<V> image) {
    backprojection::check_arguments("cuda::backproject", s, scan, image);
    const size_type k = s.cols, n = scan.n;
    if (k == 0 || n == 0) return;
    const Stream stream;
    const auto starts = backprojection::row_starts<V>(scan), steps = backprojection::row_steps<V>(scan);
    const DeviceBuffer<V> d_starts(starts.data(), size_type(starts.size()), stream.get());
    const DeviceBuffer<V> d_steps(steps.data(), size_type(steps.size()), stream.get());
    const DeviceBuffer<V> d_s = upload_matrix(s, stream.get());
    DeviceBuffer<V> d_image(image.rows * k);
    const Strides s_strides = strides_of(s.layout, s.layout == Layout::row_major ? k : s.rows);
    const Strides image_strides = strides_of(image.layout, image.layout == Layout::row_major ? k : image.rows);
    const long long threads = n * n * k;
    const unsigned blocks = static_cast<unsigned>((threads + threads_per_block - 1) / threads_per_block);
    TESSEL_LAUNCH(blocks, threads_per_block, 0, stream.get(), backproject_kernel<V>)(
        d_s.data(), s_strides, d_starts.data(), d_steps.data(), n, scan.num_rho, scan.num_theta(), k, d_image.data(),
        image_strides);
    TESSEL_CUDA_CHECK_LAUNCH();
    download_matrix(d_image, image, stream.get());
}

TESSEL_CUDA_BACKPROJECTION_ENTRY_POINTS(TESSEL_CUDA_INSTANTIATE_ENTRY, float)
TESSEL_CUDA_BACKPROJECTION_ENTRY_POINTS(TESSEL_CUDA_INSTANTIATE_ENTRY, double)

}  // namespace tessel::cuda
