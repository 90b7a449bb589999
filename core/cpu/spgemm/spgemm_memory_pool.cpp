// Thread-safe chunk pool for SpGEMM accumulators.
#include "core/cpu/spgemm/spgemm_memory_pool.hpp"

#include <algorithm>
#include <new>
#include <string>
#include <thread>

#include "core/error.hpp"

namespace tessel::cpu {

namespace {
constexpr std::align_val_t chunk_alignment{64};
}

void SpgemmMemoryPool::Free::operator()(std::byte* p) const noexcept {
    ::operator delete[](p, chunk_alignment);
}

SpgemmMemoryPool::SpgemmMemoryPool(size_type chunks, size_type chunk_bytes, Mode mode)
    : chunks_(chunks), stride_((std::max<size_type>(chunk_bytes, 1) + 63) / 64 * 64), mode_(mode) {
    if (chunks <= 0) TESSEL_INVALID_INPUT("SpgemmMemoryPool", 0, "needs at least one chunk");
    // Not value-initialised: each chunk is first touched by the thread that uses it.
    storage_.reset(static_cast<std::byte*>(
        ::operator new[](static_cast<std::size_t>(chunks_ * stride_), chunk_alignment)));
    taken_ = std::make_unique<std::atomic<bool>[]>(static_cast<std::size_t>(chunks_));
    for (size_type c = 0; c < chunks_; ++c) taken_[c].store(false, std::memory_order_relaxed);
}

void* SpgemmMemoryPool::acquire(size_type hint) {
    if (mode_ == Mode::one_to_one) {
        const size_type c = hint % chunks_;
        if (taken_[c].exchange(true, std::memory_order_acquire))
            TESSEL_THROW(Error, "SpgemmMemoryPool: chunk " + std::to_string(c) +
                                    " requested twice in one_to_one mode");
        return storage_.get() + c * stride_;
    }
    for (size_type tries = 0;; ++tries) {
        for (size_type s = 0; s < chunks_; ++s) {
            const size_type c = (hint + s) % chunks_;
            if (!taken_[c].load(std::memory_order_relaxed) &&
                !taken_[c].exchange(true, std::memory_order_acquire))
                return storage_.get() + c * stride_;
        }
        if (tries > 64) std::this_thread::yield();  // more requesters than chunks: wait
    }
}

void SpgemmMemoryPool::release(void* chunk) {
    const size_type c = (static_cast<std::byte*>(chunk) - storage_.get()) / stride_;
    taken_[c].store(false, std::memory_order_release);
}

}  // namespace tessel::cpu
