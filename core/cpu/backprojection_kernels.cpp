// Pixel-driven backprojection on cpu: the sinograms copied once into rows padded with a zero
// channel at each end (no branch at the detector's edges, the K slices side by side whatever
// the input's layout); a block of image rows per OpenMP iteration, accumulated in a
// thread-local buffer over all angles. Per (angle, image row) the channel positions of the
// whole row are computed first, SIMD over pixels, then added SIMD over the slices, eight angles
// per visit of a pixel's accumulators. Compiled once per x86-64 level (core/cpu/isa_region.hpp);
// the entry point that checks the arguments and picks the level is
// core/cpu/backprojection_entry_point.cpp.
#include <algorithm>
#include <vector>

#include "core/cpu/isa_region.hpp"
#include "core/kernels/backprojection.hpp"

TESSEL_CPU_ISA_BEGIN

namespace {

namespace bp = backprojection;

// offset[ix], w[ix]: where pixel ix of the row meets the padded channels: the left channel's
// first value (left channel times k: no multiplication left for the loops that add) and the
// weight of the right one.
template <typename V>
void row_samples(V first, V step, int n, int num_rho, int k, int* offset, V* w) {
#pragma omp simd
    for (int ix = 0; ix < n; ++ix) {
        int left;
        bp::padded_sample<V, int>(first + V(ix) * step, num_rho, &left, w + ix);
        offset[ix] = left * k;
    }
}

// Angles added to a row of accumulators per visit: the row is read and written once for them
// all (it lives in L2; the sinogram rows are re-read from L1 and L2).
constexpr int angles_per_visit = 8;

// acc[ix·k + j] += s_j at pixel ix, `row` one angle's padded channels (k values each), K = 1 or
// K = 0 (k read at run time).
template <typename V, int K>
void add_angle(V* acc, const V* row, const int* offset, const V* w, int n, int k) {
    if constexpr (K == 1) {
#pragma omp simd
        for (int ix = 0; ix < n; ++ix) acc[ix] += bp::interpolate(row[offset[ix]], row[offset[ix] + 1], w[ix]);
    } else {
        for (int ix = 0; ix < n; ++ix) {
            const V* s = row + offset[ix];
            V* a = acc + static_cast<long long>(ix) * k;
            const V wx = w[ix];
#pragma omp simd
            for (int j = 0; j < k; ++j) a[j] += bp::interpolate(s[j], s[k + j], wx);
        }
    }
}

// The same for A angles in turn with k = K > 1 known at compile time: each pixel's K sums stay
// in registers across the A angles (added in order: the bits of A single visits).
template <typename V, int K, int A>
void add_angles_fixed(V* acc, const V* const* rows, const int* offset, const V* w, int n) {
    for (int ix = 0; ix < n; ++ix) {
        V* a = acc + static_cast<long long>(ix) * K;
        V sum[K];
        for (int j = 0; j < K; ++j) sum[j] = a[j];
        // Unrolled: vectorised over j, never over t (that would gather).
#pragma GCC unroll 8
        for (int t = 0; t < A; ++t) {
            const V* s = rows[t] + offset[t * n + ix];
            const V wx = w[t * n + ix];
            for (int j = 0; j < K; ++j) sum[j] += bp::interpolate(s[j], s[K + j], wx);
        }
        for (int j = 0; j < K; ++j) a[j] = sum[j];
    }
}

// Adds `angles` <= angles_per_visit consecutive angles to a row of accumulators: rows[t] is angle
// t's padded channels, offset + t·n and w + t·n its samples.
template <typename V, int K>
void add_angles(V* acc, const V* const* rows, const int* offset, const V* w, int angles, int n, int k) {
    if constexpr (K > 1) {
        if (angles == angles_per_visit) return add_angles_fixed<V, K, angles_per_visit>(acc, rows, offset, w, n);
        for (int t = 0; t < angles; ++t) add_angles_fixed<V, K, 1>(acc, rows + t, offset + t * n, w + t * n, n);
    } else {
        for (int t = 0; t < angles; ++t) add_angle<V, K>(acc, rows[t], offset + t * n, w + t * n, n, k);
    }
}

template <typename V>
using AddAngles = void (*)(V*, const V* const*, const int*, const V*, int, int, int);

// The widths of K that get a loop of their own: 16 slices per pass is xct's default batch.
template <typename V>
AddAngles<V> add_angles_for(size_type k) {
    switch (k) {
        case 1: return add_angles<V, 1>;
        case 2: return add_angles<V, 2>;
        case 4: return add_angles<V, 4>;
        case 8: return add_angles<V, 8>;
        case 16: return add_angles<V, 16>;
        case 32: return add_angles<V, 32>;
        default: return add_angles<V, 0>;
    }
}

// The sinograms with one zero channel on each side: padded[(a·(num_rho + 2) + c + 1)·k + j].
template <typename V>
std::vector<V> padded_rows(DenseView<const V> s, size_type num_theta, size_type num_rho) {
    const size_type k = s.cols, width = num_rho + 2;
    std::vector<V> padded(static_cast<std::size_t>(num_theta * width * k), V{0});
#pragma omp parallel for schedule(static)
    for (size_type a = 0; a < num_theta; ++a) {
        V* out = padded.data() + (a * width + 1) * k;
        if (s.layout == Layout::row_major) {
            for (size_type c = 0; c < num_rho; ++c) std::copy_n(s.data + (a * num_rho + c) * s.ld, k, out + c * k);
        } else {
            for (size_type j = 0; j < k; ++j) {
                const V* in = s.data + j * s.ld + a * num_rho;
                for (size_type c = 0; c < num_rho; ++c) out[c * k + j] = in[c];
            }
        }
    }
    return padded;
}

// image rows [y0, y0 + rows) := acc (rows·n pixels x k, row-major), in the image's layout.
template <typename V>
void store_rows(const V* acc, size_type y0, size_type rows, size_type n, DenseView<V> image) {
    const size_type k = image.cols, p0 = y0 * n, pixels = rows * n;
    if (image.layout == Layout::row_major) {
        for (size_type p = 0; p < pixels; ++p) std::copy_n(acc + p * k, k, image.data + (p0 + p) * image.ld);
    } else {
        for (size_type j = 0; j < k; ++j)
            for (size_type p = 0; p < pixels; ++p) image.data[j * image.ld + p0 + p] = acc[p * k + j];
    }
}

// What every block of image rows reads: the padded sinograms, the row positions, the kernel.
template <typename V>
struct Plan {
    std::vector<V> padded, starts, steps;
    AddAngles<V> add;
    int n, num_rho, num_theta, k;
};

// acc (rows·n pixels x k) := the backprojection of image rows [y0, y0 + rows); offset and w
// hold angles_per_visit rows of samples.
template <typename V>
void backproject_rows(const Plan<V>& p, int y0, int rows, V* acc, int* offset, V* w) {
    const long long row_values = static_cast<long long>(p.num_rho + 2) * p.k;
    std::fill(acc, acc + static_cast<long long>(rows) * p.n * p.k, V{0});
    for (int a0 = 0; a0 < p.num_theta; a0 += angles_per_visit) {
        const int angles = std::min(angles_per_visit, p.num_theta - a0);
        const V* sinogram_rows[angles_per_visit];
        for (int t = 0; t < angles; ++t) sinogram_rows[t] = p.padded.data() + (a0 + t) * row_values;
        for (int r = 0; r < rows; ++r) {
            for (int t = 0; t < angles; ++t) {
                const long long a = a0 + t;
                row_samples(p.starts[a * p.n + y0 + r], p.steps[a], p.n, p.num_rho, p.k, offset + t * p.n,
                            w + t * p.n);
            }
            p.add(acc + static_cast<long long>(r) * p.n * p.k, sinogram_rows, offset, w, angles, p.n, p.k);
        }
    }
}

}  // namespace

