// Peer: SuiteSparse:GraphBLAS GrB_mxm over the plus-times semiring, A and B sparse by row.
extern "C" {  // this GraphBLAS.h has no extern "C" of its own
#include <GraphBLAS.h>
}

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/spgemm/peers.hpp"
#include "core/timer.hpp"

namespace tessel::bench::spgemm_peers {

namespace {

void check(GrB_Info info, const char* what) {
    if (info != GrB_SUCCESS && info != GrB_NO_VALUE)
        throw std::runtime_error(std::string("GraphBLAS: ") + what + " failed with GrB_Info " +
                                 std::to_string(int(info)));
}

template <typename I>
GrB_Matrix import(const Csr<double, I>& a) {
    // GrB_Matrix_import copies; it wants 64-bit row pointers and column indices.
    std::vector<GrB_Index> ptr(a.row_ptr().begin(), a.row_ptr().end());
    std::vector<GrB_Index> col(a.col_idx().begin(), a.col_idx().end());
    GrB_Matrix m = nullptr;
    check(GrB_Matrix_import_FP64(&m, GrB_FP64, a.rows(), a.cols(), ptr.data(), col.data(),
                                 a.values().data(), ptr.size(), col.size(), a.values().size(),
                                 GrB_CSR_FORMAT),
          "GrB_Matrix_import");
    check(GrB_Matrix_wait(m, GrB_MATERIALIZE), "GrB_Matrix_wait(A)");
    return m;
}

class GraphblasProduct final : public PeerProduct {
public:
    template <typename I>
    GraphblasProduct(const Csr<double, I>& a, const Csr<double, I>& b)
        : rows_(a.rows()), cols_(b.cols()) {
        a_ = import(a);
        b_ = &a == &b ? a_ : import(b);
    }
    ~GraphblasProduct() override {
        if (b_ != a_) GrB_Matrix_free(&b_);
        GrB_Matrix_free(&a_);
    }
    std::string name() const override { return "GraphBLAS GrB_mxm"; }
    std::string detail() const override {
        return "GrB_Matrix_new(C) + GrB_mxm(C, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, A, B, "
               "NULL) + GrB_Matrix_wait(C, GrB_MATERIALIZE)";
    }
    double run() override {
        GrB_Matrix c = nullptr;
        Timer t;
        check(GrB_Matrix_new(&c, GrB_FP64, rows_, cols_), "GrB_Matrix_new(C)");
        check(GrB_mxm(c, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, a_, b_, nullptr),
              "GrB_mxm");
        check(GrB_Matrix_wait(c, GrB_MATERIALIZE), "GrB_Matrix_wait(C)");
        const double seconds = t.seconds();
        GrB_Index nvals = 0;
        check(GrB_Matrix_nvals(&nvals, c), "GrB_Matrix_nvals");
        nnz = size_type(nvals);
        check(GrB_Matrix_reduce_FP64(&value_sum, nullptr, GrB_PLUS_MONOID_FP64, c, nullptr),
              "GrB_Matrix_reduce");
        GrB_Matrix_free(&c);
        return seconds;
    }

private:
    GrB_Index rows_, cols_;
    GrB_Matrix a_ = nullptr, b_ = nullptr;
};

}  // namespace

std::string graphblas_version() {
    return "SuiteSparse:GraphBLAS " + std::to_string(GxB_IMPLEMENTATION_MAJOR) + "." +
           std::to_string(GxB_IMPLEMENTATION_MINOR) + "." + std::to_string(GxB_IMPLEMENTATION_SUB);
}

void graphblas_initialize(int threads) {
    check(GrB_init(GrB_NONBLOCKING), "GrB_init");
    check(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, threads), "GxB_set(GxB_NTHREADS)");
    check(GxB_Global_Option_set(GxB_FORMAT, GxB_BY_ROW), "GxB_set(GxB_FORMAT)");
}

void graphblas_finalize() { GrB_finalize(); }

template <typename I>
std::unique_ptr<PeerProduct> make_graphblas(const Csr<double, I>& a, const Csr<double, I>& b) {
    return std::make_unique<GraphblasProduct>(a, b);
}

template std::unique_ptr<PeerProduct> make_graphblas(const Csr<double, std::int32_t>&,
                                                     const Csr<double, std::int32_t>&);
template std::unique_ptr<PeerProduct> make_graphblas(const Csr<double, std::int64_t>&,
                                                     const Csr<double, std::int64_t>&);

}  // namespace tessel::bench::spgemm_peers
