// tessel's own kernels behind the benchmark interface: the reference, the cpu kernels and,
// with a CUDA device, the cuda host-level kernels (which include transfers).
#include <omp.h>

#include "bench/spmm/kernels.hpp"
#include "bench/spmm/peers.hpp"
#include "core/kernels/spmm_kernels.hpp"

namespace tessel::bench {

std::string to_string(Family family) {
    switch (family) {
    case Family::reference: return "reference";
    case Family::tessel: return "tessel";
    case Family::peer: return "peer";
    }
    return "?";
}

namespace {

// Kernels that read A as CSR directly.
template <typename V>
class CsrKernel : public Kernel<V> {
public:
    void prepare(const Csr<V, Index>& a) override {
        a_ = &a;
        bytes_ = csr_bytes(a);
    }
    double a_bytes() const override { return bytes_; }

protected:
    const Csr<V, Index>* a_ = nullptr;
    double bytes_ = 0;
};

template <typename V>
class ReferenceKernel final : public CsrKernel<V> {
public:
    std::string name() const override { return "reference"; }
    Family family() const override { return Family::reference; }
    std::string note() const override { return "serial oracle"; }
    void multiply() override { reference::spmm(*this->a_, this->b_, this->c_); }
};

template <typename V>
class RowSplitKernel final : public CsrKernel<V> {
public:
    std::string name() const override { return "row-split"; }
    Family family() const override { return Family::tessel; }
    void multiply() override { cpu::spmm_row_split(*this->a_, this->b_, this->c_); }
};

template <typename V>
class MergeKernel final : public CsrKernel<V> {
public:
    std::string name() const override { return "merge"; }
    Family family() const override { return Family::tessel; }
    void multiply() override { cpu::spmm_merge(*this->a_, this->b_, this->c_); }
};

// Tiled ELL on cpu or cuda: the format is built in prepare().
template <typename V>
class TiledEllKernel final : public Kernel<V> {
public:
    TiledEllKernel(const KernelOptions& options, bool on_cuda)
        : options_(options), cuda_(on_cuda) {}
    std::string name() const override { return cuda_ ? "cuda-tiled-ell" : "tiled-ell"; }
    Family family() const override { return Family::tessel; }
    bool on_device() const override { return cuda_; }
    std::string note() const override { return cuda_ ? "incl. H2D/D2H transfers" : ""; }
    std::string details() const override {
        const int rf = options_.register_factor ? options_.register_factor
                                                : cpu::choose_register_factor(this->b_.cols);
        return "block_rows=" + std::to_string(t_.config.block_rows) +
               " buffer_entries=" + std::to_string(t_.config.buffer_entries) +
               " register_factor=" + std::to_string(rf) + " stages=" +
               std::to_string(t_.num_stages()) + " reuse=" + std::to_string(t_.average_reuse()) +
               " padding=" + std::to_string(t_.padding_overhead());
    }
    void prepare(const Csr<V, Index>& a) override {
        t_ = tiled_ell_from_csr(a, options_.tiled_ell);
        bytes_ = tiled_ell_bytes(t_);
    }
    double a_bytes() const override { return bytes_; }
    void multiply() override {
        if (cuda_)
            cuda::spmm_tiled_ell(t_, this->b_, this->c_, {}, options_.register_factor);
        else
            cpu::spmm_tiled_ell(t_, this->b_, this->c_, {}, options_.register_factor);
    }
    const TiledEll<V, Index>& format() const { return t_; }

private:
    KernelOptions options_;
    bool cuda_;
    TiledEll<V, Index> t_;
    double bytes_ = 0;
};

// The cuda CSR kernels and cuSPARSE through the host-level entry points.
template <typename V>
class CudaCsrKernel final : public CsrKernel<V> {
public:
    enum class Which { warp_row, merge, cusparse };
    explicit CudaCsrKernel(Which which) : which_(which) {}
    std::string name() const override {
        switch (which_) {
        case Which::warp_row: return "cuda-warp-row";
        case Which::merge: return "cuda-merge";
        case Which::cusparse: return "cusparse";
        }
        return "?";
    }
    // cuSPARSE is NVIDIA's library, the GPU peer; the other two are tessel's.
    Family family() const override {
        return which_ == Which::cusparse ? Family::peer : Family::tessel;
    }
    bool on_device() const override { return true; }
    std::string note() const override { return "incl. H2D/D2H transfers"; }
    void multiply() override {
        switch (which_) {
        case Which::warp_row: cuda::spmm_warp_row(*this->a_, this->b_, this->c_); break;
        case Which::merge: cuda::spmm_merge(*this->a_, this->b_, this->c_); break;
        case Which::cusparse: cuda::spmm_cusparse(*this->a_, this->b_, this->c_); break;
        }
    }

private:
    Which which_;
};

}  // namespace

std::vector<std::string> available_kernel_names() {
    std::vector<std::string> names{"reference", "row-split", "merge", "tiled-ell"};
    for (const auto& peer : peers::found()) names.push_back(peer.kernel);
    if (cuda::device_available())
        for (const char* n : {"cuda-warp-row", "cuda-merge", "cuda-tiled-ell", "cusparse"})
            names.emplace_back(n);
    return names;
}

template <typename V>
std::unique_ptr<Kernel<V>> make_kernel(const std::string& name, const KernelOptions& options) {
    using Cuda = CudaCsrKernel<V>;
    if (name == "reference") return std::make_unique<ReferenceKernel<V>>();
    if (name == "row-split") return std::make_unique<RowSplitKernel<V>>();
    if (name == "merge") return std::make_unique<MergeKernel<V>>();
    if (name == "tiled-ell") return std::make_unique<TiledEllKernel<V>>(options, false);
    if (name == "eigen") return peers::make_eigen<V>();
    if (name == "graphblas") return peers::make_graphblas<V>();
    if (name == "rsb") return peers::make_rsb<V>();
    if (!cuda::device_available()) return nullptr;
    if (name == "cuda-warp-row") return std::make_unique<Cuda>(Cuda::Which::warp_row);
    if (name == "cuda-merge") return std::make_unique<Cuda>(Cuda::Which::merge);
    if (name == "cusparse") return std::make_unique<Cuda>(Cuda::Which::cusparse);
    if (name == "cuda-tiled-ell") return std::make_unique<TiledEllKernel<V>>(options, true);
    return nullptr;
}

template std::unique_ptr<Kernel<float>> make_kernel<float>(const std::string&, const KernelOptions&);
template std::unique_ptr<Kernel<double>> make_kernel<double>(const std::string&,
                                                             const KernelOptions&);

}  // namespace tessel::bench
