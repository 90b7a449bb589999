// tessel-spdnn generate: a RadiX-Net network, digit-like images and their categories, as the
// official text files or (--binary) straight into the binary caches, one layer at a time.
#include "apps/spdnn/driver/generate_command.hpp"

#include <mpi.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "apps/spdnn/driver/generate_binary.hpp"
#include "apps/spdnn/io/cache.hpp"
#include "apps/spdnn/network/generator.hpp"
#include "apps/spdnn/network/layer_weights.hpp"
#include "apps/spdnn/reference/reference_inference.hpp"
#include "apps/spdnn/reference/reference_streamed.hpp"
#include "core/app/memory_check.hpp"
#include "core/comm/mpi_types.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"
#include "io/graph_challenge.hpp"

namespace tessel::spdnn {

namespace {

Value bias_of(const GenerateArgs& a) {
    if (std::isnan(a.bias)) return official_bias(a.neurons);
    if (!std::isfinite(a.bias)) TESSEL_INVALID_INPUT("--bias", 0, "must be a finite number");
    return static_cast<Value>(a.bias);
}

void print_images(const GenerateArgs& a, const Images& images, double seconds) {
    std::printf("generated %lld images (%.1f features each) in %.2f s\n", static_cast<long long>(a.images),
                double(images.nnz()) / double(a.images), seconds);
}

// The official text files, the whole network in memory.
void generate_text(const GenerateArgs& a, Value bias) {
    Timer t;
    auto network = generate_network(a.neurons, a.layers, bias, a.seed);
    auto images = generate_images(a.neurons, a.images, a.seed);
    std::printf("generated N = %lld, L = %lld (RadiX-Net, %lld edges)\n", static_cast<long long>(a.neurons),
                static_cast<long long>(a.layers), static_cast<long long>(network.total_edges()));
    print_images(a, images, t.seconds());
    std::vector<std::int64_t> categories;
    if (!a.no_categories) {
        t.restart();
        ReferenceOptions ro;
        ro.batch_images = 4;
        ro.stop_when_all_zero = true;
        ro.parallel_batches = true;
        categories = reference_categories(network, images, ro);
        std::printf("categories by the reference inference: %zu of %lld images (%.2f s)\n", categories.size(),
                    static_cast<long long>(a.images), t.seconds());
    }
    t.restart();
    auto files = write_problem(a.out, network, images, a.no_categories ? nullptr : &categories);
    std::printf("wrote %s/, %s%s%s (%.2f s)\n", files.layer_dir.c_str(), files.images.c_str(),
                files.categories.empty() ? "" : ", ", files.categories.c_str(), t.seconds());
}

// The binary caches: the network one layer at a time, the categories by the layer-outer
// reference reading the layers back from the file.
void generate_binary(const GenerateArgs& a, Value bias) {
    const auto files = binary_problem_files(a.out, a.neurons, a.layers);
    std::optional<WeightLayout> tiled;
    if (a.tiled) tiled = weight_layout(a.neurons, a.block_rows, parse_reorder(a.reorder));
    Timer t;
    write_generated_network_cache(files, a.neurons, a.layers, a.seed, tiled);
    const size_type edges = 32 * a.neurons * a.layers;
    std::printf("wrote N = %lld, L = %lld (RadiX-Net, %lld edges) layer by layer to %s (%.2f s)%s\n",
                static_cast<long long>(a.neurons), static_cast<long long>(a.layers), static_cast<long long>(edges),
                files.network_cache.c_str(), t.seconds(),
                tiled ? (", with the layers in tiled ELL (block rows " + std::to_string(tiled->ell.block_rows) +
                         (tiled->reorder ? ", rows reordered for locality)" : ")"))
                            .c_str()
                      : "");
    t.restart();
    auto images = generate_images(a.neurons, a.images, a.seed);
    write_generated_images_cache(files, images);
    print_images(a, images, t.seconds());
    std::printf("wrote %s\n", files.images_cache.c_str());
    if (a.no_categories) return;
    app::require_memory("--images " + std::to_string(a.images), "the reference inference's dense activations",
                        2.0 * double(a.images) * double(a.neurons) * sizeof(Value));
    t.restart();
    const NetworkShape shape{a.neurons, a.layers, bias, edges};
    const std::string cache = files.network_cache;
    auto categories =
        reference_categories_streamed(shape, [&cache](size_type k) { return read_cached_layer(cache, k); }, images);
    const std::string path = (std::filesystem::path(a.out) / ("neuron" + std::to_string(a.neurons) + "-l" +
                                                              std::to_string(a.layers) + "-categories.tsv"))
                                 .string();
    io::write_categories(path, categories);
    std::printf("categories by the reference inference: %zu of %lld images (%.2f s), wrote %s\n", categories.size(),
                static_cast<long long>(a.images), t.seconds(), path.c_str());
}

}  // namespace

int run_generate(const GenerateArgs& a) {
    if (comm::rank_of(MPI_COMM_WORLD) != 0) return 0;  // one writer
    if (a.threads > 0) omp_set_num_threads(a.threads);
    const Value bias = bias_of(a);
    // At least a feature list (24 bytes) and a row pointer (8) per image: a count this node
    // cannot hold is refused with its size, not by std::bad_alloc.
    if (a.images > 0)
        app::require_memory("--images " + std::to_string(a.images), "the images' feature lists",
                            32.0 * double(a.images));
    if (a.binary)
        generate_binary(a, bias);
    else
        generate_text(a, bias);
    return 0;
}

}  // namespace tessel::spdnn
