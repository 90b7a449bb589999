// The device's context made on a background thread: on a fresh process the CUDA driver's start
// and the context's creation take a tenth of a second or more, which the first device call
// would otherwise pay while the host waits. Started before the host's own work (reading,
// tracing), it overlaps that work; the first real device call waits for it inside the runtime.
#pragma once

#include <thread>

namespace tessel {

class DeviceWarmup {
public:
    /// Starts the warm-up of the current device (device 0 of the process) when `start`.
    explicit DeviceWarmup(bool start);
    /// Waits for the warm-up (a process must not end with the thread running).
    ~DeviceWarmup();
    DeviceWarmup(const DeviceWarmup&) = delete;
    DeviceWarmup& operator=(const DeviceWarmup&) = delete;

    /// Seconds the context took, once it is made (waits for it); 0 when not started, without
    /// CUDA or a device, or when the runtime failed (the first real call then reports it).
    double seconds();

private:
    std::thread thread_;
    double seconds_ = 0;
};

}  // namespace tessel
