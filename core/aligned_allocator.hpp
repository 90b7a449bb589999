// 64-byte aligned allocator so that dense rows start on cache lines and vector loads align.
#pragma once

#include <cstddef>
#include <new>

namespace tessel {

template <typename T>
struct AlignedAllocator {
    using value_type = T;
    static constexpr std::align_val_t alignment{64};

    AlignedAllocator() noexcept = default;
    template <typename U>
    AlignedAllocator(const AlignedAllocator<U>&) noexcept {}

    T* allocate(std::size_t n) {
        return static_cast<T*>(::operator new(n * sizeof(T), alignment));
    }
    void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, alignment); }

    template <typename U>
    bool operator==(const AlignedAllocator<U>&) const noexcept { return true; }
};

}  // namespace tessel
