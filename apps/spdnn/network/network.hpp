// The Graph Challenge network and input images: file layout, the bias per N, loading, checks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/formats/csr.hpp"
#include "core/types.hpp"

namespace tessel::spdnn {

/// Values are single precision (the Challenge's files hold 1/16 and 1); indices 32-bit.
using Value = float;
using Index = std::int32_t;
/// One weight matrix W_k: rows = input neurons, columns = output neurons (0-based).
using Layer = Csr<Value, Index>;
/// Input features Y0: rows = images, columns = neurons.
using Images = Csr<Value, Index>;

/// The activation cap of the Challenge: Y = min(YMAX, max(0, Z + bias)).
inline constexpr Value activation_cap = 32;
/// Images in the official input file.
inline constexpr size_type official_image_count = 60000;

/// True for the Challenge's layer widths 1024, 4096, 16384, 65536.
bool is_official_neurons(size_type neurons);

/// The Challenge's bias for N neurons (FORMATS.md §1): 1024 -> -0.30, 4096 -> -0.35,
/// 16384 -> -0.40, 65536 -> -0.45. Throws InvalidInput for any other N.
Value official_bias(size_type neurons);

/// A network of L layers of N x N weights and one bias for every layer and neuron.
struct Network {
    size_type neurons = 0;
    Value bias = 0;
    std::vector<Layer> layers;

    size_type layer_count() const { return static_cast<size_type>(layers.size()); }
    /// Sum over layers of nnz(W_k) (32·N·L for the Challenge's networks).
    size_type total_edges() const;
};

/// What inference needs to know of a network besides its weights.
struct NetworkShape {
    size_type neurons = 0;
    size_type layers = 0;
    Value bias = 0;
    size_type edges = 0;  // sum over layers of nnz(W_k)
};
NetworkShape shape_of(const Network& network);

/// Where the official files of an N-neuron network live below `dir`. `dir` may be the
/// download folder (holding neuron{N}/ and sparse-images-{N}.tsv) or the neuron{N}/ folder.
struct ProblemPaths {
    std::string layer_dir;   // the folder with n{N}-l{k}.tsv
    std::string images;      // sparse-images-{N}.tsv next to neuron{N}/ (may not exist)
    std::string categories;  // neuron{N}-l{L}-categories.tsv next to neuron{N}/
};
ProblemPaths problem_paths(const std::string& dir, size_type neurons, size_type layers);

/// `layer_dir`/n{N}-l{k}.tsv (k 1-based), whether or not it exists.
std::string layer_file_name(const std::string& layer_dir, size_type neurons, size_type k);

/// The file of layer k (1-based) in `layer_dir`: n{N}-l{k}.tsv, or n{N}-l{k}.mtx when only
/// the Matrix Market form exists. Throws InvalidInput "dir/n1024-l7.tsv: missing layer file
/// (layer 7 of 120)" when neither exists.
std::string layer_file(const std::string& layer_dir, size_type neurons, size_type k,
                       size_type layers);

/// Reads one layer (TSV or Matrix Market by extension) and checks it against N: indices in
/// 1..N (reported by the reader with file and line), a Matrix Market size other than N x N,
/// or a layer whose largest index is at most N/2 ("looks like a layer of a 512-neuron
/// network"). Throws InvalidInput naming the file.
Layer read_layer(const std::string& path, size_type neurons);

/// Reads L layers of `layer_dir` in parallel over files (each file's parse is parallel too).
/// `bias` is the bias to use. Throws InvalidInput for missing or bad files.
Network read_network(const std::string& layer_dir, size_type neurons, size_type layers,
                     Value bias);

/// Reads the images (TSV or Matrix Market by extension) as a num_images x N CSR.
/// num_images 0: the official 60000 is the bound on image ids and the count is then the
/// largest id used. Throws InvalidInput "file:line: image 60001 outside 1..60000", a Matrix
/// Market file whose column count is not N.
Images read_images(const std::string& path, size_type neurons, size_type num_images = 0);

/// Reads a categories file: 1-based image ids, strictly ascending, each at most num_images
/// (0: no bound). Throws InvalidInput "file:line: ..." (not ascending, not an id).
std::vector<std::int64_t> read_categories(const std::string& path, size_type num_images = 0);

/// Checks a network in memory: every layer N x N. Throws DimensionMismatch.
void check_network(const Network& network);

}  // namespace tessel::spdnn
