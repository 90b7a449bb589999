// The cuda engine in builds without CUDA: it says so.
#include "apps/spdnn/engine.hpp"
#include "core/error.hpp"

namespace tessel::spdnn {

std::unique_ptr<Engine> make_cuda_engine(const EngineOptions&, KernelChoice) {
    TESSEL_THROW(NotCompiled, "tessel-spdnn was built without CUDA (backend cuda is not available)");
}

}  // namespace tessel::spdnn
