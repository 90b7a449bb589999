// Peer SpMM libraries, each compiled only when CMake found it (TESSEL_BENCH_HAVE_*).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bench/spmm/kernels.hpp"

namespace tessel::bench::peers {

/// A peer library: its kernel name in tables and --kernels, and the library with version.
struct PeerInfo {
    std::string kernel;    // "eigen", "graphblas", "rsb"
    std::string library;   // "Eigen 3.4.0", ...
};

/// Every peer compiled in (found by CMake), in table order.
std::vector<PeerInfo> found();
/// Peers that CMake did not find (printed so a reader knows what is missing).
std::vector<std::string> missing();

/// Starts the peer libraries (GraphBLAS and librsb need a global init) with `threads`
/// threads; finalize() ends them. Throws std::runtime_error when a library fails to start.
void initialize(int threads);
void finalize();

/// How the GraphBLAS peer computes C = A·B: "accum" (C full, zeroed, then C += A·B in place;
/// the zeroing is timed), "auto" (GrB_mxm into an empty C, GraphBLAS chooses), "saxpy" or
/// "dot" (GrB_mxm with that GxB_AxB_METHOD). Throws std::invalid_argument for other names;
/// ignored when GraphBLAS is not compiled in.
void set_graphblas_method(const std::string& method);

template <typename V>
std::unique_ptr<Kernel<V>> make_eigen();
template <typename V>
std::unique_ptr<Kernel<V>> make_graphblas();
template <typename V>
std::unique_ptr<Kernel<V>> make_rsb();

}  // namespace tessel::bench::peers
