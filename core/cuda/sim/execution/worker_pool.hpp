// Host threads that run a grid's blocks (internal to core/cuda/sim): TESSEL_SIM_THREADS of them,
// the hardware's count by default; the launching thread takes part.
#pragma once

#include <functional>

namespace tessel::sim {

/// Calls task(i) for i in [0, count) on the pool's threads and returns when all are done.
/// One grid at a time: concurrent launches from several host threads take turns.
void run_on_pool(long long count, const std::function<void(long long)>& task);

}  // namespace tessel::sim
