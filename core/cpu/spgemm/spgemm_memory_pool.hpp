// Thread-safe pool of fixed-size scratch chunks for SpGEMM accumulators (Deveci et al. 2018,
// §3.1.2): allocated once before a kernel, then handed out and taken back without locks
// around the allocator.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>

#include "core/types.hpp"

namespace tessel::cpu {

class SpgemmMemoryPool {
public:
    /// one_to_one: chunk t belongs to thread t (CPUs: a thread keeps its NUMA-local chunk);
    /// many_to_many: a request scans from its hint for a free chunk and spins until one is.
    enum class Mode { one_to_one, many_to_many };

    /// `chunks` chunks of at least `chunk_bytes` bytes each, 64-byte aligned. The memory is
    /// reserved here and first touched by the thread that uses a chunk.
    SpgemmMemoryPool(size_type chunks, size_type chunk_bytes, Mode mode = Mode::one_to_one);
    SpgemmMemoryPool(const SpgemmMemoryPool&) = delete;
    SpgemmMemoryPool& operator=(const SpgemmMemoryPool&) = delete;

    /// A chunk for the caller, locked until release(). one_to_one: chunk `hint` (which must
    /// not be held); many_to_many: the first free chunk from `hint` on, spinning while none is.
    void* acquire(size_type hint);
    void release(void* chunk);

    size_type chunks() const { return chunks_; }
    size_type chunk_bytes() const { return stride_; }

private:
    size_type chunks_;
    size_type stride_;
    Mode mode_;
    struct Free {
        void operator()(std::byte* p) const noexcept;
    };
    std::unique_ptr<std::byte[], Free> storage_;
    std::unique_ptr<std::atomic<bool>[]> taken_;
};

}  // namespace tessel::cpu
