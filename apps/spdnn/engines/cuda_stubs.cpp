// The app's device entry points in builds without CUDA: each throws NotCompiled, generated from
// the list in engine.hpp.
#include "apps/spdnn/engines/engine.hpp"
#include "core/cuda/entry_points.hpp"

namespace tessel {

TESSEL_SPDNN_CUDA_ENTRY_POINTS(TESSEL_CUDA_STUB_FUNCTION)

}  // namespace tessel