template <typename V>
void backproject(DenseView<const V> s, const ParallelBeam& scan, DenseView<V> image) {
    const size_type k = s.cols, n = scan.n;
    const Plan<V> p{padded_rows(s, scan.num_theta(), scan.num_rho), bp::row_starts<V>(scan), bp::row_steps<V>(scan),
                    add_angles_for<V>(k), int(n), int(scan.num_rho), int(scan.num_theta()), int(k)};
    // Image rows in blocks whose accumulators fit about 256 KiB: each angle's padded row is
    // then read from memory once per block, not once per image row. Every pixel still sums its
    // angles in order: the same bits whatever the block.
    const size_type row_bytes = n * k * static_cast<size_type>(sizeof(V));
    const int block = static_cast<int>(std::clamp<size_type>((size_type(256) << 10) / row_bytes, 1, 16));
    const int blocks = (p.n + block - 1) / block;
#pragma omp parallel
    {
        std::vector<V> acc(static_cast<std::size_t>(block * n * k)), w(static_cast<std::size_t>(angles_per_visit * n));
        std::vector<int> offset(w.size());
        // Dynamic: on a shared machine a thread that loses its core does not hold the others up.
#pragma omp for schedule(dynamic)
        for (int b = 0; b < blocks; ++b) {
            const int y0 = b * block, rows = std::min(block, p.n - y0);
            backproject_rows(p, y0, rows, acc.data(), offset.data(), w.data());
            store_rows(acc.data(), y0, rows, n, image);
        }
    }
}

template void backproject(DenseView<const float>, const ParallelBeam&, DenseView<float>);
template void backproject(DenseView<const double>, const ParallelBeam&, DenseView<double>);

TESSEL_CPU_ISA_END
