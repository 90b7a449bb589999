// When an SpMM writes C with non-temporal stores (core/cpu/streaming_store.hpp): C is written
// once and never read, so a normal store costs a read-for-ownership of every line (C read and
// written, 2x its bytes); a streaming store writes whole lines without reading them. Worth it
// only when C is much larger than the last-level cache. The same decision at every level.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/cache_size.hpp"
#include "core/types.hpp"

namespace tessel::cpu::detail {

constexpr std::size_t cache_line = 64;

/// Bytes of the last-level cache (32 MiB when the system does not say).
inline std::size_t last_level_cache_bytes() {
    static const std::size_t bytes = [] {
        const std::size_t llc = tessel::llc_bytes();
        return llc > 0 ? llc : std::size_t(32) << 20;
    }();
    return bytes;
}

/// True when rows of C may be streamed: C spans more than twice the last-level cache and every
/// row tile of `tile_bytes` starts on a cache line (C aligned, row pitch a multiple of a line).
inline bool use_streaming_stores(const void* c, size_type rows, size_type ld_bytes, size_type tile_bytes) {
    return tile_bytes > 0 && tile_bytes % cache_line == 0 && ld_bytes % cache_line == 0 &&
           reinterpret_cast<std::uintptr_t>(c) % cache_line == 0 &&
           static_cast<std::size_t>(rows) * static_cast<std::size_t>(ld_bytes) > 2 * last_level_cache_bytes();
}

}  // namespace tessel::cpu::detail
