// Generated problems straight into the binary caches (generate_binary.hpp).
#include "apps/spdnn/driver/generate_binary.hpp"

#include <filesystem>

#include "apps/spdnn/io/cache.hpp"
#include "apps/spdnn/io/cache_stream.hpp"
#include "apps/spdnn/network/generator.hpp"
#include "core/error.hpp"

namespace tessel::spdnn {

namespace fs = std::filesystem;

BinaryProblemFiles binary_problem_files(const std::string& out_dir, size_type neurons, size_type layers) {
    const std::string n = std::to_string(neurons);
    BinaryProblemFiles files;
    files.layer_dir = (fs::path(out_dir) / ("neuron" + n)).string();
    files.network_cache = network_cache_path(files.layer_dir, neurons, layers, CacheOptions{});
    files.images_text = (fs::path(out_dir) / ("sparse-images-" + n + ".tsv")).string();
    files.images_cache = images_cache_path(files.images_text, neurons, 0, CacheOptions{});
    return files;
}

void write_generated_network_cache(const BinaryProblemFiles& files, size_type neurons, size_type layers,
                                   std::uint64_t seed, std::optional<WeightLayout> tiled) {
    if (layers < 1) TESSEL_INVALID_INPUT("--layers", 0, "must be positive");
    const size_type period = radix_net_period(neurons);  // checks N
    std::error_code ec;
    fs::create_directories(files.layer_dir, ec);
    if (ec) TESSEL_INVALID_INPUT(files.layer_dir, 0, "cannot create directory: " + ec.message());
    // Every RadiX-Net layer has 32 nonzeros per row.
    NetworkCacheWriter writer(files.network_cache, neurons, std::vector<size_type>(layers, 32 * neurons),
                              generated_signature, tiled);
    std::vector<Index> perm;
    for (size_type k = 0; k < layers; ++k) {
        if (k % period == 0) perm = radix_net_permutation(neurons, k / period, seed);
        writer.write_layer(k, radix_net_layer(neurons, k + 1, perm));
    }
    writer.commit();
}

void write_generated_images_cache(const BinaryProblemFiles& files, const Images& images) {
    std::error_code ec;
    fs::create_directories(fs::path(files.images_cache).parent_path(), ec);
    if (ec) TESSEL_INVALID_INPUT(files.images_cache, 0, "cannot create directory: " + ec.message());
    write_images_cache(files.images_cache, images, 0, generated_signature);
}

}  // namespace tessel::spdnn
