// The local SpMM operator: building the format once, the host kernels, the description.
#include "core/operator/spmm_operator.hpp"

#include "core/error.hpp"
#include "core/formats/grouped_ell.hpp"
#include "core/formats/tiled_ell_transpose.hpp"  // layout_stored
#include "core/instantiate.hpp"
#include "core/kernels/spmm.hpp"

namespace tessel {

std::string_view to_string(SparseFormat format) {
    return format == SparseFormat::csr ? "csr" : "tiled-ell";
}

SparseFormat parse_format(std::string_view name) {
    if (name == "csr") return SparseFormat::csr;
    if (name == "tiled-ell") return SparseFormat::tiled_ell;
    TESSEL_INVALID_INPUT("--format", 0, "unknown sparse format '" + std::string(name) + "' (expected csr or tiled-ell)");
}

namespace {

// Row groups are a tiled ELL form: a group that the format's blocks cannot take is refused
// when the operator is built, on every backend.
void check_operator_row_groups(const SpmmOperatorConfig& config, SparseFormat format) {
    if (config.row_groups == 1) return;
    if (format != SparseFormat::tiled_ell)
        TESSEL_INVALID_INPUT("spmm operator", 0, "row groups need the tiled-ell format");
    check_row_groups(config.row_groups, config.tiles.block_rows);
}

}  // namespace

// The device state's deleter is defined with it (core/cuda), so these need no complete Device.
template <typename V, typename I>
SpmmOperator<V, I>::SpmmOperator() = default;
template <typename V, typename I>
SpmmOperator<V, I>::~SpmmOperator() = default;
template <typename V, typename I>
SpmmOperator<V, I>::SpmmOperator(SpmmOperator&&) noexcept = default;
template <typename V, typename I>
SpmmOperator<V, I>& SpmmOperator<V, I>::operator=(SpmmOperator&&) noexcept = default;

template <typename V, typename I>
SpmmOperator<V, I>::SpmmOperator(Csr<V, I> a, const SpmmOperatorConfig& config)
    : config_(config), format_(config.format), rows_(a.rows()), cols_(a.cols()), nnz_(a.nnz()) {
    config_.backend = resolve_backend(config.backend);
    if (config_.half_values && format_ != SparseFormat::tiled_ell)
        TESSEL_INVALID_INPUT("spmm operator", 0, "half-precision values need the tiled-ell format");
    check_operator_row_groups(config_, format_);
    if (format_ == SparseFormat::tiled_ell) {
        tiled_ = tiled_ell_from_csr(a, config_.tiles);
        a = Csr<V, I>();  // the CSR copy goes before anything else is allocated
        if (config_.half_values) store_values_in_half(tiled_);
    } else {
        csr_ = std::move(a);
    }
    if (!config_.defer_upload) upload();
}

template <typename V, typename I>
SpmmOperator<V, I>::SpmmOperator(TiledEll<V, I> a, const SpmmOperatorConfig& config)
    : config_(config), format_(SparseFormat::tiled_ell), rows_(a.rows), cols_(a.cols), nnz_(a.nnz),
      tiled_(std::move(a)) {
    config_.backend = resolve_backend(config.backend);
    config_.format = SparseFormat::tiled_ell;
    config_.tiles = tiled_.config;
    check_operator_row_groups(config_, format_);
    if (config_.half_values) store_values_in_half(tiled_);
    config_.half_values = tiled_.stores_half();
    if (!config_.defer_upload) upload();
}

template <typename V, typename I>
SpmmOperator<V, I> SpmmOperator<V, I>::transposed_on_device(const SpmmOperator& a, TiledEll<V, I> layout) {
    if (a.format_ != SparseFormat::tiled_ell || a.config_.backend != Backend::cuda)
        TESSEL_INVALID_INPUT("spmm operator", 0, "Aᵀ is made on the device from a tiled ELL operator on cuda only");
    if (a.config_.row_groups != 1)
        TESSEL_INVALID_INPUT("spmm operator", 0, "Aᵀ is made on the device from A's tiled ELL, not its row groups");
    if (!a.device_) TESSEL_THROW(Error, "spmm operator: transposed on cuda before upload() (defer_upload)");
    SpmmOperator t;
    t.config_ = a.config_;
    t.config_.tiles = layout.config;
    t.config_.defer_upload = false;
    t.format_ = SparseFormat::tiled_ell;
    t.tiled_ = std::move(layout);
    t.rows_ = t.tiled_.rows;
    t.cols_ = t.tiled_.cols;
    t.nnz_ = t.tiled_.nnz;
    t.make_device_transposed(a);
    return t;
}

template <typename V, typename I>
void SpmmOperator<V, I>::upload() {
    if (config_.backend == Backend::cuda && !device_) make_device();
}

template <typename V, typename I>
double SpmmOperator<V, I>::bytes() const {
    if (format_ == SparseFormat::csr)
        return double(nnz_) * double(sizeof(I) + sizeof(V)) + double(rows_ + 1) * sizeof(size_type);
    if (row_groups_) return row_groups_->bytes;  // what the device's products read
    // From the layout and config_: a transpose made on the device has no slots on the host.
    const double value_bytes = config_.half_values ? 2.0 : double(sizeof(V));
    return double(layout_stored(tiled_)) * (double(sizeof(std::uint16_t)) + value_bytes) +
           double(tiled_.map.size()) * sizeof(I) +
           double(tiled_.buffdispl.size() + tiled_.mapdispl.size() + tiled_.warpdispl.size()) * sizeof(size_type);
}

template <typename V, typename I>
void SpmmOperator<V, I>::multiply(DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep) {
    TESSEL_ENSURE_DIMS(b.rows == cols_ && c.rows == rows_ && b.cols == c.cols,
                       "spmm operator: A is " + std::to_string(rows_) + "x" + std::to_string(cols_) + ", B is " +
                           std::to_string(b.rows) + "x" + std::to_string(b.cols) + ", C is " +
                           std::to_string(c.rows) + "x" + std::to_string(c.cols));
    if (config_.backend == Backend::cuda) return multiply_on_device(b, c, ep, nullptr, true);
    // The visible branch: the oracle when asked for, else the cpu kernel of the format.
    if (format_ == SparseFormat::tiled_ell) {
        if (config_.backend == Backend::reference) {
            reference::spmm(tiled_, b, c, ep);
        } else {
            tessel::spmm(tiled_, b, c, ep, Backend::cpu, config_.register_factor);
            last_register_factor_ = config_.register_factor ? config_.register_factor : cpu::choose_register_factor(b.cols);
        }
    } else {
        tessel::spmm(csr_, b, c, ep, config_.backend);
    }
}

template <typename V, typename I>
void SpmmOperator<V, I>::multiply_transposed(DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep) {
    TESSEL_ENSURE_DIMS(b.rows == rows_ && c.rows == cols_ && b.cols == c.cols,
                       "spmm operator: Aᵀ is " + std::to_string(cols_) + "x" + std::to_string(rows_) + ", B is " +
                           std::to_string(b.rows) + "x" + std::to_string(b.cols) + ", C is " +
                           std::to_string(c.rows) + "x" + std::to_string(c.cols));
    if (format_ != SparseFormat::tiled_ell)
        TESSEL_INVALID_INPUT("spmm operator", 0, "transposed products need the tiled-ell format");
    if (config_.backend == Backend::cuda) return multiply_transposed_on_device(b, c, ep, nullptr, true);
    if (config_.backend == Backend::reference) return reference::spmm_transposed(tiled_, b, c, ep);
    cpu::spmm_tiled_ell_transposed(tiled_, b, c, ep, config_.register_factor);
    last_register_factor_ = config_.register_factor ? config_.register_factor : cpu::choose_register_factor(b.cols);
}

template <typename V, typename I>
void SpmmOperator<V, I>::multiply_device(DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep, void* stream) {
    if (config_.backend != Backend::cuda)
        TESSEL_INVALID_INPUT("spmm operator", 0,
                             "device views given to an operator on the " + std::string(to_string(config_.backend)) +
                                 " backend");
    TESSEL_ENSURE_DIMS(b.rows == cols_ && c.rows == rows_ && b.cols == c.cols,
                       "spmm operator: A is " + std::to_string(rows_) + "x" + std::to_string(cols_) + ", B is " +
                           std::to_string(b.rows) + "x" + std::to_string(b.cols));
    multiply_on_device(b, c, ep, stream, false);
}

template <typename V, typename I>
void SpmmOperator<V, I>::multiply_transposed_device(DenseView<const V> b, DenseView<V> c, const Epilogue<V>& ep,
                                                    void* stream) {
    if (config_.backend != Backend::cuda)
        TESSEL_INVALID_INPUT("spmm operator", 0,
                             "device views given to an operator on the " + std::string(to_string(config_.backend)) +
                                 " backend");
    if (format_ != SparseFormat::tiled_ell)
        TESSEL_INVALID_INPUT("spmm operator", 0, "transposed products need the tiled-ell format");
    TESSEL_ENSURE_DIMS(b.rows == rows_ && c.rows == cols_ && b.cols == c.cols,
                       "spmm operator: Aᵀ is " + std::to_string(cols_) + "x" + std::to_string(rows_) + ", B is " +
                           std::to_string(b.rows) + "x" + std::to_string(b.cols));
    multiply_transposed_on_device(b, c, ep, stream, false);
}

template <typename V, typename I>
std::string SpmmOperator<V, I>::kernel_description(size_type k) const {
    return kernel_without_values(k) + (config_.half_values ? ", fp16 values" : "");
}

template <typename V, typename I>
std::string SpmmOperator<V, I>::kernel_without_values(size_type k) const {
    const std::string where = std::string(to_string(config_.backend));
    if (format_ == SparseFormat::csr) {
        // The same choice tessel::spmm makes for this matrix.
        const bool merge = choose_csr_algorithm(Backend::cpu, rows_ ? double(nnz_) / double(rows_) : 0.0) ==
                           SpmmAlgorithm::csr_merge;
        return where + " csr " + (merge ? "merge-based" : "row split") +
               (config_.backend == Backend::cuda ? " (resident)" : "");
    }
    if (config_.backend == Backend::cuda && config_.row_groups > 1)
        return "cuda tiled ELL of row groups (" + std::to_string(config_.row_groups) +
               " rows a thread, resident, shared-memory staging)";
    if (config_.backend == Backend::cuda) return "cuda tiled ELL (resident, shared-memory staging)";
    if (config_.backend == Backend::reference) return "reference tiled ELL";
    if (config_.register_factor == 0 && k <= 0)
        return std::string("cpu tiled ELL, R chosen from k (slot order for R = 1") +
               (cpu::tiled_ell_design(tiled_, 2) == std::string("slot order") ? " and these long rows)" : ", register tiles above)");
    const int r = config_.register_factor ? config_.register_factor : cpu::choose_register_factor(k);
    return "cpu tiled ELL, R = " + std::to_string(r) + " (" + cpu::tiled_ell_design(tiled_, r) + ")";
}

template <typename V, typename I>
nlohmann::json SpmmOperator<V, I>::describe() const {
    nlohmann::json j{{"format", std::string(to_string(format_))},
                     {"backend", std::string(to_string(config_.backend))},
                     {"rows", rows_},
                     {"cols", cols_},
                     {"nnz", nnz_},
                     {"bytes", bytes()},
                     {"values", config_.half_values ? "fp16" : (sizeof(V) == 4 ? "fp32" : "fp64")}};
    if (format_ == SparseFormat::tiled_ell) {
        j["block_rows"] = config_.tiles.block_rows;
        j["buffer_entries"] = config_.tiles.buffer_entries;
        const size_type stored = layout_stored(tiled_);
        j["stored"] = stored;
        j["padding"] = nnz_ ? double(stored - nnz_) / double(nnz_) : 0.0;
        j["average_reuse"] = tiled_.average_reuse();
        j["stages"] = tiled_.num_stages();
    }
    if (row_groups_)
        j["row_groups"] = {{"group", row_groups_->group},
                           {"padding", row_groups_->padding},
                           {"entries_per_slot", row_groups_->entries_per_slot},
                           {"seconds", row_groups_->seconds}};
    if (bank_order_)
        j["bank_order"] = {{"wavefronts_before", bank_order_->wavefronts_before},
                           {"wavefronts_after", bank_order_->wavefronts_after},
                           {"seconds", bank_order_->seconds}};
    return j;
}

#define TESSEL_INSTANTIATE(V, I) template class SpmmOperator<V, I>;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel
