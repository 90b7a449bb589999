// What an inference will hold, estimated before anything large is allocated: a run that
// cannot fit is refused up front with the estimate (and the way out: stream from disk, fewer
// images per batch), and the estimate is printed beside the measured peak.
#pragma once

#include <string>

#include "core/types.hpp"

namespace tessel::spdnn {

struct MemoryEstimate {
    double base = 0;         // the process itself (MPI, libraries): about 220 MiB measured
    double images = 0;       // the images as CSR (every rank holds them all), on cuda also as bits
    double activations = 0;  // two buffers of batch x N values
    double weights = 0;      // resident: every layer as CSR and tiled ELL; streamed: two layers
    int ranks = 1;           // processes on this node
    double per_rank() const { return base + images + activations + weights; }
    double total() const { return per_rank() * ranks; }
    /// "4.1 GiB per rank (images 2.6 GiB, activations 1.0 GiB, weights 64 MiB, process 256 MiB)"
    std::string text() const;
};

struct EstimateInput {
    size_type neurons = 0, layers = 0, edges = 0;
    size_type images = 0, image_nnz = 0;
    size_type batch_images = 0;  // 0: the default (activations within 4 GiB)
    int ranks = 1;
    bool streamed = false;  // weights streamed (two layers in memory)
    bool from_disk = false; // streamed from the cache (no CSR copy of the network)
};

MemoryEstimate estimate_inference_memory(const EstimateInput& in);

/// Throws OutOfMemoryBudget "--neurons N --layers L: the inference needs X per rank (images,
/// activations, weights, process), more than the Y available on this node (the way out)"
/// when the estimate for every rank on the node exceeds what is free.
void require_inference_memory(const EstimateInput& in);

}  // namespace tessel::spdnn
