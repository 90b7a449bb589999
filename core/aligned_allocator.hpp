// 64-byte aligned allocator so that dense rows start on cache lines and vector loads align.
// Large arrays (dense operands, sparse arrays of big matrices) are also aligned to 2 MiB and
// offered to the kernel as transparent huge pages: kernels that gather rows of B at random
// otherwise spend much of their time in TLB misses.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <utility>
#include <vector>

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

/// The bulk arrays of sparse formats: large ones huge-page aligned and advised as in
/// AlignedAllocator (the faults of first touching a matrix of gigabytes fall from one per 4 KiB
/// to one per 2 MiB), small ones from plain operator new (the kernels read them unaligned).
/// `resize(n)` leaves the new elements unwritten (default-initialised): whoever sizes such an
/// array writes every element itself, on the threads that use it, so the first touch of
/// gigabytes of fresh pages is spread over the threads instead of one serial zeroing pass.
/// `resize(n, value)` and `assign` still write.
template <typename T>
struct LargeArrayAllocator {
    using value_type = T;

    LargeArrayAllocator() noexcept = default;
    template <typename U>
    LargeArrayAllocator(const LargeArrayAllocator<U>&) noexcept {}

    T* allocate(std::size_t n) {
        if (n * sizeof(T) < detail::huge_page_threshold) return static_cast<T*>(::operator new(n * sizeof(T)));
        return AlignedAllocator<T>().allocate(n);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        if (n * sizeof(T) < detail::huge_page_threshold)
            ::operator delete(p);
        else
            AlignedAllocator<T>().deallocate(p, n);
    }

    template <typename U>
    void construct(U* p) noexcept(noexcept(::new (static_cast<void*>(p)) U)) {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }

    template <typename U>
    bool operator==(const LargeArrayAllocator<U>&) const noexcept { return true; }
};

/// A vector of a sparse format's bulk (LargeArrayAllocator).
template <typename T>
using LargeArray = std::vector<T, LargeArrayAllocator<T>>;

}  // namespace tessel
