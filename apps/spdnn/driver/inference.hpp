// Graph Challenge inference: batches of images through the layers on one or many MPI ranks,
// with live-row compaction and rebalancing of live images between ranks.
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "apps/spdnn/engines/engine.hpp"
#include "apps/spdnn/network/layer_weights.hpp"
#include "apps/spdnn/network/network.hpp"
#include "core/timer.hpp"
#include "core/types.hpp"

namespace tessel::spdnn {

struct InferenceOptions {
    /// cpu, or cuda (NotCompiled / CudaError when this build or machine has none), or auto.
    Backend backend = Backend::automatic;
    KernelChoice kernel = KernelChoice::automatic;
    /// Images per register tile (0: the kernel's default).
    int register_factor = 0;
    /// Output neurons per thread of the cuda layer kernel (1: off; 2, 4, 8: row groups), in the
    /// first row_group_layers layers (0: all).
    size_type row_groups = 1;
    size_type row_group_layers = 0;
    /// Drop all-zero image rows after every layer (ignored, with a note, when bias > 0).
    bool compaction = true;
    /// Images per batch on a rank (0: as many as memory_budget allows, at most all).
    size_type batch_images = 0;
    /// Bytes the activations of one batch may take (two buffers of batch x N values).
    size_type memory_budget = size_type(4) << 30;
    /// Rebalance live images among ranks when the largest count exceeds
    /// rebalance_threshold x the mean (and the mean is at least one tile).
    bool rebalance = true;
    double rebalance_threshold = 1.25;
    /// Ranks (MPI_COMM_NULL: this process alone, no MPI calls).
    MPI_Comm comm = MPI_COMM_NULL;
    /// Print a progress line per layer (rank 0; redrawn on a terminal).
    bool progress = false;
    /// Print one line per layer (rank 0).
    bool verbose = false;
};

struct LayerReport {
    size_type live_rows = 0;      // after the layer, all ranks
    double seconds = 0;           // wall time of the layer (slowest rank)
    double kernel_seconds = 0;    // slowest rank
    double compaction_seconds = 0;
    double rebalance_seconds = 0;
    double weight_wait_seconds = 0;
};

struct InferenceResult {
    /// 1-based ids (ascending) of the images with a nonzero final row, on every rank.
    std::vector<std::int64_t> categories;
    /// Inference time (the Challenge's T): layers, compaction, rebalancing, gathering the
    /// answer; not reading files or converting the weights up front.
    double seconds = 0;
    std::vector<LayerReport> layers;
    PhaseTimes phases;  // kernel, compaction, rebalance, weight_wait, gather (slowest rank)
    std::string kernel;
    std::string backend;
    std::string weights;
    int register_factor = 0;
    bool compaction = true;
    size_type batches = 0;
    size_type batch_images = 0;
    int ranks = 1;
    size_type rebalances = 0;
    size_type rows_moved = 0;
    size_type images = 0;
    size_type edges = 0;  // sum over layers of nnz(W_k)
    /// core/device_traffic.hpp's counters of this run: {"setup", "steady" (the layer loops,
    /// one step per layer and batch), "finish", "steady_steps"}; zero on the cpu backend.
    nlohmann::json device_traffic;
    /// The Challenge's rate: images · edges / seconds.
    double edges_per_second() const { return seconds > 0 ? double(images) * double(edges) / seconds : 0.0; }
};

/// Throws InvalidInput for the reference backend: no engine runs there (the reference inference
/// is its own function, --reference). Checked where options are parsed and again by infer().
void check_inference_backend(Backend backend);

/// Runs the network on `images` (every rank passes the same images and weights; rank p takes
/// a contiguous share, balanced by count). `weights` hands out Wᵀ per layer (resident or
/// streamed); `network` gives N, L, the bias and the edge count. Collective over
/// options.comm. Throws NotCompiled / CudaError for cuda without CUDA, InvalidInput for bad
/// options, DimensionMismatch for images with the wrong N.
InferenceResult infer(const NetworkShape& network, LayerWeights& weights, const Images& images,
                      const InferenceOptions& options);

/// Convenience: resident weights converted here (their time not counted), then infer().
InferenceResult infer(const Network& network, const Images& images, const InferenceOptions& options);

}  // namespace tessel::spdnn
