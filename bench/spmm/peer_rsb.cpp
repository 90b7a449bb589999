// Peer: librsb (Recursive Sparse Blocks), rsb_spmm with row-major dense operands. The RSB
// matrix is assembled in prepare(); only rsb_spmm (C := 1·A·B + 0·C) is timed.
#include <rsb.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/spmm/peers.hpp"

namespace tessel::bench::peers {

namespace {

void check(rsb_err_t err, const char* what) {
    if (err == RSB_ERR_NO_ERROR) return;
    char buf[256] = {0};
    rsb_strerror_r(err, buf, sizeof buf - 1);
    throw std::runtime_error(std::string("librsb: ") + what + " failed: " + buf);
}

}  // namespace

std::string rsb_version() { return std::string("librsb ") + RSB_LIBRSB_VER_STRING; }

void rsb_initialize(int threads) {
    check(rsb_lib_init(RSB_NULL_INIT_OPTIONS), "rsb_lib_init");
    const rsb_int_t n = threads;
    check(rsb_lib_set_opt(RSB_IO_WANT_EXECUTING_THREADS, &n), "set RSB_IO_WANT_EXECUTING_THREADS");
}

void rsb_finalize() { rsb_lib_exit(RSB_NULL_EXIT_OPTIONS); }

namespace {

template <typename V>
class RsbKernel final : public Kernel<V> {
public:
    ~RsbKernel() override {
        if (mtx_) rsb_mtx_free(mtx_);
    }
    std::string name() const override { return "rsb"; }
    Family family() const override { return Family::peer; }
    std::string details() const override {
        return "rsb_spmm(RSB_TRANSPOSITION_N, RSB_FLAG_WANT_ROW_MAJOR_ORDER), "
               "RSB_FLAG_DEFAULT_RSB_MATRIX_FLAGS";
    }
    void prepare(const Csr<V, Index>& a) override {
        if (mtx_) mtx_ = rsb_mtx_free(mtx_);
        // rsb_coo_idx_t and rsb_nnz_idx_t are int in this build of librsb.
        if (a.nnz() > std::numeric_limits<rsb_nnz_idx_t>::max() ||
            a.rows() > std::numeric_limits<rsb_coo_idx_t>::max())
            throw std::runtime_error("librsb: matrix too large for its 32-bit indices");
        std::vector<rsb_coo_idx_t> ptr(a.row_ptr().begin(), a.row_ptr().end());
        std::vector<rsb_coo_idx_t> col(a.col_idx().begin(), a.col_idx().end());
        rsb_err_t err = RSB_ERR_NO_ERROR;
        mtx_ = rsb_mtx_alloc_from_csr_const(a.values().data(), ptr.data(), col.data(),
                                            rsb_nnz_idx_t(a.nnz()), typecode(),
                                            rsb_coo_idx_t(a.rows()), rsb_coo_idx_t(a.cols()),
                                            RSB_DEFAULT_ROW_BLOCKING, RSB_DEFAULT_COL_BLOCKING,
                                            RSB_FLAG_DEFAULT_RSB_MATRIX_FLAGS, &err);
        check(err, "rsb_mtx_alloc_from_csr_const");
        if (!mtx_) throw std::runtime_error("librsb: rsb_mtx_alloc_from_csr_const returned null");
        bytes_ = csr_bytes(a);
    }
    double a_bytes() const override { return bytes_; }
    void multiply() override {
        const V alpha = 1, beta = 0;
        check(rsb_spmm(RSB_TRANSPOSITION_N, &alpha, mtx_, rsb_coo_idx_t(this->b_.cols),
                       RSB_FLAG_WANT_ROW_MAJOR_ORDER, this->b_.data, rsb_nnz_idx_t(this->b_.ld),
                       &beta, this->c_.data, rsb_nnz_idx_t(this->c_.ld)),
              "rsb_spmm");
    }

private:
    static rsb_type_t typecode() {
        return std::is_same_v<V, double> ? RSB_NUMERICAL_TYPE_DOUBLE : RSB_NUMERICAL_TYPE_FLOAT;
    }
    rsb_mtx_t* mtx_ = nullptr;
    double bytes_ = 0;
};

}  // namespace

template <typename V>
std::unique_ptr<Kernel<V>> make_rsb() {
    return std::make_unique<RsbKernel<V>>();
}
template std::unique_ptr<Kernel<float>> make_rsb<float>();
template std::unique_ptr<Kernel<double>> make_rsb<double>();

}  // namespace tessel::bench::peers
