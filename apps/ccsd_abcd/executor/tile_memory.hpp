// A process-wide cache of large tile buffers: making B and C tiles block after block (and run
// after run, as CCSD iterates) reuses memory instead of paying first-touch page faults again,
// which cost about 0.7 ms per MiB on a virtual machine.
#pragma once

#include <cstddef>

namespace tessel::abcd::tile_memory {

/// Buffers of at least this many bytes go through the cache; smaller ones are plain
/// 64-byte-aligned operator new.
inline constexpr std::size_t cached_from = std::size_t(1) << 20;

/// A 64-byte-aligned buffer of `bytes`: the smallest cached buffer that holds it and wastes at
/// most a quarter, else a new one. Thread-safe. Throws std::bad_alloc.
void* allocate(std::size_t bytes);
/// Gives a buffer back (its size as asked for): kept while the cache stays under its limit,
/// freed otherwise. Thread-safe.
void release(void* p, std::size_t bytes) noexcept;
/// Most bytes kept for reuse (default: an eighth of physical memory). Lowering it frees buffers.
void set_limit(std::size_t bytes);
/// Bytes kept right now.
std::size_t cached_bytes();
/// Frees every kept buffer.
void trim();

}  // namespace tessel::abcd::tile_memory
