// Counters of the traffic between host and device, per phase of a run: every host-device copy
// (bytes, count, pageable or pinned), every synchronisation the host waits on (stream, event,
// device) and every kernel or library launch. Present in every build (zero without a device):
// the simulator counts exactly what a GPU would, so CI checks the data path without a card.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

namespace tessel::device_traffic {

/// setup: before the app's loop (uploads of operators, first vectors); steady: the loop whose
/// steps are counted (xct iterations, spdnn layers, abcd blocks); finish: after it.
enum class Phase { setup = 0, steady = 1, finish = 2 };

struct Counts {
    std::int64_t h2d_bytes = 0;
    std::int64_t d2h_bytes = 0;
    std::int64_t copies = 0;            // host-device copies, both directions
    std::int64_t pageable_copies = 0;   // of which from or to pageable host memory
    std::int64_t synchronizations = 0;  // host waits: stream, event or device
    std::int64_t launches = 0;          // kernels and library calls
};

enum class Direction { host_to_device, device_to_host };

/// One host-device copy of `bytes` whose host side is `host` (pinned when registered below).
void count_copy(Direction direction, std::int64_t bytes, const void* host);
/// One host wait on the device (stream, event or device synchronisation, a blocking copy).
void count_synchronization();
/// `n` kernel or library launches.
void count_launch(std::int64_t n = 1);
/// One more step of the steady phase (an iteration, a layer, a block).
void count_steady_step();

/// Pinned host memory is registered by its allocator so that copies know what they copy from.
void register_pinned(const void* data, std::int64_t bytes);
void unregister_pinned(const void* data);
bool is_pinned(const void* host);

/// The phase new events are counted in; PhaseScope sets it and restores the previous one.
Phase current_phase();
void set_phase(Phase phase);
class PhaseScope {
public:
    explicit PhaseScope(Phase phase) : previous_(current_phase()) { set_phase(phase); }
    ~PhaseScope() { set_phase(previous_); }
    PhaseScope(const PhaseScope&) = delete;
    PhaseScope& operator=(const PhaseScope&) = delete;

private:
    Phase previous_;
};

Counts counts(Phase phase);
std::int64_t steady_steps();
/// Zeroes every counter and returns to the setup phase (tests, a second run in one process).
void reset();

/// {"setup": C, "steady": C, "finish": C, "steady_steps": n} with
/// C = {"h2d_bytes", "d2h_bytes", "copies", "pageable_copies", "synchronizations", "launches"}.
nlohmann::json to_json();

}  // namespace tessel::device_traffic
