// The library stand-ins say once per process which results they computed, so that a test's
// output shows which answers came from a stand-in rather than from the simulated kernels.
#pragma once

namespace tessel::sim {

/// Prints "tessel-sim: <call> answered by the stand-in (<how>)" the first time `call` runs.
void note_stand_in(const char* call, const char* how);

/// Whether p .. p+bytes is device memory (library arguments must be).
bool is_device_range(const void* p, unsigned long long bytes);

}  // namespace tessel::sim
