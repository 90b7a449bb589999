// The projection operator of a reconstruction: y := A·x and x := Aᵀ·y on K slices at once
// (the K columns of one SpMM), local (tiled ELL or CSR) or distributed over data ranks.
#pragma once

#include <mpi.h>

#include <future>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/xct/geometry/geometry.hpp"
#include "apps/xct/operator/ordering.hpp"
#include "apps/xct/operator/system_matrix.hpp"
#include "core/comm/exchange_executor.hpp"
#include "core/comm/topology.hpp"
#include "core/dense.hpp"
#include "core/dist/sender_multiplies_spmm.hpp"
#include "core/formats/tiled_ell.hpp"
#include "core/operator/spmm_operator.hpp"
#include "core/timer.hpp"

namespace tessel::xct {

/// The local SpMM on A and Aᵀ: core's operator in its format, tiled ELL (thesis 2.3, the
/// default) or CSR (to compare), named as core names them. Both run on one rank and on data ranks.
using Kernel = SparseFormat;

/// Counters of the SpMMs run so far.
struct SpmmStats {
    size_type forward_calls = 0, backward_calls = 0;
    double forward_seconds = 0, backward_seconds = 0;
    double flops = 0;   // 2·nnz·K per SpMM
    double bytes = 0;   // matrix bytes + K·(cols + rows)·sizeof(value) per SpMM
    double communicate_seconds = 0;  // reductions of partial results (distributed only)
    double seconds() const { return forward_seconds + backward_seconds; }
};

/// A and Aᵀ of this rank. Vectors are row-major with K columns (slices): x has pixels() rows
/// (this rank's pixels, in ordered positions), y has rays() rows.
template <typename ValueType>
class Projector {
public:
    virtual ~Projector() = default;
    virtual size_type pixels() const = 0;
    virtual size_type rays() const = 0;
    /// First ordered position of this rank's pixels and rays.
    virtual size_type first_pixel() const { return 0; }
    virtual size_type first_ray() const { return 0; }
    /// y := A·x. x is left unchanged (it may be moved out and back in). Throws DimensionMismatch.
    virtual void forward(DenseMatrix<ValueType>& x, DenseMatrix<ValueType>& y) = 0;
    /// x := Aᵀ·y. y is left unchanged. Throws DimensionMismatch.
    virtual void backward(DenseMatrix<ValueType>& y, DenseMatrix<ValueType>& x) = 0;
    /// True when A and Aᵀ are resident on a device and take the device operands below.
    virtual bool on_device() const { return false; }
    /// y := A·x and x := Aᵀ·y on row-major device views, enqueued on the default stream without
    /// waiting (device_products.cpp). Throw InvalidInput where !on_device(), DimensionMismatch.
    virtual void forward_device(DenseView<const ValueType> x, DenseView<ValueType> y);
    virtual void backward_device(DenseView<const ValueType> y, DenseView<ValueType> x);
    /// Adds the device products' times recorded since the last call to stats(); called once
    /// the host has waited for the device.
    virtual void collect_device_times() {}
    /// Waits for what the build left running beside the host's work (on cuda, the matrices'
    /// uploads), so that none of it lands in the solver's loop. Called before the solver starts.
    virtual void finish_build() {}
    /// Bytes of A and Aᵀ held here (what one forward + backward pair reads at least once).
    virtual double matrix_bytes() const = 0;
    /// Nonzeros of this rank's share of A (the same count is in its share of Aᵀ).
    virtual size_type nnz() const = 0;
    /// Sizes, padding, reuse, kernel, for --verbose and the metrics file.
    virtual nlohmann::json describe() const = 0;
    const SpmmStats& stats() const { return stats_; }
    void reset_stats() { stats_ = {}; }

protected:
    SpmmStats stats_;
};

/// Options of the operator's storage and kernel.
struct ProjectorOptions {
    Kernel kernel = Kernel::tiled_ell;
    TiledEllConfig tiles{256, 4096};
    Backend backend = Backend::cpu;
    int register_factor = 0;  // 0: chosen from K
    bool half_values = false;  // --precision mixed: A's and Aᵀ's values in IEEE half (tiled ELL)
    // --transpose scatter: only A is stored (single rank, tiled ELL) and Aᵀ·y runs core's
    // transposed kernel on A's tiles: half the memory and no transpose in the build.
    bool scatter_transpose = false;
    // --bank-order: on cuda, the device copies of A and a stored Aᵀ in shared-memory bank order
    // (core's SpmmOperatorConfig::bank_order); never for A with the scatter kernel.
    bool bank_order = true;
    // --row-groups: on cuda, the device copies of A and Aᵀ as row groups of this many rays or
    // pixels a thread (core's SpmmOperatorConfig::row_groups); Aᵀ is then made on the host.
    size_type row_groups = 1;
};

/// The core operator configuration these options ask for.
SpmmOperatorConfig operator_config(const ProjectorOptions& options);

/// A and Aᵀ of one rank holding every pixel and ray (single rank, or batch-parallel ranks).
template <typename ValueType>
class LocalProjector final : public Projector<ValueType> {
public:
    /// Takes the CSR rows of A (all rays), forms Aᵀ (parallel transpose) and builds core's
    /// operator on both (freeing the CSR copies as it goes). `times` gets "build".
    LocalProjector(Csr<ValueType, Index> a, const ProjectorOptions& options, PhaseTimes* times = nullptr);
    /// Takes A and Aᵀ already in tiled ELL (a loaded operator cache).
    LocalProjector(TiledEll<ValueType, Index> a, TiledEll<ValueType, Index> at, const ProjectorOptions& options,
                   PhaseTimes* times = nullptr);
    /// Takes A in tiled ELL and makes Aᵀ from it (core's tiled transpose) unless Aᵀ is the
    /// scatter kernel on A. On cuda A goes up on a thread of its own and a second thread makes
    /// Aᵀ (its layout on the host, its slots on the device: SpmmOperator::transposed_on_device),
    /// beside the sinograms' preparation; whatever needs a matrix (a product, describe(),
    /// at_tiled(), which then has no slots) waits for it.
    LocalProjector(TiledEll<ValueType, Index> a, const ProjectorOptions& options, PhaseTimes* times = nullptr);
    // The build's threads hold `this`: the operator stays where it was made.
    LocalProjector(const LocalProjector&) = delete;
    LocalProjector& operator=(const LocalProjector&) = delete;
    size_type pixels() const override { return pixels_; }
    size_type rays() const override { return rays_; }
    void forward(DenseMatrix<ValueType>& x, DenseMatrix<ValueType>& y) override;
    void backward(DenseMatrix<ValueType>& y, DenseMatrix<ValueType>& x) override;
    bool on_device() const override { return a_.config().backend == Backend::cuda; }
    void forward_device(DenseView<const ValueType> x, DenseView<ValueType> y) override;
    void backward_device(DenseView<const ValueType> y, DenseView<ValueType> x) override;
    void collect_device_times() override;
    void finish_build() override;
    double matrix_bytes() const override;
    size_type nnz() const override { return nnz_; }
    nlohmann::json describe() const override;
    /// The operators' tiled ELL forms (null with the csr kernel).
    const TiledEll<ValueType, Index>* a_tiled() const { return a_.tiled(); }
    const TiledEll<ValueType, Index>* at_tiled() const {
        join_build(true);
        return at_.tiled();
    }

private:
    void run(bool transposed, DenseMatrix<ValueType>& in, DenseMatrix<ValueType>& out);
    void count_product(bool transposed, size_type k);
    /// The operator a product uses (A, Aᵀ, or A for the scatter transpose), its upload waited for.
    SpmmOperator<ValueType, Index>& ready(bool transposed);
    /// Waits for what the build left running on A (its upload) or on Aᵀ (its transpose and
    /// upload), once, and records its seconds (its exceptions come out here).
    void join_build(bool stored_at) const;
    struct DeviceTimes;  // event pairs of the device products (device_products.cpp)
    struct DeviceTimesDeleter {
        void operator()(DeviceTimes* t) const;
    };
    std::unique_ptr<DeviceTimes, DeviceTimesDeleter> device_times_;

