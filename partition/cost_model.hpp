// Alpha-beta cost model per topology level plus a measured local SpMM rate: predicts the time
// of every distributed SpMM variant and picks the fastest (--dist-algo auto).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "core/comm/topology.hpp"
#include "core/dist/dist_spmm.hpp"
#include "partition/dist_setup.hpp"

namespace tessel::partition {

/// A message of w bytes between two ranks whose lowest common level is l costs
/// levels[l].alpha + levels[l].beta·w seconds.
struct LevelCost {
    double alpha = 2e-6;   // s
    double beta = 1e-10;   // s per byte
};

struct MachineModel {
    std::vector<LevelCost> levels;  // one per topology level
    /// Local SpMM rate per rank: nonzeros x columns per second (2 flops each).
    double spmm_rate = 1e9;

    /// Cost parameters of a level; level -1 (a rank with itself) costs nothing.
    LevelCost at(int level) const;
    /// Cost of one message of `bytes` at `level`.
    double message(int level, double bytes) const;
};

/// Measures the model (collective over comm): for every level, ping-pongs between rank 0 and the
/// first rank it meets at that level (the fastest of many 8-byte round trips gives α, of 1 MiB
/// ones β; a level with no such pair copies the level below); the SpMM rate from timing the local cpu/cuda kernel on
/// `sample` with k columns on all ranks at once (the slowest rank's rate, contention included).
/// Throws MpiError.
template <typename ValueType, typename IndexType>
MachineModel calibrate_machine(MPI_Comm comm, const comm::Topology& topology,
                               const Csr<ValueType, IndexType>& sample, size_type k,
                               Backend backend = Backend::cpu);

/// Predicted seconds of one multiply, the slowest rank's: local SpMM, communication, total.
struct CostPrediction {
    double compute = 0;
    double comm = 0;
    double total = 0;
};

/// Predicts `algorithm` on the layout make_dist_spmm would build (same options). Collectives are
/// costed by the paper's formulas (tree broadcast and reduce ⌈log₂ q⌉(α + βw), recursive-doubling
/// allgather ⌈log₂ q⌉α + βw(q-1)/q, recursive-halving reduce-scatter likewise) at the level the
/// communicator spans; one-sided variants by their transfers, overlapped with the multiplies;
/// sender-multiplies by the exact bytes and messages of its plans (per minibatch), the global
/// step overlapped with the next minibatch when pipelined. Throws InvalidInput.
template <typename ValueType, typename IndexType>
CostPrediction predict_dist_spmm(dist::DistAlgorithm algorithm, const Csr<ValueType, IndexType>& a,
                                 size_type k, const comm::Topology& topology,
                                 const MachineModel& model, const DistSetupOptions& options = {});

/// The candidate with the smallest predicted total (all concrete variants when empty).
template <typename ValueType, typename IndexType>
dist::DistAlgorithm choose_dist_algorithm(const Csr<ValueType, IndexType>& a, size_type k,
                                          const comm::Topology& topology, const MachineModel& model,
                                          const DistSetupOptions& options = {},
                                          std::vector<dist::DistAlgorithm> candidates = {});

}  // namespace tessel::partition
