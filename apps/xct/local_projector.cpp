// The single-rank operator: A and Aᵀ as tiled ELL (or CSR) and the core SpMM kernels.
#include "apps/xct/projector.hpp"

#include "core/error.hpp"
#include "core/kernels/spmm.hpp"

namespace tessel::xct {

std::string_view to_string(Kernel kernel) { return kernel == Kernel::tiled_ell ? "tiled-ell" : "csr"; }

Kernel parse_kernel(std::string_view name) {
    if (name == "tiled-ell") return Kernel::tiled_ell;
    if (name == "csr") return Kernel::csr;
    TESSEL_INVALID_INPUT("kernel", 0, "unknown kernel '" + std::string(name) + "', expected tiled-ell or csr");
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
    if (options_.kernel == Kernel::csr) {
        at_csr_ = transpose_parallel(a);
        a_csr_ = std::move(a);
        return;
    }
    // Order keeps the peak low: tiled A, then Aᵀ from the CSR rows, then tiled Aᵀ.
    a_ell_ = tiled_ell_from_csr(a, options_.tiles);
    Csr<V, Index> at = transpose_parallel(a);
    a = Csr<V, Index>();
    at_ell_ = tiled_ell_from_csr(at, options_.tiles);
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
                     {"backend", std::string(tessel::to_string(options_.backend))},
                     {"nnz", nnz_},
                     {"pixels", pixels_},
                     {"rays", rays_},
                     {"matrix_bytes", matrix_bytes()}};
    if (options_.kernel == Kernel::tiled_ell) {
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
    {
        PhaseTimes local;
        auto scope = (times ? *times : local).scope("build");
        a = build_rows<V>(geometry, ordering, 0, geometry.num_rays());
    }
    return std::make_unique<LocalProjector<V>>(std::move(a), options, times);
}

template class LocalProjector<float>;
template class LocalProjector<double>;
template std::unique_ptr<LocalProjector<float>> make_local_projector(const Geometry&, const Ordering&,
                                                                     const ProjectorOptions&, PhaseTimes*);
template std::unique_ptr<LocalProjector<double>> make_local_projector(const Geometry&, const Ordering&,
                                                                      const ProjectorOptions&, PhaseTimes*);

}  // namespace tessel::xct
