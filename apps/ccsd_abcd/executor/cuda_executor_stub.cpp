// The cuda executor without CUDA in the build: asking for it throws NotCompiled.
#include "apps/ccsd_abcd/executor/executor.hpp"

#include "core/cuda/entry_points.hpp"

namespace tessel::abcd {

template <typename T>
ExecutionResult execute_cuda(const Problem&, const Plan&, TileStore<T>&, TileStore<T>&, const ExecutorOptions&) {
    cuda::not_compiled("the cuda backend of tessel-abcd");
}

template ExecutionResult execute_cuda<double>(const Problem&, const Plan&, TileStore<double>&, TileStore<double>&,
                                              const ExecutorOptions&);
template ExecutionResult execute_cuda<float>(const Problem&, const Plan&, TileStore<float>&, TileStore<float>&,
                                             const ExecutorOptions&);

}  // namespace tessel::abcd
