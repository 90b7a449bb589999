// SpMM dispatch: backend resolution, kernel choice, layout adaptation.
#include "core/kernels/spmm.hpp"

#include "core/error.hpp"
#include "core/instantiate.hpp"

namespace tessel {

std::string_view to_string(SpmmAlgorithm algorithm) {
    switch (algorithm) {
    case SpmmAlgorithm::automatic: return "auto";
    case SpmmAlgorithm::reference: return "reference";
    case SpmmAlgorithm::csr_row_split: return "cpu csr row-split";
    case SpmmAlgorithm::csr_merge: return "cpu csr merge";
    case SpmmAlgorithm::tiled_ell: return "cpu tiled-ell";
    case SpmmAlgorithm::cuda_warp_row: return "cuda csr warp-per-row";
    case SpmmAlgorithm::cuda_merge: return "cuda csr merge";
    case SpmmAlgorithm::cusparse: return "cusparse SpMM";
    case SpmmAlgorithm::cuda_tiled_ell: return "cuda tiled-ell";
    }
    return "unknown";
}

SpmmAlgorithm choose_csr_algorithm(Backend backend, double average_row_length) {
    const bool merge = average_row_length < merge_row_length_threshold;
    switch (backend) {
    case Backend::reference: return SpmmAlgorithm::reference;
    case Backend::cuda: return merge ? SpmmAlgorithm::cuda_merge : SpmmAlgorithm::cuda_warp_row;
    default: return merge ? SpmmAlgorithm::csr_merge : SpmmAlgorithm::csr_row_split;
    }
}

namespace {

// Runs `kernel(b, c)` on row-major operands, copying when the caller's are not (C's old
// values too when the epilogue reads them).
template <typename V, typename Kernel>
void with_row_major(DenseView<const V> b, DenseView<V> c, bool reads_c, Kernel&& kernel) {
    if (b.layout == Layout::row_major && c.layout == Layout::row_major) {
        kernel(b, c);
        return;
    }
    DenseMatrix<V> b_rm(b.rows, b.cols), c_rm(c.rows, c.cols);
    copy<V>(b, b_rm.view());
    if (reads_c) copy<V>(DenseView<const V>(c), c_rm.view());
    kernel(DenseView<const V>(b_rm.view()), c_rm.view());
    copy<V>(c_rm.view(), c);
}

}  // namespace

template <typename V, typename I>
SpmmAlgorithm spmm(const Csr<V, I>& a, DenseView<const V> b, DenseView<V> c,
                   const Epilogue<V>& epilogue, Backend backend, SpmmAlgorithm algorithm) {
    backend = resolve_backend(backend);
    if (algorithm == SpmmAlgorithm::automatic)
        algorithm = choose_csr_algorithm(backend, a.average_row_length());
    if (algorithm == SpmmAlgorithm::reference) {
        reference::spmm(a, b, c, epilogue);
        return algorithm;
    }
    with_row_major<V>(b, c, epilogue.reads_output(), [&](DenseView<const V> rb, DenseView<V> rc) {
        switch (algorithm) {
        case SpmmAlgorithm::csr_row_split: cpu::spmm_row_split(a, rb, rc, epilogue); break;
        case SpmmAlgorithm::csr_merge: cpu::spmm_merge(a, rb, rc, epilogue); break;
        case SpmmAlgorithm::cuda_warp_row: cuda::spmm_warp_row(a, rb, rc, epilogue); break;
        case SpmmAlgorithm::cuda_merge: cuda::spmm_merge(a, rb, rc, epilogue); break;
        case SpmmAlgorithm::cusparse: cuda::spmm_cusparse(a, rb, rc, epilogue); break;
        default:
            TESSEL_INVALID_INPUT("spmm", 0, "algorithm " + std::string(to_string(algorithm)) +
                                                " does not take a CSR matrix");
        }
    });
    return algorithm;
}

template <typename V, typename I>
SpmmAlgorithm spmm(const TiledEll<V, I>& a, DenseView<const V> b, DenseView<V> c,
                   const Epilogue<V>& epilogue, Backend backend, int register_factor) {
    backend = resolve_backend(backend);
    if (backend == Backend::reference) {
        reference::spmm(csr_from_tiled_ell(a), b, c, epilogue);
        return SpmmAlgorithm::reference;
    }
    with_row_major<V>(b, c, epilogue.reads_output(), [&](DenseView<const V> rb, DenseView<V> rc) {
        if (backend == Backend::cuda)
            cuda::spmm_tiled_ell(a, rb, rc, epilogue, register_factor);
        else
            cpu::spmm_tiled_ell(a, rb, rc, epilogue, register_factor);
    });
    return backend == Backend::cuda ? SpmmAlgorithm::cuda_tiled_ell : SpmmAlgorithm::tiled_ell;
}

#define TESSEL_INSTANTIATE(V, I)                                                                 \
    template SpmmAlgorithm spmm(const Csr<V, I>&, DenseView<const V>, DenseView<V>,              \
                                const Epilogue<V>&, Backend, SpmmAlgorithm);                     \
    template SpmmAlgorithm spmm(const TiledEll<V, I>&, DenseView<const V>, DenseView<V>,         \
                                const Epilogue<V>&, Backend, int);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
