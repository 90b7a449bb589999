// Reading the official file layout and checking the network against N.
#include "apps/spdnn/network/network.hpp"

#include <algorithm>
#include <exception>
#include <filesystem>

#include "core/error.hpp"
#include "io/graph_challenge.hpp"
#include "io/matrix_market.hpp"

namespace tessel::spdnn {

namespace fs = std::filesystem;

bool is_official_neurons(size_type neurons) {
    return neurons == 1024 || neurons == 4096 || neurons == 16384 || neurons == 65536;
}

Value official_bias(size_type neurons) {
    switch (neurons) {
    case 1024: return Value(-0.30);
    case 4096: return Value(-0.35);
    case 16384: return Value(-0.40);
    case 65536: return Value(-0.45);
    default:
        TESSEL_INVALID_INPUT("--neurons", 0,
                             std::to_string(neurons) +
                                 " has no official bias (1024, 4096, 16384, 65536); give --bias");
    }
}

size_type Network::total_edges() const {
    size_type total = 0;
    for (const auto& layer : layers) total += layer.nnz();
    return total;
}

NetworkShape shape_of(const Network& network) {
    return {network.neurons, network.layer_count(), network.bias, network.total_edges()};
}

ProblemPaths problem_paths(const std::string& dir, size_type neurons, size_type layers) {
    const std::string n = std::to_string(neurons);
    fs::path root = fs::path(dir).lexically_normal();
    if (!root.has_filename() && root.has_parent_path()) root = root.parent_path();  // "dir/"
    ProblemPaths paths;
    fs::path parent;
    if (fs::is_directory(root / ("neuron" + n))) {
        paths.layer_dir = (root / ("neuron" + n)).string();
        parent = root;
    } else {
        paths.layer_dir = root.string();
        parent = root.has_parent_path() ? root.parent_path() : fs::path(".");
    }
    paths.images = (parent / ("sparse-images-" + n + ".tsv")).string();
    paths.categories =
        (parent / ("neuron" + n + "-l" + std::to_string(layers) + "-categories.tsv")).string();
    return paths;
}

std::string layer_file_name(const std::string& layer_dir, size_type neurons, size_type k) {
    return (fs::path(layer_dir) / ("n" + std::to_string(neurons) + "-l" + std::to_string(k) + ".tsv"))
        .string();
}

std::string layer_file(const std::string& layer_dir, size_type neurons, size_type k,
                       size_type layers) {
    const std::string stem = "n" + std::to_string(neurons) + "-l" + std::to_string(k);
    const fs::path tsv = fs::path(layer_dir) / (stem + ".tsv");
    if (fs::exists(tsv)) return tsv.string();
    const fs::path mtx = fs::path(layer_dir) / (stem + ".mtx");
    if (fs::exists(mtx)) return mtx.string();
    TESSEL_INVALID_INPUT(tsv.string(), 0,
                         "missing layer file (layer " + std::to_string(k) + " of " +
                             std::to_string(layers) + ")");
}

namespace {

bool is_matrix_market(const std::string& path) {
    const auto ext = fs::path(path).extension().string();
    return ext == ".mtx" || ext == ".mm";
}

}  // namespace

Layer read_layer(const std::string& path, size_type neurons) {
    Layer layer;
    if (is_matrix_market(path)) {
        layer = io::read_matrix_market_csr<Value, Index>(path);
        if (layer.rows() != neurons || layer.cols() != neurons)
            TESSEL_INVALID_INPUT(path, 0,
                                 "layer is " + std::to_string(layer.rows()) + " x " +
                                     std::to_string(layer.cols()) + ", expected " +
                                     std::to_string(neurons) + " x " + std::to_string(neurons) +
                                     " (--neurons)");
    } else {
        layer = io::read_layer_tsv<Value, Index>(path, neurons);
    }
    // A layer of a smaller network reads without an index error; its indices stop early.
    size_type largest = 0;
    for (size_type i = 0; i < layer.rows(); ++i)
        if (layer.row_nnz(i) > 0) largest = std::max(largest, i + 1);
    for (const auto j : layer.col_idx()) largest = std::max<size_type>(largest, size_type(j) + 1);
    if (neurons >= 2 && largest <= neurons / 2)
        TESSEL_INVALID_INPUT(path, 0,
                             "largest neuron index is " + std::to_string(largest) +
                                 ", expected a layer of " + std::to_string(neurons) +
                                 " neurons (a layer of a different network?)");
    return layer;
}

Network read_network(const std::string& layer_dir, size_type neurons, size_type layers,
                     Value bias) {
    if (neurons < 1) TESSEL_INVALID_INPUT("--neurons", 0, "must be positive");
    if (layers < 1) TESSEL_INVALID_INPUT("--layers", 0, "must be positive");
    if (!fs::is_directory(layer_dir))
        TESSEL_INVALID_INPUT(layer_dir, 0, "network directory not found");
    // Missing files are reported before any parsing starts.
    std::vector<std::string> files(layers);
    for (size_type k = 0; k < layers; ++k) files[k] = layer_file(layer_dir, neurons, k + 1, layers);
    Network net;
    net.neurons = neurons;
    net.bias = bias;
    net.layers.resize(layers);
    // Files one after another (each parse is parallel); the first error is thrown.
    for (size_type k = 0; k < layers; ++k) net.layers[k] = read_layer(files[k], neurons);
    // The Challenge's networks (N = 1024, 4096, 16384, 65536) are RadiX-Nets of 32 connections
    // per neuron in every layer (so are ours): a file cut at a line boundary reads cleanly but
    // has fewer. Other sizes are the user's own networks, of any count.
    const bool official = neurons == 1024 || neurons == 4096 || neurons == 16384 || neurons == 65536;
    for (size_type k = 0; official && k < layers; ++k)
        if (net.layers[k].nnz() != 32 * neurons)
            TESSEL_INVALID_INPUT(files[k], 0, "has " + std::to_string(net.layers[k].nnz()) + " entries, a layer of the " +
                                                  std::to_string(neurons) + "-neuron Challenge network has " +
                                                  std::to_string(32 * neurons) + " (32 per neuron): truncated?");
    return net;
}

Images read_images(const std::string& path, size_type neurons, size_type num_images) {
    Images images;
    if (is_matrix_market(path)) {
        images = io::read_matrix_market_csr<Value, Index>(path);
        if (images.cols() != neurons)
            TESSEL_INVALID_INPUT(path, 0,
                                 "images have " + std::to_string(images.cols()) +
                                     " features, expected " + std::to_string(neurons) +
                                     " (--neurons)");
        if (num_images > 0 && images.rows() > num_images)
            TESSEL_INVALID_INPUT(path, 0,
                                 std::to_string(images.rows()) + " images, more than " +
                                     std::to_string(num_images) + " (--num-images)");
    } else {
        images = io::read_images_tsv<Value, Index>(
            path, num_images > 0 ? num_images : official_image_count, neurons);
    }
    if (num_images > 0 && images.rows() < num_images) {
        // A Matrix Market file with fewer rows: pad with empty images up to the count.
        std::vector<size_type> rp = images.row_ptr();
        rp.resize(num_images + 1, rp.back());
        images = Images(num_images, neurons, std::move(rp), images.col_idx(), images.values(), path);
    }
    if (num_images == 0) {
        // The count is the largest image id in use.
        size_type last = images.rows();
        while (last > 0 && images.row_nnz(last - 1) == 0) --last;
        if (last == 0) TESSEL_INVALID_INPUT(path, 0, "no image has a nonzero feature");
        if (last < images.rows()) {
            std::vector<size_type> rp(images.row_ptr().begin(), images.row_ptr().begin() + last + 1);
            images = Images(last, neurons, std::move(rp), images.col_idx(), images.values(), path);
        }
    }
    return images;
}

std::vector<std::int64_t> read_categories(const std::string& path, size_type num_images) {
    return io::read_categories(path, num_images);
}

void check_network(const Network& network) {
    for (size_type k = 0; k < network.layer_count(); ++k) {
        const auto& w = network.layers[k];
        TESSEL_ENSURE_DIMS(w.rows() == network.neurons && w.cols() == network.neurons,
                           "layer " + std::to_string(k + 1) + " is " + std::to_string(w.rows()) +
                               " x " + std::to_string(w.cols()) + ", expected " +
                               std::to_string(network.neurons) + " x " +
                               std::to_string(network.neurons));
    }
}

}  // namespace tessel::spdnn
