// The host-level cuda entry points of core, listed once: X(name, (return type), (parameters))
// for value type V and index type I. The cuda sources instantiate their templates from these
// lists and stubs.cpp (builds without nvcc) defines NotCompiled stand-ins from the same lists,
// so the two can never disagree.
#pragma once

#define TESSEL_CUDA_SPMM_ENTRY_POINTS(X, V, I)                                                                 \
    X(spmm_warp_row, (void), (const Csr<V, I>&, DenseView<const V>, DenseView<V>, const Epilogue<V>&))         \
    X(spmm_merge, (void), (const Csr<V, I>&, DenseView<const V>, DenseView<V>, const Epilogue<V>&))            \
    X(spmm_cusparse, (void), (const Csr<V, I>&, DenseView<const V>, DenseView<V>, const Epilogue<V>&))         \
    X(spmm_tiled_ell, (void), (const TiledEll<V, I>&, DenseView<const V>, DenseView<V>, const Epilogue<V>&, int))

#define TESSEL_CUDA_SPGEMM_ENTRY_POINTS(X, V, I)                                                \
    X(spgemm_symbolic, (SpgemmPlan), (const Csr<V, I>&, const Csr<V, I>&, const SpgemmOptions&)) \
    X(spgemm_numeric, (void), (const SpgemmPlan&, const Csr<V, I>&, const Csr<V, I>&, Csr<V, I>&)) \
    X(spgemm, (Csr<V, I>), (const Csr<V, I>&, const Csr<V, I>&, const SpgemmOptions&))          \
    X(spgemm_cusparse, (Csr<V, I>), (const Csr<V, I>&, const Csr<V, I>&))

#define TESSEL_CUDA_UNPAREN(...) __VA_ARGS__

namespace tessel::cuda {
/// Throws NotCompiled: "<what>: this build of tessel has no CUDA backend (...)". Every stand-in
/// of a device entry point in builds without CUDA (core/cuda/stubs.cpp, the apps' stubs) says it
/// through this one function.
[[noreturn]] void not_compiled(const char* what);
}  // namespace tessel::cuda

/// An explicit instantiation of one entry point (in the cuda sources).
#define TESSEL_CUDA_INSTANTIATE_ENTRY(name, ret, params) template TESSEL_CUDA_UNPAREN ret name params;

/// A stand-in for one entry point: an explicit specialization that throws NotCompiled.
#define TESSEL_CUDA_STUB_ENTRY(name, ret, params) \
    template <>                                   \
    TESSEL_CUDA_UNPAREN ret name params {         \
        not_compiled("cuda::" #name);             \
    }
