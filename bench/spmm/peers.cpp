// Which peers this build has, their global start-up, and stand-ins for the missing ones.
#include "bench/spmm/peers.hpp"

namespace tessel::bench::peers {

// Implemented in peer_*.cpp, each compiled only when its library was found.
#ifdef TESSEL_BENCH_HAVE_EIGEN
std::string eigen_version();
void eigen_initialize(int threads);
#endif
#ifdef TESSEL_BENCH_HAVE_GRAPHBLAS
std::string graphblas_version();
void graphblas_initialize(int threads);
void graphblas_finalize();
#endif
#ifdef TESSEL_BENCH_HAVE_RSB
std::string rsb_version();
void rsb_initialize(int threads);
void rsb_finalize();
#endif

std::vector<PeerInfo> found() {
    std::vector<PeerInfo> peers;
#ifdef TESSEL_BENCH_HAVE_EIGEN
    peers.push_back({"eigen", eigen_version()});
#endif
#ifdef TESSEL_BENCH_HAVE_GRAPHBLAS
    peers.push_back({"graphblas", graphblas_version()});
#endif
#ifdef TESSEL_BENCH_HAVE_RSB
    peers.push_back({"rsb", rsb_version()});
#endif
    return peers;
}

std::vector<std::string> missing() {
    std::vector<std::string> names;
#ifndef TESSEL_BENCH_HAVE_EIGEN
    names.emplace_back("Eigen 3 (eigen)");
#endif
#ifndef TESSEL_BENCH_HAVE_GRAPHBLAS
    names.emplace_back("SuiteSparse:GraphBLAS (graphblas)");
#endif
#ifndef TESSEL_BENCH_HAVE_RSB
    names.emplace_back("librsb (rsb)");
#endif
    return names;
}

void initialize([[maybe_unused]] int threads) {
#ifdef TESSEL_BENCH_HAVE_EIGEN
    eigen_initialize(threads);
#endif
#ifdef TESSEL_BENCH_HAVE_GRAPHBLAS
    graphblas_initialize(threads);
#endif
#ifdef TESSEL_BENCH_HAVE_RSB
    rsb_initialize(threads);
#endif
}

void finalize() {
#ifdef TESSEL_BENCH_HAVE_GRAPHBLAS
    graphblas_finalize();
#endif
#ifdef TESSEL_BENCH_HAVE_RSB
    rsb_finalize();
#endif
}

#ifndef TESSEL_BENCH_HAVE_GRAPHBLAS
void set_graphblas_method(const std::string&) {}
#endif

// Stand-ins: a peer that was not found makes no kernel.
#ifndef TESSEL_BENCH_HAVE_EIGEN
template <typename V>
std::unique_ptr<Kernel<V>> make_eigen() { return nullptr; }
template std::unique_ptr<Kernel<float>> make_eigen<float>();
template std::unique_ptr<Kernel<double>> make_eigen<double>();
#endif
#ifndef TESSEL_BENCH_HAVE_GRAPHBLAS
template <typename V>
std::unique_ptr<Kernel<V>> make_graphblas() { return nullptr; }
template std::unique_ptr<Kernel<float>> make_graphblas<float>();
template std::unique_ptr<Kernel<double>> make_graphblas<double>();
#endif
#ifndef TESSEL_BENCH_HAVE_RSB
template <typename V>
std::unique_ptr<Kernel<V>> make_rsb() { return nullptr; }
template std::unique_ptr<Kernel<float>> make_rsb<float>();
template std::unique_ptr<Kernel<double>> make_rsb<double>();
#endif

}  // namespace tessel::bench::peers
