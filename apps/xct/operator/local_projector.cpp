// The single-rank operator: A and Aᵀ as two of core's SpMM operators.
#include "apps/xct/operator/projector.hpp"

#include <omp.h>

#include <utility>

#include "apps/xct/operator/tiled_system_matrix.hpp"
#include "core/error.hpp"
#include "core/formats/tiled_ell_transpose.hpp"

namespace tessel::xct {

SpmmOperatorConfig operator_config(const ProjectorOptions& options) {
    SpmmOperatorConfig config;
    config.backend = options.backend;
    config.format = options.kernel;
    config.tiles = options.tiles;
    config.register_factor = options.register_factor;
    config.half_values = options.half_values;
    // The scatter kernel on A adds with shared atomics, which the bank order's shared indices
    // would serialise: only gathering operators take it.
    config.bank_order = options.bank_order && !options.scatter_transpose;
    config.row_groups = options.row_groups;
    if (options.half_values && options.kernel == Kernel::csr)
        TESSEL_INVALID_INPUT("--precision", 0, "mixed keeps the operator in tiled ELL; drop --kernel csr");
    if (options.scatter_transpose && options.kernel == Kernel::csr)
        TESSEL_INVALID_INPUT("--transpose", 0, "scatter runs on A's tiled ELL; drop --kernel csr");
    return config;
}

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
    const SpmmOperatorConfig config = operator_config(options_);
    // Order keeps the peak low: Aᵀ from the CSR rows, then A's operator (releasing its CSR),
    // then Aᵀ's.
    Csr<V, Index> at;
    if (!options_.scatter_transpose) at = transpose_parallel(a);
    lap("transpose");
    a_ = SpmmOperator<V, Index>(std::move(a), config);
    lap("operator_a");
    if (!options_.scatter_transpose) at_ = SpmmOperator<V, Index>(std::move(at), config);
    lap("operator_at");
}

template <typename V>
LocalProjector<V>::LocalProjector(TiledEll<V, Index> a, TiledEll<V, Index> at, const ProjectorOptions& options,
                                  PhaseTimes* times)
    : options_(options), pixels_(a.cols), rays_(a.rows), nnz_(a.nnz) {
    PhaseTimes local;
    auto scope = (times ? *times : local).scope("build");
    Timer step;
    const SpmmOperatorConfig config = operator_config(options_);
    a_ = SpmmOperator<V, Index>(std::move(a), config);
    if (!options_.scatter_transpose) at_ = SpmmOperator<V, Index>(std::move(at), config);
    build_seconds_["operators"] = step.seconds();
}

namespace {

// op's upload on a thread of its own; the future gives the seconds it took (shared: the
// thread that makes Aᵀ on the device waits for it too).
template <typename V>
std::shared_future<double> upload_beside(SpmmOperator<V, Index>& op) {
    return std::async(std::launch::async, [&op] {
        Timer timer;
        op.upload();
        return timer.seconds();
    });
}

}  // namespace

template <typename V>
LocalProjector<V>::LocalProjector(TiledEll<V, Index> a, const ProjectorOptions& options, PhaseTimes* times)
    : options_(options), pixels_(a.cols), rays_(a.rows), nnz_(a.nnz) {
    PhaseTimes local;
    auto scope = (times ? *times : local).scope("build");
    Timer step;
    // On cuda the build leaves the critical path (the H200's whole process spent 0.3-0.35 s
    // uploading from pageable memory and 0.35-0.7 s transposing on the host): A goes up on a
    // thread of its own while a second thread makes Aᵀ's layout from A's host copy (both only
    // read it), then Aᵀ's slots on the device from A's device copy (nothing of them is written
    // or copied on the host), beside the sinograms' preparation; a product waits for its matrix.
    SpmmOperatorConfig config = operator_config(options_);
    config.defer_upload = resolve_backend(config.backend) == Backend::cuda;
    a_ = SpmmOperator<V, Index>(std::move(a), config);
    if (config.defer_upload) a_upload_ = upload_beside(a_);
    // Row groups are made from host slots: Aᵀ is then transposed on the host (while A goes up).
    if (!options_.scatter_transpose && config.defer_upload && config.row_groups == 1) {
        at_beside_ = std::async(std::launch::async, [this, a_up = a_upload_] {
            Timer timer;
            BesideSeconds s;
            TiledEll<V, Index> layout = tiled_ell_transpose_layout(*a_.tiled(), options_.tiles);
            s.layout = timer.seconds();
            a_up.wait();
            timer.restart();
            at_ = SpmmOperator<V, Index>::transposed_on_device(a_, std::move(layout));
            s.on_device = timer.seconds();
            return s;
        });
    } else if (!options_.scatter_transpose) {
        config.defer_upload = false;
        at_ = SpmmOperator<V, Index>(tiled_ell_transpose(*a_.tiled(), options_.tiles), config);
        build_seconds_["transpose"] = step.seconds();
        step.restart();
    }
    build_seconds_["operators"] = step.seconds();
}

