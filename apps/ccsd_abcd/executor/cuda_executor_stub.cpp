// The cuda executor without CUDA in the build: asking for it throws NotCompiled.
#include "apps/ccsd_abcd/executor/executor.hpp"

#include "core/cuda/entry_points.hpp"

namespace tessel::abcd {

template <typename T>
ExecutionResult execute_cuda(const Problem&, const Plan&, TileStore<T>&, TileStore<T>&, const ExecutorOptions&) {
    TESSEL_THROW(NotCompiled, "the cuda backend of tessel-abcd is not in this build (configure with "
                              "TESSEL_ENABLE_CUDA=ON and nvcc)");
}

void require_cuda_backend() {
    TESSEL_THROW(NotCompiled, "the cuda backend of tessel-abcd is not in this build (configure with "
                              "TESSEL_ENABLE_CUDA=ON and nvcc)");
}

int cuda_device_count() { return 0; }
size_type cuda_device_memory(int) { return 0; }

template ExecutionResult execute_cuda<double>(const Problem&, const Plan&, TileStore<double>&, TileStore<double>&,
                                              const ExecutorOptions&);
template ExecutionResult execute_cuda<float>(const Problem&, const Plan&, TileStore<float>&, TileStore<float>&,
                                             const ExecutorOptions&);

}  // namespace tessel::abcd
