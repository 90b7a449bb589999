// The inference's memory, estimated from the sizes (memory_estimate.hpp).
#include "apps/spdnn/driver/memory_estimate.hpp"

#include <algorithm>
#include <cmath>

#include "core/app/byte_size.hpp"
#include "core/app/machine.hpp"
#include "core/error.hpp"
#include "core/kernels/column_compaction.hpp"

namespace tessel::spdnn {

namespace {

constexpr double process_bytes = 256.0 * (1 << 20);
constexpr double activation_budget = 4.0 * (1 << 30);  // InferenceOptions::memory_budget
constexpr double csr_bytes_per_nonzero = 8;            // 32-bit column + float value
constexpr double ell_bytes_per_nonzero = 8;            // tiled ELL: value + 16-bit index + padding, measured 6.4

}  // namespace

std::string MemoryEstimate::text() const {
    using app::format_bytes;
    return format_bytes(per_rank()) + " per rank (images " + format_bytes(images) + ", activations " +
           format_bytes(activations) + ", weights " + format_bytes(weights) + ", process " + format_bytes(base) + ")";
}

MemoryEstimate estimate_inference_memory(const EstimateInput& in) {
    MemoryEstimate e;
    e.ranks = std::max(1, in.ranks);
    e.base = process_bytes;
    // The CSR, and on cuda images of one value kept as bits by feature (never more bytes than
    // their column indices: the engine keeps the indices instead).
    const double bits = double(pattern_words(in.images)) * double(in.neurons) * 4;
    e.images = double(in.image_nnz) * csr_bytes_per_nonzero + double(in.images + 1) * 8 +
               std::min(bits, double(in.image_nnz) * 4);
    const double n = double(in.neurons);
    const double share = std::ceil(double(in.images) / e.ranks);
    double batch = in.batch_images > 0 ? double(in.batch_images) : std::floor(activation_budget / (2 * n * 4));
    batch = std::min(batch, std::max(share, 1.0));
    e.activations = 2 * batch * n * 4;
    const double layer = double(in.edges) / std::max<double>(1, double(in.layers));
    const double ell = ell_bytes_per_nonzero, csr = csr_bytes_per_nonzero;
    if (in.from_disk)  // two tiled-ELL buffers, the layer being read, and its conversion
        e.weights = layer * (2 * ell + 2 * csr);
    else  // loading the network holds the cache's arrays and the layers (twice the CSR); then
          // the CSR and the tiled ELL of every layer (resident) or two (streamed from host)
        e.weights = double(in.edges) * std::max(2 * csr, csr + (in.streamed ? 0.0 : ell)) + (in.streamed ? layer * 2 * ell : 0.0);
    return e;
}

void require_inference_memory(const EstimateInput& in) {
    const auto e = estimate_inference_memory(in);
    const double available = available_memory_bytes();
    if (available <= 0 || e.total() <= available) return;
    std::string text = "--neurons " + std::to_string(in.neurons) + " --layers " + std::to_string(in.layers) +
                       ": the inference needs " + e.text();
    if (e.ranks > 1) text += " x " + std::to_string(e.ranks) + " ranks";
    text += ", more than the " + app::format_bytes(available) + " available on this node";
    text += in.from_disk ? " (fewer --batch-images shrink the activations)"
                         : " (--stream-weights --stream-source disk holds two layers; fewer --batch-images shrink "
                           "the activations)";
    TESSEL_THROW(OutOfMemoryBudget, text);
}

}  // namespace tessel::spdnn
