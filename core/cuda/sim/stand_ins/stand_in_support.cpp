// The library stand-ins' shared pieces: once-per-call notices, device-range checks, stream waits.
#include "core/cuda/sim/stand_ins/stand_in_support.hpp"

#include <cstdio>
#include <mutex>
#include <set>
#include <string>

#include "core/cuda/sim/memory/device_memory.hpp"
#include "core/cuda/sim/runtime/streams.hpp"

namespace tessel::sim {

void note_stand_in(const char* call, const char* how) {
    static std::mutex m;
    static std::set<std::string> seen;
    std::lock_guard lock(m);
    if (seen.insert(call).second) std::printf("tessel-sim: %s answered by the stand-in (%s)\n", call, how);
}

void drain_stream(cudaStream_t stream) { drain(stream); }

bool is_device_range(const void* p, unsigned long long bytes) {
    if (bytes == 0) return true;
    std::string problem;
    return memory_kind(p, std::size_t(bytes), problem) == MemoryKind::device && problem.empty();
}

}  // namespace tessel::sim
