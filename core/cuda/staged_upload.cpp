// Large uploads from pageable memory through two pinned chunks (core/cuda/transfer.hpp): the host
// copies a chunk into one while the other crosses to the device, several cores copying, so a
// 1.5 GB operator goes up at the pinned rate instead of the pageable one.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>

#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/stream.hpp"
#include "core/cuda/transfer.hpp"

namespace tessel::cuda {

namespace {

constexpr std::size_t chunk_bytes = std::size_t(32) << 20;

// dst[0 .. bytes) := src[0 .. bytes) on all the host's threads.
void parallel_copy(char* dst, const char* src, std::size_t bytes) {
    constexpr std::size_t piece = std::size_t(1) << 20;
    const long long pieces = static_cast<long long>((bytes + piece - 1) / piece);
#pragma omp parallel for schedule(static)
    for (long long p = 0; p < pieces; ++p) {
        const std::size_t first = static_cast<std::size_t>(p) * piece;
        std::memcpy(dst + first, src + first, std::min(piece, bytes - first));
    }
}

}  // namespace

void copy_to_device_staged(void* device, const void* host, std::size_t bytes, cudaStream_t stream) {
    if (bytes < 2 * chunk_bytes || device_traffic::is_pinned(host)) return copy_to_device(device, host, bytes, stream);
    PinnedBuffer<char> stage[2];
    Event done[2];
    bool used[2] = {false, false};
    const char* src = static_cast<const char*>(host);
    char* dst = static_cast<char*>(device);
    for (std::size_t offset = 0, i = 0; offset < bytes; offset += chunk_bytes, ++i) {
        const std::size_t n = std::min(chunk_bytes, bytes - offset);
        const std::size_t b = i % 2;
        if (used[b]) synchronize_event(done[b].get());  // its last chunk has left
        stage[b].reserve(static_cast<size_type>(chunk_bytes));
        parallel_copy(stage[b].data(), src + offset, n);
        copy_to_device(dst + offset, stage[b].data(), n, stream);
        TESSEL_CUDA_CHECK(cudaEventRecord(done[b].get(), stream));
        used[b] = true;
    }
    for (std::size_t b = 0; b < 2; ++b)
        if (used[b]) synchronize_event(done[b].get());  // the chunks are freed on return
}

}  // namespace tessel::cuda
