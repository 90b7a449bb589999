// The single-rank operator: A and Aᵀ as tiled ELL (or CSR) and the core SpMM kernels.
#include "apps/xct/projector.hpp"

#include "apps/xct/tiled_ell_build.hpp"
#include "apps/xct/tiled_ell_kernel.hpp"
#include "core/error.hpp"
#include "core/kernels/spmm.hpp"

namespace tessel::xct {

std::string_view to_string(Kernel kernel) {
    switch (kernel) {
    case Kernel::tiled_ell: return "tiled-ell";
    case Kernel::tiled_ell_core: return "tiled-ell-core";
    default: return "csr";
    }
}

Kernel parse_kernel(std::string_view name) {
    if (name == "tiled-ell") return Kernel::tiled_ell;
    if (name == "tiled-ell-core") return Kernel::tiled_ell_core;
    if (name == "csr") return Kernel::csr;
    TESSEL_INVALID_INPUT("kernel", 0,
                         "unknown kernel '" + std::string(name) + "', expected tiled-ell, tiled-ell-core or csr");
}

std::string kernel_description(Kernel kernel, Backend backend) {
    if (backend == Backend::cuda)
        return kernel == Kernel::csr ? "cuda csr (core, A copied per call)"
                                     : "cuda tiled ELL (core kernel, A and A^T resident on the device)";
    switch (kernel) {
    case Kernel::tiled_ell: return "cpu tiled ELL, slot order (xct)";
    case Kernel::tiled_ell_core: return "cpu tiled ELL, lane order (core)";
    default: return "cpu csr row split (core)";
    }
}

namespace {

template <typename V>
double tiled_bytes(const TiledEll<V, Index>& t) {
    return double(t.stored()) * double(sizeof(std::uint16_t) + sizeof(V)) + double(t.map.size()) * sizeof(Index) +
           double(t.buffdispl.size() + t.mapdispl.size() + t.warpdispl.size()) * sizeof(size_type);
}

template <typename V>
double csr_bytes(const Csr<V, Index>& a) {
    return double(a.nnz()) * double(sizeof(Index) + sizeof(V)) + double(a.rows() + 1) * sizeof(size_type);
}

template <typename V>
nlohmann::json tiled_json(const TiledEll<V, Index>& t) {
    return {{"rows", t.rows},
            {"cols", t.cols},
            {"nnz", t.nnz},
            {"stored", t.stored()},
            {"padding", t.padding_overhead()},
            {"average_reuse", t.average_reuse()},
            {"stages", t.num_stages()},
            {"bytes", tiled_bytes(t)}};
}

}  // namespace

template <typename V>
LocalProjector<V>::LocalProjector(Csr<V, Index> a, const ProjectorOptions& options, PhaseTimes* times)
    : options_(options), pixels_(a.cols()), rays_(a.rows()), nnz_(a.nnz()) {
    PhaseTimes local;
    PhaseTimes& t = times ? *times : local;
    auto scope = t.scope("build");
    Timer step;
    auto lap = [&](const char* name) {
        build_seconds_[name] = step.seconds();
        step.restart();
    };
    if (options_.kernel == Kernel::csr) {
        at_csr_ = transpose_parallel(a);
        lap("transpose");
        a_csr_ = std::move(a);
        return;
    }
    // Order keeps the peak low: tiled A, then Aᵀ from the CSR rows, then tiled Aᵀ.
    a_ell_ = build_tiled_ell(a, options_.tiles);
    lap("tiled_a");
    Csr<V, Index> at = transpose_parallel(a);
    a = Csr<V, Index>();
    lap("transpose");
    at_ell_ = build_tiled_ell(at, options_.tiles);
    lap("tiled_at");
    if (options_.backend == Backend::cuda) {
        device_ = std::make_unique<DeviceOperator<V>>(a_ell_, at_ell_);
        lap("upload");
    }
}

template <typename V>
void LocalProjector<V>::run(bool transposed, DenseMatrix<V>& in, DenseMatrix<V>& out) {
    const size_type in_rows = transposed ? rays_ : pixels_, out_rows = transposed ? pixels_ : rays_;
    TESSEL_ENSURE_DIMS(in.rows() == in_rows && in.layout() == Layout::row_major,
                       std::string(transposed ? "backprojection" : "projection") + ": input has " +
                           std::to_string(in.rows()) + " rows, expected " + std::to_string(in_rows));
    if (out.rows() != out_rows || out.cols() != in.cols()) out = DenseMatrix<V>(out_rows, in.cols());
    Timer timer;
    const size_type k = in.cols();
    double bytes = 0;
    if (options_.kernel == Kernel::csr) {
        const auto& a = transposed ? at_csr_ : a_csr_;
        tessel::spmm(a, DenseView<const V>(in.view()), out.view(), Epilogue<V>{}, options_.backend,
                     options_.backend == Backend::cpu ? SpmmAlgorithm::csr_row_split : SpmmAlgorithm::automatic);
        bytes = csr_bytes(a);
    } else {
        const auto& a = transposed ? at_ell_ : a_ell_;
        // The visible branch: device-resident matrices on cuda, xct's slot-order kernel on
        // CPUs, core's cpu kernel when asked for.
        if (device_)
            device_->multiply(transposed, in, out, options_.register_factor);
        else if (options_.kernel == Kernel::tiled_ell && options_.backend == Backend::cpu)
            spmm_tiled_slots(a, DenseView<const V>(in.view()), out.view(), options_.register_factor);
        else
            tessel::spmm(a, DenseView<const V>(in.view()), out.view(), Epilogue<V>{}, options_.backend,
                         options_.register_factor);
        bytes = tiled_bytes(a);
    }
    const double seconds = timer.seconds();
    auto& s = this->stats_;
    (transposed ? s.backward_seconds : s.forward_seconds) += seconds;
    ++(transposed ? s.backward_calls : s.forward_calls);
    s.flops += 2.0 * double(nnz_) * double(k);
    s.bytes += bytes + double(k) * double(in_rows + out_rows) * sizeof(V);
}

template <typename V>
void LocalProjector<V>::forward(DenseMatrix<V>& x, DenseMatrix<V>& y) {
    run(false, x, y);
}

template <typename V>
void LocalProjector<V>::backward(DenseMatrix<V>& y, DenseMatrix<V>& x) {
    run(true, y, x);
}

template <typename V>
double LocalProjector<V>::matrix_bytes() const {
    if (options_.kernel == Kernel::csr) return csr_bytes(a_csr_) + csr_bytes(at_csr_);
    return tiled_bytes(a_ell_) + tiled_bytes(at_ell_);
}

template <typename V>
nlohmann::json LocalProjector<V>::describe() const {
    nlohmann::json j{{"kernel", std::string(to_string(options_.kernel))},
                     {"kernel_runs", kernel_description(options_.kernel, options_.backend)},
                     {"backend", std::string(tessel::to_string(options_.backend))},
                     {"nnz", nnz_},
                     {"pixels", pixels_},
                     {"rays", rays_},
                     {"matrix_bytes", matrix_bytes()},
                     {"build_seconds", build_seconds_}};
    if (options_.kernel != Kernel::csr) {
        j["block_rows"] = options_.tiles.block_rows;
        j["buffer_entries"] = options_.tiles.buffer_entries;
        j["A"] = tiled_json(a_ell_);
        j["At"] = tiled_json(at_ell_);
    }
    return j;
}

template <typename V>
std::unique_ptr<LocalProjector<V>> make_local_projector(const Geometry& geometry, const Ordering& ordering,
                                                        const ProjectorOptions& options, PhaseTimes* times) {
    Csr<V, Index> a;
    Timer timer;
    {
        PhaseTimes local;
        auto scope = (times ? *times : local).scope("build");
        a = build_rows<V>(geometry, ordering, 0, geometry.num_rays());
    }
    const double trace_seconds = timer.seconds();
    auto op = std::make_unique<LocalProjector<V>>(std::move(a), options, times);
    op->build_seconds_["trace"] = trace_seconds;
    return op;
}

template class LocalProjector<float>;
template class LocalProjector<double>;
template std::unique_ptr<LocalProjector<float>> make_local_projector(const Geometry&, const Ordering&,
                                                                     const ProjectorOptions&, PhaseTimes*);
template std::unique_ptr<LocalProjector<double>> make_local_projector(const Geometry&, const Ordering&,
                                                                      const ProjectorOptions&, PhaseTimes*);

}  // namespace tessel::xct
