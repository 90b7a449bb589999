// docs/api.md, sparse DNN inference: a generated Graph Challenge network (RadiX-Net layers of
// 1024 neurons) on generated images, checked against the reference inference.
#include <cstdio>

#include "apps/spdnn/driver/inference.hpp"
#include "apps/spdnn/network/generator.hpp"
#include "apps/spdnn/reference/reference_inference.hpp"

int main() try {
    // [spdnn]
    using namespace tessel::spdnn;
    const Network network = generate_network(1024, 24, official_bias(1024));  // N = 1024, L = 24
    const Images images = generate_images(1024, 400);                          // 400 x 1024 CSR
    InferenceOptions options;                                                  // this process, no MPI
    options.backend = tessel::Backend::cpu;
    const InferenceResult result = infer(network, images, options);
    std::printf("%zu of 400 images categorised, %.3g edges/s (%s)\n", result.categories.size(),
                result.edges_per_second(), result.kernel.c_str());
    // [spdnn]
    return result.categories == reference_categories(network, images) ? 0 : 1;
} catch (const tessel::Error& e) {
    std::fprintf(stderr, "spdnn_infer: %s\n", e.message().c_str());
    return 1;
}
