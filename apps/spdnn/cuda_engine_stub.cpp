// The cuda engine in builds without CUDA: it says so.
#include "apps/spdnn/engine.hpp"
#include "core/cuda/entry_points.hpp"

namespace tessel::spdnn {

std::unique_ptr<Engine> make_cuda_engine(const EngineOptions&, KernelChoice) {
    cuda::not_compiled("tessel-spdnn --backend cuda");
}

}  // namespace tessel::spdnn
