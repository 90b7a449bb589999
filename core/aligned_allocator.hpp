// 64-byte aligned allocator so that dense rows start on cache lines and vector loads align.
// Large arrays (dense operands, sparse arrays of big matrices) are also aligned to 2 MiB and
// offered to the kernel as transparent huge pages: kernels that gather rows of B at random
// otherwise spend much of their time in TLB misses.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>

namespace tessel {

namespace detail {
constexpr std::size_t huge_page_bytes = std::size_t(2) << 20;
/// Arrays from this size on are huge-page aligned and advised.
constexpr std::size_t huge_page_threshold = 4 * huge_page_bytes;
}  // namespace detail

template <typename T>
struct AlignedAllocator {
    using value_type = T;
    static constexpr std::align_val_t alignment{64};

    AlignedAllocator() noexcept = default;
    template <typename U>
    AlignedAllocator(const AlignedAllocator<U>&) noexcept {}

    T* allocate(std::size_t n) {
        const std::size_t bytes = n * sizeof(T);
        if (bytes < detail::huge_page_threshold)
            return static_cast<T*>(::operator new(bytes, alignment));
        void* p = ::operator new(bytes, std::align_val_t{detail::huge_page_bytes});
#ifdef MADV_HUGEPAGE
        // Advice only: where huge pages are off or unavailable, the pages stay small.
        madvise(p, bytes - bytes % detail::huge_page_bytes, MADV_HUGEPAGE);
#endif
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        if (n * sizeof(T) < detail::huge_page_threshold)
            ::operator delete(p, alignment);
        else
            ::operator delete(p, std::align_val_t{detail::huge_page_bytes});
    }

    template <typename U>
    bool operator==(const AlignedAllocator<U>&) const noexcept { return true; }
};

}  // namespace tessel