    template <typename V>
    friend std::unique_ptr<LocalProjector<V>> make_local_projector(const Geometry&, const Ordering&,
                                                                   const ProjectorOptions&, PhaseTimes*);

    ProjectorOptions options_;
    mutable nlohmann::json build_seconds_ = nlohmann::json::object();
    size_type pixels_ = 0, rays_ = 0, nnz_ = 0;
    SpmmOperator<ValueType, Index> a_, at_;
    // On cuda, A's upload and Aᵀ's layout on the host + slots on the device (seconds each
    // took), declared after the operators so that they are joined before the operators go.
    // Mutable: the const accessors wait for them too (join_build).
    struct BesideSeconds {
        double layout = 0, on_device = 0;
    };
    mutable std::shared_future<double> a_upload_;
    mutable std::future<BesideSeconds> at_beside_;
};

/// Builds A for every ray of `ordering` (two-pass, parallel) and the local operator; with the
/// tiled ELL kernel straight in tiled ELL (no CSR copy, tiled_system_matrix.hpp).
template <typename ValueType>
std::unique_ptr<LocalProjector<ValueType>> make_local_projector(const Geometry& geometry,
                                                                const Ordering& ordering,
                                                                const ProjectorOptions& options,
                                                                PhaseTimes* times = nullptr);

/// How the distributed operator reduces partial results.
struct DistributedOptions {
    bool hierarchical = true;
    size_type minibatch = 0;  // columns per minibatch (0: all K)
    bool pipelined = true;
    comm::ExchangeMethod method = comm::ExchangeMethod::point_to_point;
    Backend backend = Backend::cpu;  // cuda: A, partial rows and reductions on the device
    bool cuda_aware = false;         // cuda: device buffers to MPI when it is CUDA-aware
    ProjectorOptions local;          // the local operator's kernel, tiles and register factor
};

/// MemXCT data parallelism: data rank d owns a contiguous run of ordered pixels and of ordered
/// rays (each balanced by nonzeros) and multiplies as a sender: forward, its columns of A
/// (the rays through its pixels) give partial rays that are reduced into their owners; backward
/// the same with Aᵀ. Reductions are core/dist's sender-multiplies SpMM (direct or hierarchical,
/// pipelined minibatches). Build, collective over `data_comm`: rays counted in an even split and
/// shared, ray ranges cut by nonzeros, each rank traces its own rays (two-pass, parallel),
/// pixel ranges cut by the summed column counts, the entries sent to the owners of their
/// pixels (MPI_Alltoallv), footprints shared, plans made by partition.
template <typename ValueType>
class DistributedProjector final : public Projector<ValueType> {
public:
    DistributedProjector(MPI_Comm data_comm, const comm::Topology& topology, const Geometry& geometry,
                         const Ordering& ordering, size_type k, const DistributedOptions& options,
                         PhaseTimes* times = nullptr);
    size_type pixels() const override { return pixel_offsets_[rank_ + 1] - pixel_offsets_[rank_]; }
    size_type rays() const override { return ray_offsets_[rank_ + 1] - ray_offsets_[rank_]; }
    size_type first_pixel() const override { return pixel_offsets_[rank_]; }
    size_type first_ray() const override { return ray_offsets_[rank_]; }
    void forward(DenseMatrix<ValueType>& x, DenseMatrix<ValueType>& y) override;
    void backward(DenseMatrix<ValueType>& y, DenseMatrix<ValueType>& x) override;
    /// cuda: both products are dist::DeviceSenderMultipliesSpmm, which take device operands.
    bool on_device() const override { return on_device_; }
    /// The products on device views, ordered on the default stream (device_products.cpp): the
    /// host waits only before each exchange step's messages (the rows that leave the rank).
    void forward_device(DenseView<const ValueType> x, DenseView<ValueType> y) override;
    void backward_device(DenseView<const ValueType> y, DenseView<ValueType> x) override;
    void collect_device_times() override;
    double matrix_bytes() const override;
    size_type nnz() const override { return nnz_; }
    nlohmann::json describe() const override;
    const std::vector<size_type>& pixel_offsets() const { return pixel_offsets_; }
    const std::vector<size_type>& ray_offsets() const { return ray_offsets_; }

private:
    void run(dist::DistSpmm<ValueType, Index>& op, DenseMatrix<ValueType>& in,
             DenseMatrix<ValueType>& out, bool backward);
    void run_device(bool backward, DenseView<const ValueType> in, DenseView<ValueType> out);
    void count_product(const dist::DistSpmm<ValueType, Index>& op, const PhaseTimes& before, size_type in_rows,
                       bool backward);
    struct DeviceTimes;  // event pairs of the device products (device_products.cpp)
    struct DeviceTimesDeleter {
        void operator()(DeviceTimes* t) const;
    };
    std::unique_ptr<DeviceTimes, DeviceTimesDeleter> device_times_;
    bool on_device_ = false;
    void make_operators(MPI_Comm data_comm, const comm::Topology& topology, const DistributedOptions& options,
                        Csr<ValueType, Index> local_fwd, const std::vector<size_type>& local_fwd_rows,
                        Csr<ValueType, Index> local_bwd, const std::vector<size_type>& local_bwd_rows);

    int rank_ = 0, size_ = 1;
    size_type k_ = 0, nnz_ = 0, fwd_rows_ = 0, bwd_rows_ = 0;
    std::vector<size_type> pixel_offsets_, ray_offsets_;
    std::unique_ptr<dist::DistSpmm<ValueType, Index>> fwd_, bwd_;
    dist::DenseBlocks<ValueType> in_, out_;
    nlohmann::json info_;
};

}  // namespace tessel::xct
