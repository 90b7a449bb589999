// Generated problems written straight into the binary caches (no text files): the network
// one layer at a time, so that networks whose text (or whole CSR) would not fit can be made.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "apps/spdnn/network/layer_weights.hpp"
#include "apps/spdnn/network/network.hpp"

namespace tessel::spdnn {

/// Where write_generated_binary puts a problem below `out_dir`: the names tessel-spdnn infer
/// looks for when the text files are absent.
struct BinaryProblemFiles {
    std::string layer_dir;      // out/neuron{N}
    std::string network_cache;  // out/neuron{N}/n{N}-l{L}.tessel.h5
    std::string images_text;    // out/sparse-images-{N}.tsv (not written: the name infer starts from)
    std::string images_cache;   // out/sparse-images-{N}.tsv.n{N}.tessel.h5
};
BinaryProblemFiles binary_problem_files(const std::string& out_dir, size_type neurons, size_type layers);

/// The network of generate_network(neurons, layers, bias, seed), written layer by layer into
/// files.network_cache (at most one layer in memory; the permutation of one block of layers).
/// With `tiled`, each layer is also stored converted with that layout (tiled_cache.hpp), so
/// that streaming from disk only reads. Throws InvalidInput (bad N, folder not writable),
/// Hdf5Error.
void write_generated_network_cache(const BinaryProblemFiles& files, size_type neurons, size_type layers,
                                   std::uint64_t seed, std::optional<WeightLayout> tiled = std::nullopt);

/// The images into files.images_cache (as the images cache of the default image count).
void write_generated_images_cache(const BinaryProblemFiles& files, const Images& images);

}  // namespace tessel::spdnn