template <typename V>
void LocalProjector<V>::join_build(bool stored_at) const {
    if (!stored_at && a_upload_.valid()) build_seconds_["upload_a_beside"] = std::exchange(a_upload_, {}).get();
    if (stored_at && at_beside_.valid()) {
        const BesideSeconds s = at_beside_.get();
        build_seconds_["transpose_layout_beside"] = s.layout;
        build_seconds_["transpose_on_device_beside"] = s.on_device;
    }
}

template <typename V>
SpmmOperator<V, Index>& LocalProjector<V>::ready(bool transposed) {
    const bool stored_at = transposed && !options_.scatter_transpose;
    join_build(stored_at);
    return stored_at ? at_ : a_;
}

template <typename V>
void LocalProjector<V>::finish_build() {
    join_build(false);
    join_build(true);
}

template <typename V>
void LocalProjector<V>::run(bool transposed, DenseMatrix<V>& in, DenseMatrix<V>& out) {
    const size_type in_rows = transposed ? rays_ : pixels_, out_rows = transposed ? pixels_ : rays_;
    TESSEL_ENSURE_DIMS(in.rows() == in_rows && in.layout() == Layout::row_major,
                       std::string(transposed ? "backprojection" : "projection") + ": input has " +
                           std::to_string(in.rows()) + " rows, expected " + std::to_string(in_rows));
    if (out.rows() != out_rows || out.cols() != in.cols()) out = DenseMatrix<V>(out_rows, in.cols());
    auto& op = ready(transposed);
    Timer timer;
    const size_type k = in.cols();
    if (transposed && options_.scatter_transpose)
        op.multiply_transposed(DenseView<const V>(in.view()), out.view());
    else
        op.multiply(DenseView<const V>(in.view()), out.view());
    (transposed ? this->stats_.backward_seconds : this->stats_.forward_seconds) += timer.seconds();
    count_product(transposed, k);
}

// Calls, flops and bytes of one product (its seconds are counted by the caller).
template <typename V>
void LocalProjector<V>::count_product(bool transposed, size_type k) {
    const size_type in_rows = transposed ? rays_ : pixels_, out_rows = transposed ? pixels_ : rays_;
    const auto& op = transposed && !options_.scatter_transpose ? at_ : a_;
    auto& s = this->stats_;
    ++(transposed ? s.backward_calls : s.forward_calls);
    s.flops += 2.0 * double(nnz_) * double(k);
    s.bytes += op.bytes() + double(k) * double(in_rows + out_rows) * sizeof(V);
    if (transposed && options_.scatter_transpose && !on_device())  // each thread's sums written and read once
        s.bytes += 2.0 * double(k) * double(out_rows) * sizeof(V) * double(omp_get_max_threads());
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
    join_build(true);
    return a_.bytes() + (options_.scatter_transpose ? 0.0 : at_.bytes());
}

template <typename V>
nlohmann::json LocalProjector<V>::describe() const {
    join_build(false);  // the build's seconds complete
    join_build(true);
    nlohmann::json j{{"kernel", std::string(to_string(options_.kernel))},
                     {"kernel_runs", a_.kernel_description(0)},
                     {"backend", std::string(tessel::to_string(a_.config().backend))},
                     {"nnz", nnz_},
                     {"pixels", pixels_},
                     {"rays", rays_},
                     {"matrix_bytes", matrix_bytes()},
                     {"build_seconds", build_seconds_}};
    if (options_.kernel != Kernel::csr) {  // the tiled forms' sizes, padding and reuse
        j["block_rows"] = options_.tiles.block_rows;
        j["buffer_entries"] = options_.tiles.buffer_entries;
        j["A"] = a_.describe();
        if (options_.scatter_transpose)
            j["At"] = "A's tiles, transposed kernel";
        else
            j["At"] = at_.describe();
    }
    return j;
}

template <typename V>
std::unique_ptr<LocalProjector<V>> make_local_projector(const Geometry& geometry, const Ordering& ordering,
                                                        const ProjectorOptions& options, PhaseTimes* times) {
    if (options.kernel == Kernel::tiled_ell) {  // the lean build: no CSR copy
        PhaseTimes local;
        TiledEll<V, Index> a;
        Timer timer;
        {
            auto scope = (times ? *times : local).scope("build");
            a = trace_tiled<V>(geometry, ordering, 0, geometry.num_rays(), options.tiles, options.half_values);
        }
        const double trace_seconds = timer.seconds();
        auto op = std::make_unique<LocalProjector<V>>(std::move(a), options, times);
        op->build_seconds_["trace"] = trace_seconds;
        return op;
    }
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
