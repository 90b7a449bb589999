// A process-wide cache of large tile buffers: making B and C tiles block after block (and run
// after run, as CCSD iterates) reuses memory instead of paying first-touch page faults again,
// which cost about 0.7 ms per MiB on a virtual machine. The cuda executor registers cached
// buffers with the device (pin below) so that tiles are copied straight from and to them: a
// buffer stays registered while it is cached, and is unregistered before it is freed.
#pragma once

#include <cstddef>

namespace tessel::abcd::tile_memory {

/// Buffers of at least this many bytes go through the cache (by default; set_cached_from);
/// smaller ones are plain 64-byte-aligned operator new.
inline constexpr std::size_t cached_from = std::size_t(1) << 20;
/// Changes that threshold for buffers allocated from now on (tests: small tiles cached, so
/// that they can be pinned). Buffers already out are given back correctly either way.
void set_cached_from(std::size_t bytes);
/// The threshold when the cuda executor runs: tiles of 64 KiB (90 x 90 doubles) and more come
/// page-aligned from the cache, so that they can be registered and copied without staging
/// (at most a page of padding each).
inline constexpr std::size_t device_cached_from = std::size_t(64) << 10;

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

/// How a buffer is registered with a device and unregistered (cudaHostRegister and its
/// inverse, given by the cuda executor: this file needs no CUDA).
struct Pinning {
    bool (*pin)(void* p, std::size_t bytes) = nullptr;  ///< false: refused
    void (*unpin)(void* p) = nullptr;
};
enum class PinResult { already, now, refused };
/// Registers the cached buffer that starts at `p` with `how`, once: it stays registered until
/// it is freed (`how.unpin` then). `refused` when p does not start a cached buffer or
/// registering failed (a buffer refused once is not tried again while cached); `now` sets
/// `bytes` to the bytes registered (the buffer's capacity). Thread-safe.
PinResult pin(const void* p, const Pinning& how, std::size_t& bytes);

}  // namespace tessel::abcd::tile_memory
