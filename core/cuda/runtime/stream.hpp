// Streams and events on the device: an owned non-blocking stream, an event, numbered timing
// events, a pair of events that times the work between them, and the average time of a
// launch. Failures throw tessel::CudaError.
#pragma once

#if !defined(TESSEL_HAVE_CUDA)
#error "core/cuda/runtime/stream.hpp needs a build with the CUDA backend (TESSEL_HAVE_CUDA)"
#endif

#include <cuda_runtime_api.h>

#include <utility>
#include <vector>

#include "core/cuda/runtime/cuda_check.hpp"
#include "core/cuda/runtime/transfer.hpp"

namespace tessel::cuda {

/// A CUDA stream, by default one that does not synchronise with the legacy default stream
/// (cudaStreamNonBlocking), destroyed with its owner. Move-only.
class Stream {
public:
    /// flags: cudaStreamNonBlocking, or cudaStreamDefault for a stream that the legacy default
    /// stream's work orders with.
    explicit Stream(unsigned flags = cudaStreamNonBlocking) {
        TESSEL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, flags));
    }
    ~Stream() {
        if (stream_) cudaStreamDestroy(stream_);
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
    Stream& operator=(Stream&&) = delete;
    cudaStream_t get() const { return stream_; }
    /// Waits for the work enqueued so far. Throws CudaError.
    void synchronize() const { synchronize_stream(stream_); }

private:
    cudaStream_t stream_ = nullptr;
};

/// A CUDA event without timing (cudaEventDisableTiming): a point of a stream that other
/// streams or the host wait for, destroyed with its owner. Move-only.
class Event {
public:
    Event() { TESSEL_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
    ~Event() {
        if (event_) cudaEventDestroy(event_);
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
    Event& operator=(Event&&) = delete;
    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

/// Numbered timing events, made when first recorded: mark i on a stream, then the seconds from
/// one mark to another once both are reached (a run's points on several streams: layers, the
/// parts of a block). Destroyed with their owner.
class EventMarks {
public:
    EventMarks() = default;
    ~EventMarks() {
        for (auto e : events_) cudaEventDestroy(e);
    }
    EventMarks(const EventMarks&) = delete;
    EventMarks& operator=(const EventMarks&) = delete;
    /// Mark i reached on `stream` (re-recorded when recorded before). Throws CudaError.
    void record(std::size_t i, cudaStream_t stream) {
        while (events_.size() <= i) {
            cudaEvent_t e = nullptr;
            TESSEL_CUDA_CHECK(cudaEventCreate(&e));
            events_.push_back(e);
        }
        TESSEL_CUDA_CHECK(cudaEventRecord(events_[i], stream));
    }
    /// Seconds from mark a to mark b (both recorded and reached). Throws CudaError.
    double seconds(std::size_t a, std::size_t b) const {
        float ms = 0;
        TESSEL_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[a], events_[b]));
        return 1e-3 * ms;
    }
    cudaEvent_t at(std::size_t i) const { return events_[i]; }

private:
    std::vector<cudaEvent_t> events_;
};

/// A pair of CUDA events that times the work enqueued on a stream between start and stop.
class EventTimer {
public:
    EventTimer() {
        TESSEL_CUDA_CHECK(cudaEventCreate(&start_));
        const cudaError_t status = cudaEventCreate(&stop_);
        if (status != cudaSuccess) {
            cudaEventDestroy(start_);
            detail::throw_cuda_error(__FILE__, __LINE__, "cudaEventCreate(&stop_)", status);
        }
    }
    ~EventTimer() {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;

    void start(cudaStream_t stream = nullptr) { TESSEL_CUDA_CHECK(cudaEventRecord(start_, stream)); }
    void stop(cudaStream_t stream = nullptr) { TESSEL_CUDA_CHECK(cudaEventRecord(stop_, stream)); }
    /// Milliseconds from start to stop; waits for the stop event.
    double elapsed_ms() const {
        synchronize_event(stop_);
        float ms = 0;
        TESSEL_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
        return ms;
    }

private:
    cudaEvent_t start_ = nullptr;
    cudaEvent_t stop_ = nullptr;
};

/// Seconds of device work between pairs of events, added to their targets once the host waits
/// for the device anyway (a solver's one wait per iteration): timing without a wait of its own.
class PendingTimes {
public:
    PendingTimes() = default;
    ~PendingTimes() {
        for (auto& p : pairs_) {
            cudaEventDestroy(p.start);
            cudaEventDestroy(p.stop);
        }
    }
    PendingTimes(const PendingTimes&) = delete;
    PendingTimes& operator=(const PendingTimes&) = delete;

    /// Records the start of a piece of work on `stream`.
    void start(cudaStream_t stream) {
        if (used_ == pairs_.size()) pairs_.push_back(make_pair());
        TESSEL_CUDA_CHECK(cudaEventRecord(pairs_[used_].start, stream));
    }
    /// Records its end; collect() adds its seconds to *target.
    void stop(cudaStream_t stream, double* target) {
        TESSEL_CUDA_CHECK(cudaEventRecord(pairs_[used_].stop, stream));
        pairs_[used_++].target = target;
    }
    /// Adds the seconds of every recorded pair to its target; waits (counted) only for a pair
    /// that is not done yet.
    void collect() {
        for (std::size_t i = 0; i < used_; ++i) {
            Pair& p = pairs_[i];
            if (cudaEventQuery(p.stop) != cudaSuccess) {
                cudaGetLastError();  // "not ready" is no error: clear it before waiting
                synchronize_event(p.stop);
            }
            float ms = 0;
            TESSEL_CUDA_CHECK(cudaEventElapsedTime(&ms, p.start, p.stop));
            *p.target += ms / 1e3;
        }
        used_ = 0;
    }

private:
    struct Pair {
        cudaEvent_t start = nullptr, stop = nullptr;
        double* target = nullptr;
    };
    static Pair make_pair() {
        Pair p;
        TESSEL_CUDA_CHECK(cudaEventCreate(&p.start));
        const cudaError_t status = cudaEventCreate(&p.stop);
        if (status != cudaSuccess) {
            cudaEventDestroy(p.start);
            detail::throw_cuda_error(__FILE__, __LINE__, "cudaEventCreate(&p.stop)", status);
        }
        return p;
    }
    std::vector<Pair> pairs_;
    std::size_t used_ = 0;
};

/// Average milliseconds per call of `launch()` (which enqueues work on `stream`) over
/// `repetitions` calls, after `warmup` untimed calls. Waits for the stream.
template <typename Launch>
double time_ms(Launch&& launch, cudaStream_t stream = nullptr, int repetitions = 1,
               int warmup = 1) {
    for (int i = 0; i < warmup; ++i) launch();
    EventTimer timer;
    timer.start(stream);
    for (int i = 0; i < repetitions; ++i) launch();
    timer.stop(stream);
    return timer.elapsed_ms() / (repetitions > 0 ? repetitions : 1);
}

}  // namespace tessel::cuda
