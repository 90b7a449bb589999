// The local SpMM operator: a sparse matrix that is multiplied many times (xct's A and Aᵀ,
// spdnn's layers, a distributed operator's local block), built once from a configuration,
// kept resident (in device memory on cuda) and multiplied with host or device views.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/backend.hpp"
#include "core/dense.hpp"
#include "core/formats/csr.hpp"
#include "core/formats/tiled_ell.hpp"
#include "core/formats/tiled_ell_bank_order.hpp"
#include "core/kernels/epilogue.hpp"

namespace tessel {

/// The storage the operator keeps.
enum class SparseFormat { csr, tiled_ell };
std::string_view to_string(SparseFormat format);
/// "csr" or "tiled-ell"; throws InvalidInput naming the accepted values.
SparseFormat parse_format(std::string_view name);

/// How an operator is built and which kernel runs.
struct SpmmOperatorConfig {
    /// automatic is resolved once, when the operator is built (core/backend.hpp).
    Backend backend = Backend::cpu;
    SparseFormat format = SparseFormat::tiled_ell;
    /// Tiled ELL: rows per block and staged entries per stage.
    TiledEllConfig tiles{256, 4096};
    /// Columns of B per pass over A (cpu::register_factors; cuda takes 4, 8, 16, 32); 0 chooses from k.
    int register_factor = 0;
    /// Mixed precision (tiled ELL only): A's values kept in IEEE half, products and sums in
    /// ValueType. Values must be finite and within ±65504 (InvalidInput otherwise).
    bool half_values = false;
    /// cuda: the matrix stays on the host until upload(), so that a caller can upload it on
    /// another thread while it reads the host copy (xct transposes A while A goes up).
    bool defer_upload = false;
    /// cuda, tiled ELL: once uploaded, the device copy's slots are put in shared-memory bank
    /// order (cuda::DeviceTiledEll::order_slots_for_banks, on the device; the host copy keeps
    /// its order), so that the gather of multiply reads fewer conflicting banks. Not for an
    /// operator whose multiply_transposed runs: its scatter adds with shared atomics, which
    /// the order's shared indices would serialise. Nothing on the host backends.
    bool bank_order = false;
    /// cuda, tiled ELL: rows per thread of the device kernel, 1, 2, 4 or 8 (dividing
    /// tiles.block_rows / 32). Above 1 the device holds the matrix as row groups
    /// (core/formats/grouped_ell.hpp: one read of a staged value serves G neighbouring rows) and
    /// multiply runs their kernel (bank_order then orders their slots on the host as they are
    /// made); no multiply_transposed, no transposed_on_device from it. The host backends keep
    /// the tiled ELL as it is.
    size_type row_groups = 1;
};

/// What the device's row-group form of an operator holds (SpmmOperatorConfig::row_groups).
struct RowGroupFigures {
    size_type group = 1;
    double padding = 0;           // stored values beyond the nonzeros, per nonzero
    double entries_per_slot = 0;  // nonzeros per staged-value read
    double bytes = 0;             // of the device arrays
    double seconds = 0;           // to make them on the host
};

/// A built once (its format made, the CSR input released), resident on the configured backend.
/// C := epilogue(A·B): A m x n, B n x k, C m x k, row-major with any leading dimension.
template <typename ValueType, typename IndexType>
class SpmmOperator {
public:
    SpmmOperator();
    /// Takes `a` and builds the configured format (tiled ELL releases the CSR), uploading it on
    /// cuda. Throws InvalidInput (configuration), NotCompiled / CudaError (cuda).
    SpmmOperator(Csr<ValueType, IndexType> a, const SpmmOperatorConfig& config);
    /// Takes a tiled ELL matrix built elsewhere (spdnn's prepared layers); config.format and
    /// config.tiles follow the matrix. Uploads it on cuda.
    SpmmOperator(TiledEll<ValueType, IndexType> a, const SpmmOperatorConfig& config);
    /// Aᵀ of `a` (tiled ELL on cuda, uploaded) as an operator of its own whose slots are made
    /// on the device from A's device copy: the host gives only Aᵀ's layout (`layout` =
    /// tiled_ell_transpose_layout(*a.tiled(), tiles), under half the host transpose, which a
    /// caller may make while A goes up) and it goes up (a small part of the matrix), so no
    /// slot of Aᵀ is written or copied on the host and its host copy (tiled()) has no slots.
    /// The device arrays equal those of an operator on tiled_ell_transpose(*a.tiled(), tiles).
    /// Throws InvalidInput (not tiled ELL on cuda), Error (`a` not uploaded yet), CudaError,
    /// DimensionMismatch (a layout of another matrix).
    static SpmmOperator transposed_on_device(const SpmmOperator& a, TiledEll<ValueType, IndexType> layout);
    ~SpmmOperator();
    SpmmOperator(SpmmOperator&&) noexcept;
    SpmmOperator& operator=(SpmmOperator&&) noexcept;

