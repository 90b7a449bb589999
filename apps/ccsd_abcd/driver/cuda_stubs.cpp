// tessel-abcd's device entry points in builds without CUDA: each throws NotCompiled, generated
// from the lists beside their declarations (executor.hpp, cuda_rates.hpp); the kept devices are none.
#include "apps/ccsd_abcd/advice/cuda_rates.hpp"
#include "apps/ccsd_abcd/executor/executor.hpp"
#include "core/cuda/entry_points.hpp"

namespace tessel {

TESSEL_ABCD_EXECUTOR_CUDA_ENTRY_POINTS(TESSEL_CUDA_STUB_SPECIALIZATION, double)
TESSEL_ABCD_EXECUTOR_CUDA_ENTRY_POINTS(TESSEL_CUDA_STUB_SPECIALIZATION, float)
TESSEL_ABCD_RATES_CUDA_ENTRY_POINTS(TESSEL_CUDA_STUB_FUNCTION)

// Nothing is kept without a device executor.
size_type abcd::kept_device_bytes(int) { return 0; }
void abcd::release_kept_devices() {}

}  // namespace tessel
