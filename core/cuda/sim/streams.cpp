// Streams and events: registered handles; an event records the host clock when it is reached.
#include "core/cuda/sim/streams.hpp"

#include <chrono>
#include <mutex>
#include <set>

#include "core/cuda/sim/fault.hpp"

struct CUstream_st {
    unsigned flags = 0;
};
struct CUevent_st {
    unsigned flags = 0;
    bool recorded = false;
    std::chrono::steady_clock::time_point when;
};

namespace tessel::sim {

namespace {
std::mutex handle_mutex;
std::set<const void*>& handles() {
    static std::set<const void*> h;
    return h;
}
bool registered(const void* h) {
    std::lock_guard lock(handle_mutex);
    return handles().count(h) != 0;
}
void add_handle(const void* h) {
    std::lock_guard lock(handle_mutex);
    handles().insert(h);
}
bool remove_handle(const void* h) {
    std::lock_guard lock(handle_mutex);
    return handles().erase(h) != 0;
}
}  // namespace

bool valid_stream(cudaStream_t stream) { return stream == nullptr || registered(stream); }

}  // namespace tessel::sim

using tessel::sim::fail;

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
    if (stream == nullptr) return fail(cudaErrorInvalidValue, "cudaStreamCreate: null handle pointer");
    *stream = new CUstream_st;
    (*stream)->flags = flags;
    tessel::sim::add_handle(*stream);
    return cudaSuccess;
}
cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, cudaStreamDefault); }

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    if (stream == nullptr || !tessel::sim::remove_handle(stream))
        return fail(cudaErrorInvalidResourceHandle, "cudaStreamDestroy: not a live stream");
    delete stream;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    if (!tessel::sim::valid_stream(stream))
        return fail(cudaErrorInvalidResourceHandle, "cudaStreamSynchronize: not a live stream");
    return cudaSuccess;
}
cudaError_t cudaStreamQuery(cudaStream_t stream) { return cudaStreamSynchronize(stream); }

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
    if (!tessel::sim::valid_stream(stream) || !tessel::sim::registered(event))
        return fail(cudaErrorInvalidResourceHandle, "cudaStreamWaitEvent: not a live stream and event");
    return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
    if (event == nullptr) return fail(cudaErrorInvalidValue, "cudaEventCreate: null handle pointer");
    *event = new CUevent_st;
    (*event)->flags = flags;
    tessel::sim::add_handle(*event);
    return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    if (event == nullptr || !tessel::sim::remove_handle(event))
        return fail(cudaErrorInvalidResourceHandle, "cudaEventDestroy: not a live event");
    delete event;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    if (!tessel::sim::registered(event) || !tessel::sim::valid_stream(stream))
        return fail(cudaErrorInvalidResourceHandle, "cudaEventRecord: not a live event and stream");
    event->recorded = true;
    event->when = std::chrono::steady_clock::now();
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    if (!tessel::sim::registered(event))
        return fail(cudaErrorInvalidResourceHandle, "cudaEventSynchronize: not a live event");
    return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); }

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    if (ms == nullptr) return fail(cudaErrorInvalidValue, "cudaEventElapsedTime: null result pointer");
    if (!tessel::sim::registered(start) || !tessel::sim::registered(end) ||
        ((start->flags | end->flags) & cudaEventDisableTiming))
        return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: events without timing");
    if (!start->recorded || !end->recorded)
        return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event was never recorded");
    *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
    return cudaSuccess;
}