    size_type rows() const { return rows_; }
    size_type cols() const { return cols_; }
    size_type nnz() const { return nnz_; }
    const SpmmOperatorConfig& config() const { return config_; }
    /// Bytes of the format held (host copy; the device holds the same again on cuda).
    double bytes() const;
    /// The host copy of the matrix (null for the other format; without slots when made by
    /// transposed_on_device).
    const TiledEll<ValueType, IndexType>* tiled() const { return format_ == SparseFormat::tiled_ell ? &tiled_ : nullptr; }
    const Csr<ValueType, IndexType>* csr() const { return format_ == SparseFormat::csr ? &csr_ : nullptr; }
    /// cuda with defer_upload: uploads the matrix (waits until it is on the device); nothing
    /// otherwise or when it is there. Only reads the host copy: tiled() and csr() may be read
    /// on other threads meanwhile. Throws CudaError.
    void upload();

    /// C := epilogue(A·B) with host B and C (on cuda copied to and from the device through
    /// pinned staging buffers, all kept while the shapes stay the same; the call waits for the
    /// result). Throws DimensionMismatch, CudaError.
    void multiply(DenseView<const ValueType> b, DenseView<ValueType> c, const Epilogue<ValueType>& epilogue = {});
    /// C := epilogue(Aᵀ·B) with host B (m x k) and C (n x k) on A's own tiles, no Aᵀ stored
    /// (cpu::spmm_tiled_ell_transposed; the reference's oracle on the reference backend; a
    /// scatter kernel with atomics on cuda). Tiled ELL only: InvalidInput for CSR. Throws
    /// DimensionMismatch, CudaError.
    void multiply_transposed(DenseView<const ValueType> b, DenseView<ValueType> c,
                             const Epilogue<ValueType>& epilogue = {});
    /// The same with device pointers (cuda only), enqueued on `stream` (a cudaStream_t, null =
    /// the default stream) without waiting. Throws InvalidInput on a host backend.
    void multiply_device(DenseView<const ValueType> b, DenseView<ValueType> c,
                         const Epilogue<ValueType>& epilogue = {}, void* stream = nullptr);
    /// C := epilogue(Aᵀ·B) with device pointers (cuda only), enqueued on `stream` without
    /// waiting. Tiled ELL only. Throws InvalidInput on a host backend or for CSR.
    void multiply_transposed_device(DenseView<const ValueType> b, DenseView<ValueType> c,
                                    const Epilogue<ValueType>& epilogue = {}, void* stream = nullptr);
    /// The register factor of the last tiled-ELL product (cuda may halve the asked one to fit
    /// shared memory); 0 before the first or for CSR.
    int last_register_factor() const { return last_register_factor_; }
    /// The kernel that runs, as --verbose says it ("cpu tiled ELL, R = 16", ...).
    std::string kernel_description(size_type k) const;
    /// Sizes, padding, reuse, backend and kernel for metrics files (with the bank order's
    /// wavefronts per slot row when it was applied).
    nlohmann::json describe() const;
    /// The bank order's figures, once applied to the device copy (bank_order on cuda).
    const std::optional<BankOrder>& bank_order() const { return bank_order_; }
    /// The row groups' figures, once the device copy is made of them (row_groups > 1 on cuda).
    const std::optional<RowGroupFigures>& row_groups() const { return row_groups_; }

private:
    struct Device;
    struct DeviceDeleter {  // defined with Device (core/cuda), so this header needs no CUDA
        void operator()(Device* d) const;
    };
    SpmmOperatorConfig config_;
    SparseFormat format_ = SparseFormat::csr;
    size_type rows_ = 0, cols_ = 0, nnz_ = 0;
    int last_register_factor_ = 0;
    std::optional<BankOrder> bank_order_;
    std::optional<RowGroupFigures> row_groups_;
    Csr<ValueType, IndexType> csr_;
    TiledEll<ValueType, IndexType> tiled_;
    std::unique_ptr<Device, DeviceDeleter> device_;

    void make_device();
    void make_device_transposed(const SpmmOperator& a);  // transposed_on_device's device half
    void order_device_slots();                           // config_.bank_order on the device copy
    void make_device_row_groups();                       // config_.row_groups > 1 on cuda
    std::string kernel_without_values(size_type k) const;  // kernel_description less the value type
    void multiply_on_device(DenseView<const ValueType> b, DenseView<ValueType> c, const Epilogue<ValueType>& ep,
                            void* stream, bool host_operands);
    void multiply_transposed_on_device(DenseView<const ValueType> b, DenseView<ValueType> c,
                                       const Epilogue<ValueType>& ep, void* stream, bool host_operands);
};

}  // namespace tessel
