// Non-temporal stores of finished output rows: an SpMM writes C once and never reads it, so
// a normal store costs a read-for-ownership of every line (C is read and written, 2x its
// bytes); a streaming store writes whole lines without reading them. Worth it only when C is
// much larger than the last-level cache (otherwise the next user would find it cached).
#pragma once

#include <immintrin.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/app/machine.hpp"
#include "core/types.hpp"

namespace tessel::cpu::detail {

constexpr std::size_t cache_line = 64;

/// Bytes of the last-level cache (32 MiB when the system does not say).
inline std::size_t last_level_cache_bytes() {
    // The machine's own figure from sysfs (core/app/machine.hpp), as the benches use; 32 MiB
    // when it cannot be read.
    static const std::size_t bytes = [] {
        const std::size_t llc = tessel::llc_bytes();
        return llc > 0 ? llc : std::size_t(32) << 20;
    }();
    return bytes;
}

/// True when rows of C may be streamed: C spans more than twice the last-level cache and every
/// row tile of `tile_bytes` starts on a cache line (C aligned, row pitch a multiple of a line).
inline bool use_streaming_stores(const void* c, size_type rows, size_type ld_bytes,
                                 size_type tile_bytes) {
    return tile_bytes > 0 && tile_bytes % cache_line == 0 && ld_bytes % cache_line == 0 &&
           reinterpret_cast<std::uintptr_t>(c) % cache_line == 0 &&
           static_cast<std::size_t>(rows) * static_cast<std::size_t>(ld_bytes) >
               2 * last_level_cache_bytes();
}

/// Copies `bytes` (a multiple of 64) from the 64-byte aligned `src` to the 64-byte aligned
/// `dst` with non-temporal stores. Call streaming_fence() before another thread reads dst.
inline void stream_lines(void* dst, const void* src, std::size_t bytes) {
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
#if defined(__AVX512F__)
    for (std::size_t off = 0; off < bytes; off += 64)
        _mm512_stream_si512(reinterpret_cast<__m512i*>(d + off),
                            _mm512_load_si512(reinterpret_cast<const void*>(s + off)));
#elif defined(__AVX__)
    for (std::size_t off = 0; off < bytes; off += 32)
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + off),
                            _mm256_load_si256(reinterpret_cast<const __m256i*>(s + off)));
#elif defined(__SSE2__)
    for (std::size_t off = 0; off < bytes; off += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + off),
                         _mm_load_si128(reinterpret_cast<const __m128i*>(s + off)));
#else
    std::memcpy(d, s, bytes);
#endif
}

/// Orders this thread's streaming stores before what follows (OpenMP barriers do not).
inline void streaming_fence() {
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

}  // namespace tessel::cpu::detail
