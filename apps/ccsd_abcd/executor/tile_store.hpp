// Tile storage on a host: one aligned, column-major buffer per tile position (empty: not here),
// from an allocator that reuses large buffers and does not zero what it makes.
#pragma once

#include <cstddef>
#include <new>
#include <utility>
#include <vector>

#include "apps/ccsd_abcd/executor/tile_memory.hpp"
#include "core/types.hpp"

namespace tessel::abcd {

/// Allocator of tile buffers: large ones come from the process-wide cache (tile_memory.hpp),
/// all 64-byte aligned. Elements are default-initialised: resize() does not zero (every tile is
/// filled right after); assign(n, 0) still zeroes.
template <typename T>
struct TileAllocator {
    using value_type = T;

    TileAllocator() noexcept = default;
    template <typename U>
    TileAllocator(const TileAllocator<U>&) noexcept {}

    T* allocate(std::size_t n) { return static_cast<T*>(tile_memory::allocate(n * sizeof(T))); }
    void deallocate(T* p, std::size_t n) noexcept { tile_memory::release(p, n * sizeof(T)); }
    template <typename U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
    template <typename U>
    bool operator==(const TileAllocator<U>&) const noexcept { return true; }
};

/// The entries of one tile, column-major.
template <typename ValueType>
using TileBuffer = std::vector<ValueType, TileAllocator<ValueType>>;

/// Tiles of one matrix by their position in its shape; tiles that this process does not hold
/// are empty buffers.
template <typename ValueType>
using TileStore = std::vector<TileBuffer<ValueType>>;

}  // namespace tessel::abcd
