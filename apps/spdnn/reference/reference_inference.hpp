// The oracle for tessel-spdnn: the obvious serial inference, dense activations of every
// image through every layer with reference::spmm and the epilogue, no compaction.
#pragma once

#include <cstdint>
#include <vector>

#include "apps/spdnn/network/network.hpp"
#include "core/dense.hpp"

namespace tessel::spdnn {

struct ReferenceOptions {
    /// Images carried through the layers together (each batch is independent).
    size_type batch_images = 64;
    /// Stop a batch once all its activations are zero (used only when bias <= 0: a zero row
    /// stays zero). Off by default, so that the oracle really runs every layer.
    bool stop_when_all_zero = false;
    /// Run batches on several OpenMP threads (each batch still serial and identical).
    bool parallel_batches = false;
};

/// Wᵀ of every layer as CSR with sorted columns: the A of Zᵀ = Wᵀ·Yᵀ.
std::vector<Layer> transposed_layers(const Network& network);

/// Y_k for all images after `layers` layers (all when < 0): dense images x N, row-major,
/// Y_k = min(32, max(0, Y_{k-1}·W_k + bias)) computed as Zᵀ = Wᵀ·Yᵀ by reference::spmm.
/// Throws DimensionMismatch when the images do not have N features.
DenseMatrix<Value> reference_activations(const Network& network, const Images& images,
                                         size_type layers = -1);

/// Y_1, ..., Y_L (each as reference_activations would give it), in one pass.
std::vector<DenseMatrix<Value>> reference_activations_per_layer(const Network& network, const Images& images);

/// The answer: 1-based ids (ascending) of the images whose row of Y_L is not all zero.
/// `live_per_layer`, when given, receives the live (not all-zero) rows after each layer
/// (rows of stopped batches count as dead, which they are).
std::vector<std::int64_t> reference_categories(const Network& network, const Images& images,
                                               const ReferenceOptions& options = {},
                                               std::vector<size_type>* live_per_layer = nullptr);

}  // namespace tessel::spdnn
