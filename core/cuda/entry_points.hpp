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

// Dense tile products through cuBLAS (core/kernels/gemm_kernels.hpp), for T = float and double:
// overloads, not templates, so named whole for TESSEL_CUDA_STUB_FUNCTION.
#define TESSEL_CUDA_GEMM_ENTRY_POINTS(X, T)                                                                    \
    X(cuda::gemm, (void),                                                                                            \
      (GemmHandle&, size_type, size_type, size_type, T, const T*, size_type, const T*, size_type, T, T*, size_type)) \
    X(cuda::gemm_batched, (void),                                                                                    \
      (GemmHandle&, size_type, size_type, size_type, T, const T* const*, size_type, const T* const*, size_type, T, \
       T* const*, size_type, size_type))

// The pixel-driven backprojection (core/kernels/backprojection.hpp), for V = float and double.
#define TESSEL_CUDA_BACKPROJECTION_ENTRY_POINTS(X, V) \
    X(backproject, (void), (DenseView<const V>, const ParallelBeam&, DenseView<V>))

// The members of SpmmOperator<V, I> that make and use its device copy (spmm_operator_device.cpp).
#define TESSEL_CUDA_OPERATOR_ENTRY_POINTS(X, V, I)                                                        \
    X(make_device, (void), ())                                                                            \
    X(make_device_transposed, (void), (const SpmmOperator<V, I>&))                                        \
    X(order_device_slots, (void), ())                                                                     \
    X(make_device_row_groups, (void), ())                                                                 \
    X(multiply_on_device, (void), (DenseView<const V>, DenseView<V>, const Epilogue<V>&, void*, bool))    \
    X(multiply_transposed_on_device, (void), (DenseView<const V>, DenseView<V>, const Epilogue<V>&, void*, bool))

#define TESSEL_CUDA_UNPAREN(...) __VA_ARGS__

namespace tessel::cuda {
/// Throws NotCompiled: "<what>: this build of tessel has no CUDA backend (...)". Every stand-in
/// of a device entry point in builds without CUDA (core/cuda/stubs.cpp, the apps' stubs) says it
/// through this one function.
[[noreturn]] void not_compiled(const char* what);
}  // namespace tessel::cuda

/// An explicit instantiation of one entry point (in the cuda sources).
#define TESSEL_CUDA_INSTANTIATE_ENTRY(name, ret, params) template TESSEL_CUDA_UNPAREN ret name params;

/// A stand-in for one non-template function, named with its namespace below tessel (cuda::gemm,
/// spdnn::make_cuda_engine) and written inside namespace tessel: the qualified name makes a list
/// that disagrees with the header's declaration a compile error.
#define TESSEL_CUDA_STUB_FUNCTION(name, ret, params) \
    TESSEL_CUDA_UNPAREN ret name params {            \
        ::tessel::cuda::not_compiled(#name);         \
    }

/// A stand-in for one function template's specialization, named as TESSEL_CUDA_STUB_FUNCTION
/// names its function (abcd::execute_cuda<double>).
#define TESSEL_CUDA_STUB_SPECIALIZATION(name, ret, params) \
    template <>                                            \
    TESSEL_CUDA_UNPAREN ret name params {                  \
        ::tessel::cuda::not_compiled(#name);               \
    }

/// A stand-in for one member of SpmmOperator<V, I> (a template definition; V and I are the
/// enclosing template's parameters).
#define TESSEL_CUDA_STUB_OPERATOR_MEMBER(name, ret, params)            \
    template <typename V, typename I>                                  \
    TESSEL_CUDA_UNPAREN ret SpmmOperator<V, I>::name params {          \
        ::tessel::cuda::not_compiled("SpmmOperator::" #name " on cuda"); \
    }

/// A stand-in for one entry point: an explicit specialization that throws NotCompiled.
#define TESSEL_CUDA_STUB_ENTRY(name, ret, params) \
    template <>                                   \
    TESSEL_CUDA_UNPAREN ret name params {         \
        not_compiled("cuda::" #name);             \
    }
