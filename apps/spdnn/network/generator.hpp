// Synthetic Graph Challenge problems with the structure of the real ones (FORMATS.md §1):
// RadiX-Net layers J16 ⊗ B_k and digit-like 0/1 images, written in the official layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apps/spdnn/network/network.hpp"

namespace tessel::spdnn {

/// Every weight of the Challenge's networks: 1/16.
inline constexpr Value generated_weight = Value(0.0625);

/// Radix-2 RadiX-Net layer k (1-based) of an N-neuron network, N = 16·B with B a power of
/// two >= 2: W_k = J16 ⊗ B_k, B_k(r, c) != 0 exactly when (r - c) mod B is 0 or
/// s = 2^((k-1) mod log2 B); every value 1/16; 32 nonzeros per row and per column.
/// With `row_perm` (size N, a permutation) row i of the result is row row_perm[i] of that
/// pattern. Throws InvalidInput when N is not 16 times a power of two >= 2.
Layer radix_net_layer(size_type neurons, size_type k, const std::vector<Index>& row_perm = {});

/// Layers per block of the RadiX-Net pattern: log2(N/16) (6 for N = 1024).
size_type radix_net_period(size_type neurons);

/// The row permutation of block `block` (0-based) of layers: empty (none) for block 0, else
/// a random permutation of 0..N-1 from (seed, block).
std::vector<Index> radix_net_permutation(size_type neurons, size_type block, std::uint64_t seed);

/// L layers: blocks of radix_net_period layers; the first block unpermuted, each later block
/// with its input (row) indices permuted by one random permutation shared by its layers.
Network generate_network(size_type neurons, size_type layers, Value bias, std::uint64_t seed = 2020);

/// The knobs of the digit drawings (defaults tuned so that the live rows of a generated
/// 1024-neuron network fall like the real network's, FORMATS.md §1: for 1200 images the
/// generated problem keeps 993, 695, 370, 177, 94, 53, 35, 28 rows after layers 1-8 and 21
/// after layer 24; the real one 1098, 786, 415, 195, 98, 56, 31, 22, then nearly constant).
struct ImageStyle {
    double pen_min = 0.75;      // pen radius, MNIST pixels: pen_min + pen_spread·U(0,1)
    double pen_spread = 0.25;
    double extra_strokes = 3;   // strokes = 1 + round(extra_strokes·U·U)
    double scale = 1.2;         // size of arcs, bars and hooks
};

/// `count` images of sqrt(N) x sqrt(N) pixels (h x N/h when N is not a square), each a
/// handwritten-digit-like drawing (one to three pen strokes: arcs, loops and lines inside
/// the central 20/28 of the frame, as MNIST digits are), thresholded to 0/1 and flattened
/// column-major; about 9% of the pixels are set (the real images: about 10%). Values 1. Deterministic per seed and image.
Images generate_images(size_type neurons, size_type count, std::uint64_t seed = 2020,
                       const ImageStyle& style = {});

/// Paths of a problem written by write_problem.
struct ProblemFiles {
    std::string layer_dir;   // out/neuron{N}
    std::string images;      // out/sparse-images-{N}.tsv
    std::string categories;  // out/neuron{N}-l{L}-categories.tsv (empty when not written)
};

/// Writes the official layout below `out_dir` (created when missing): neuron{N}/n{N}-l{k}.tsv,
/// sparse-images-{N}.tsv and, when `categories` is given, neuron{N}-l{L}-categories.tsv.
/// Layers are written in parallel; each file atomically. Throws InvalidInput when a file
/// cannot be written.
ProblemFiles write_problem(const std::string& out_dir, const Network& network,
                           const Images& images, const std::vector<std::int64_t>* categories);

}  // namespace tessel::spdnn
