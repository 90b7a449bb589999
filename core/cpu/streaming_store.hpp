// Non-temporal stores of finished output rows, at this source's level (the decision whether to
// stream is core/cpu/streaming_policy.hpp).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstring>

#include "core/cpu/isa_region.hpp"
#include "core/cpu/streaming_policy.hpp"

TESSEL_CPU_ISA_BEGIN
namespace detail {

/// Copies `bytes` (a multiple of 64) from the 64-byte aligned `src` to the 64-byte aligned
/// `dst` with non-temporal stores. Call streaming_fence() before another thread reads dst.
inline void stream_lines(void* dst, const void* src, std::size_t bytes) {
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
#if TESSEL_CPU_ISA_LEVEL >= 4
    for (std::size_t off = 0; off < bytes; off += 64)
        _mm512_stream_si512(reinterpret_cast<__m512i*>(d + off), _mm512_load_si512(reinterpret_cast<const void*>(s + off)));
#elif TESSEL_CPU_ISA_LEVEL >= 3
    for (std::size_t off = 0; off < bytes; off += 32)
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + off), _mm256_load_si256(reinterpret_cast<const __m256i*>(s + off)));
#else
    for (std::size_t off = 0; off < bytes; off += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + off), _mm_load_si128(reinterpret_cast<const __m128i*>(s + off)));
#endif
}

/// Orders this thread's streaming stores before what follows (OpenMP barriers do not).
inline void streaming_fence() { _mm_sfence(); }

}  // namespace detail
TESSEL_CPU_ISA_END
