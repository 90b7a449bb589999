// Fiber stacks: mmap'd with a PROT_NONE guard page, so an overflow faults instead of
// overwriting the next thread's stack.
#include "core/cuda/sim/execution/fiber_stacks.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

namespace tessel::sim {

namespace {
const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

StackPool::~StackPool() {
    for (void* base : mapped_) munmap(base, bytes_ + page);
}

boost::context::stack_context StackPool::take() {
    void* base = nullptr;
    if (!free_.empty()) {
        base = free_.back();
        free_.pop_back();
    } else {
        base = mmap(nullptr, bytes_ + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base == MAP_FAILED) throw std::bad_alloc();
        mprotect(base, page, PROT_NONE);  // the guard page: stacks grow down onto it
        mapped_.push_back(base);
    }
    boost::context::stack_context sc;
    sc.size = bytes_;
    sc.sp = static_cast<char*>(base) + page + bytes_;
    return sc;
}

void StackPool::give_back(boost::context::stack_context& sc) {
    free_.push_back(static_cast<char*>(sc.sp) - sc.size - page);
}

}  // namespace tessel::sim
