// Stacks for the simulated threads (internal to core/cuda/sim): mapped once per host thread
// with a guard page below each, and reused from block to block.
#pragma once

#include <boost/context/stack_context.hpp>

#include <cstddef>
#include <vector>

namespace tessel::sim {

class StackPool {
public:
    explicit StackPool(std::size_t bytes) : bytes_(bytes) {}
    ~StackPool();
    StackPool(const StackPool&) = delete;
    StackPool& operator=(const StackPool&) = delete;
    boost::context::stack_context take();
    void give_back(boost::context::stack_context& sc);

private:
    std::size_t bytes_;
    std::vector<void*> free_;
    std::vector<void*> mapped_;
};

/// The StackAllocator concept of Boost.Context over a StackPool.
struct PooledStack {
    StackPool* pool;
    boost::context::stack_context allocate() { return pool->take(); }
    void deallocate(boost::context::stack_context& sc) { pool->give_back(sc); }
};

}  // namespace tessel::sim
