// Stream queues: a stream's work runs when it is waited for; an event is a marker in its
// stream's queue, done when the queue has run past it.
#include "core/cuda/sim/runtime/streams.hpp"

#include <chrono>
#include <deque>
#include <mutex>
#include <set>

#include "core/cuda/sim/runtime/fault.hpp"

struct CUstream_st {
    unsigned flags = 0;
    std::deque<std::function<void()>> queue;
    unsigned long long issued = 0, done = 0;  // work items queued and run so far
};
struct CUevent_st {
    unsigned flags = 0;
    CUstream_st* stream = nullptr;  // the stream of the last record, null before one
    unsigned long long position = 0;  // done when stream->done reaches it
    bool reached = false;
    std::chrono::steady_clock::time_point when;
};

namespace tessel::sim {

namespace {

// One lock for all queues; recursive since queued work (an event wait) drains other streams.
std::recursive_mutex queue_mutex;
CUstream_st legacy_stream;
std::set<CUstream_st*> streams;
std::set<const void*> handles;  // live streams and events, for validity checks
cudaError_t async_error = cudaSuccess;

CUstream_st* state_of(cudaStream_t s) { return s == nullptr ? &legacy_stream : s; }
bool blocking(const CUstream_st* s) { return s == &legacy_stream || !(s->flags & cudaStreamNonBlocking); }

void run_all(CUstream_st* s) {
    while (!s->queue.empty()) {
        std::function<void()> work = std::move(s->queue.front());
        s->queue.pop_front();
        work();
        ++s->done;
    }
}

void run_until(CUstream_st* s, unsigned long long position) {
    while (s->done < position && !s->queue.empty()) {
        std::function<void()> work = std::move(s->queue.front());
        s->queue.pop_front();
        work();
        ++s->done;
    }
}

// The legacy stream waits for every blocking stream, and they wait for it.
void implicit_waits(CUstream_st* s) {
    if (!blocking(s)) return;
    if (s == &legacy_stream) {
        for (CUstream_st* other : streams)
            if (blocking(other)) run_all(other);
    } else {
        run_all(&legacy_stream);
    }
}

bool registered(const void* h) {
    std::lock_guard lock(queue_mutex);
    return handles.count(h) != 0;
}

}  // namespace

bool valid_stream(cudaStream_t stream) { return stream == nullptr || registered(stream); }

void enqueue(cudaStream_t stream, std::function<void()> work) {
    std::lock_guard lock(queue_mutex);
    CUstream_st* s = state_of(stream);
    implicit_waits(s);
    s->queue.push_back(std::move(work));
    ++s->issued;
}

void drain(cudaStream_t stream) {
    std::lock_guard lock(queue_mutex);
    CUstream_st* s = state_of(stream);
    implicit_waits(s);
    run_all(s);
}

void drain_all() {
    std::lock_guard lock(queue_mutex);
    run_all(&legacy_stream);
    for (CUstream_st* s : streams) run_all(s);
}

cudaError_t take_async_error() {
    std::lock_guard lock(queue_mutex);
    const cudaError_t e = async_error;
    async_error = cudaSuccess;
    return e;
}

void set_async_error(cudaError_t status) {
    std::lock_guard lock(queue_mutex);
    if (async_error == cudaSuccess) async_error = status;
}

namespace {

// A synchronizing call's status: a fault of the work it waited for, else success.
cudaError_t waited_status() { return set_last_error(take_async_error()); }

}  // namespace

cudaError_t synchronized_status() { return waited_status(); }

namespace {

void drain_event(CUevent_st* e) {
    if (e->stream == &legacy_stream || streams.count(e->stream)) run_until(e->stream, e->position);
}

}  // namespace

}  // namespace tessel::sim

using tessel::sim::fail;
using tessel::sim::queue_mutex;

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
    if (stream == nullptr) return fail(cudaErrorInvalidValue, "cudaStreamCreate: null handle pointer");
    *stream = new CUstream_st;
    (*stream)->flags = flags;
    std::lock_guard lock(queue_mutex);
    tessel::sim::handles.insert(*stream);
    tessel::sim::streams.insert(*stream);
    return cudaSuccess;
}
cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, cudaStreamDefault); }

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    std::lock_guard lock(queue_mutex);
    if (stream == nullptr || !tessel::sim::handles.count(stream))
        return fail(cudaErrorInvalidResourceHandle, "cudaStreamDestroy: not a live stream");
    tessel::sim::run_all(stream);  // its work still completes, as on a GPU
    tessel::sim::handles.erase(stream);
    tessel::sim::streams.erase(stream);
    delete stream;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    if (!tessel::sim::valid_stream(stream))
        return fail(cudaErrorInvalidResourceHandle, "cudaStreamSynchronize: not a live stream");
    tessel::sim::drain(stream);
    return tessel::sim::waited_status();
}
cudaError_t cudaStreamQuery(cudaStream_t stream) { return cudaStreamSynchronize(stream); }

cudaError_t cudaDeviceSynchronize() {
    tessel::sim::drain_all();
    return tessel::sim::waited_status();
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
    if (!tessel::sim::valid_stream(stream) || !tessel::sim::registered(event))
        return fail(cudaErrorInvalidResourceHandle, "cudaStreamWaitEvent: not a live stream and event");
    std::lock_guard lock(queue_mutex);
    CUstream_st* s = event->stream;
    const unsigned long long position = event->position;
    // Later work of `stream` runs only after the event's stream has run up to the record.
    tessel::sim::enqueue(stream, [s, position] {
        // A destroyed stream ran all its work when it was destroyed.
        if (s == &tessel::sim::legacy_stream || tessel::sim::streams.count(s)) tessel::sim::run_until(s, position);
    });
    return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
    if (event == nullptr) return fail(cudaErrorInvalidValue, "cudaEventCreate: null handle pointer");
    *event = new CUevent_st;
    (*event)->flags = flags;
    std::lock_guard lock(queue_mutex);
    tessel::sim::handles.insert(*event);
    return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    std::lock_guard lock(queue_mutex);
    if (event == nullptr || !tessel::sim::handles.erase(event))
        return fail(cudaErrorInvalidResourceHandle, "cudaEventDestroy: not a live event");
    // A record still queued refers to the event: run the queue past it first.
    tessel::sim::drain_event(event);
    delete event;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    if (!tessel::sim::registered(event) || !tessel::sim::valid_stream(stream))
        return fail(cudaErrorInvalidResourceHandle, "cudaEventRecord: not a live event and stream");
    std::lock_guard lock(queue_mutex);
    CUstream_st* s = tessel::sim::state_of(stream);
    event->reached = false;
    tessel::sim::enqueue(stream, [event] {
        event->reached = true;
        event->when = std::chrono::steady_clock::now();
    });
    event->stream = s;
    event->position = s->issued;
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    std::lock_guard lock(queue_mutex);
    if (!tessel::sim::handles.count(event))
        return fail(cudaErrorInvalidResourceHandle, "cudaEventSynchronize: not a live event");
    tessel::sim::drain_event(event);
    return tessel::sim::waited_status();
}
cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); }

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    if (ms == nullptr) return fail(cudaErrorInvalidValue, "cudaEventElapsedTime: null result pointer");
    std::lock_guard lock(queue_mutex);
    if (!tessel::sim::handles.count(start) || !tessel::sim::handles.count(end) ||
        ((start->flags | end->flags) & cudaEventDisableTiming))
        return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: events without timing");
    if (!start->reached || !end->reached)
        return fail(cudaErrorNotReady, "cudaEventElapsedTime: an event has not been reached (synchronize on it first)");
    *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
    return cudaSuccess;
}
