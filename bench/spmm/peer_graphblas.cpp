// Peer: SuiteSparse:GraphBLAS, C = A·B with GrB_mxm over the plus-times semiring; A sparse
// held by row, B full held by row. Only GrB_mxm (and the wait that completes it) is timed.
extern "C" {  // this GraphBLAS.h has no extern "C" of its own
#include <GraphBLAS.h>
}

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/spmm/peers.hpp"

namespace tessel::bench::peers {

namespace {

void check(GrB_Info info, const char* what) {
    if (info != GrB_SUCCESS && info != GrB_NO_VALUE)
        throw std::runtime_error(std::string("GraphBLAS: ") + what + " failed with GrB_Info " +
                                 std::to_string(int(info)));
}

}  // namespace

std::string graphblas_version() {
    return "SuiteSparse:GraphBLAS " + std::to_string(GxB_IMPLEMENTATION_MAJOR) + "." +
           std::to_string(GxB_IMPLEMENTATION_MINOR) + "." +
           std::to_string(GxB_IMPLEMENTATION_SUB);
}

void graphblas_initialize(int threads) {
    check(GrB_init(GrB_NONBLOCKING), "GrB_init");
    check(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, threads), "GxB_set(GxB_NTHREADS)");
    check(GxB_Global_Option_set(GxB_FORMAT, GxB_BY_ROW), "GxB_set(GxB_FORMAT)");
}

void graphblas_finalize() { GrB_finalize(); }

namespace {
std::string method = "accum";
}  // namespace

void set_graphblas_method(const std::string& name) {
    if (name != "auto" && name != "saxpy" && name != "dot" && name != "accum")
        throw std::invalid_argument("graphblas method '" + name + "' is not auto, saxpy, dot or accum");
    method = name;
}

namespace {

template <typename V>
class GraphBlasKernel final : public Kernel<V> {
public:
    ~GraphBlasKernel() override {
        unbind();
        if (a_) GrB_Matrix_free(&a_);
    }
    std::string name() const override { return "graphblas"; }
    Family family() const override { return Family::peer; }
    std::string details() const override {
        if (method == "accum")
            return "C full by row zeroed, then GrB_mxm(C, NULL, GrB_PLUS, PLUS_TIMES, A sparse "
                   "by row, B full by row): C += A*B in place (saxpy5); zeroing timed";
        return "GrB_mxm(C, NULL, NULL, PLUS_TIMES, A sparse by row, B full by row), "
               "AxB_METHOD " + method;
    }
    void prepare(const Csr<V, Index>& a) override {
        if (a_) GrB_Matrix_free(&a_);
        rows_ = GrB_Index(a.rows());
        // GrB_Matrix_import copies; it wants 64-bit row pointers and column indices.
        std::vector<GrB_Index> ptr(a.row_ptr().begin(), a.row_ptr().end());
        std::vector<GrB_Index> col(a.col_idx().begin(), a.col_idx().end());
        if constexpr (std::is_same_v<V, double>)
            check(GrB_Matrix_import_FP64(&a_, GrB_FP64, a.rows(), a.cols(), ptr.data(),
                                         col.data(), a.values().data(), ptr.size(), col.size(),
                                         a.values().size(), GrB_CSR_FORMAT),
                  "GrB_Matrix_import");
        else
            check(GrB_Matrix_import_FP32(&a_, GrB_FP32, a.rows(), a.cols(), ptr.data(),
                                         col.data(), a.values().data(), ptr.size(), col.size(),
                                         a.values().size(), GrB_CSR_FORMAT),
                  "GrB_Matrix_import");
        check(GrB_Matrix_wait(a_, GrB_MATERIALIZE), "GrB_Matrix_wait(A)");
        bytes_ = csr_bytes(a);
    }
    double a_bytes() const override { return bytes_; }
    void bind(DenseView<const V> b, DenseView<V> c) override {
        Kernel<V>::bind(b, c);
        unbind();
        k_ = GrB_Index(b.cols);
        // B is handed over as a malloc'd row-major array (pack takes ownership, O(1)).
        const GrB_Index entries = GrB_Index(b.rows) * k_;
        const GrB_Index bytes = std::max<GrB_Index>(1, entries) * sizeof(V);
        V* bx = static_cast<V*>(std::malloc(bytes));
        if (!bx) throw std::bad_alloc();
        for (size_type i = 0; i < b.rows; ++i)
            std::memcpy(bx + i * b.cols, b.data + i * b.ld, sizeof(V) * b.cols);
        check(GrB_Matrix_new(&b_gb_, type(), b.rows, k_), "GrB_Matrix_new(B)");
        check(GxB_Matrix_Option_set(b_gb_, GxB_FORMAT, GxB_BY_ROW), "GxB_set(B, BY_ROW)");
        void* bv = bx;
        check(GxB_Matrix_pack_FullR(b_gb_, &bv, bytes, false, nullptr), "GxB_Matrix_pack_FullR");
        check(GrB_Matrix_new(&c_gb_, type(), rows_, k_), "GrB_Matrix_new(C)");
        check(GxB_Matrix_Option_set(c_gb_, GxB_FORMAT, GxB_BY_ROW), "GxB_set(C, BY_ROW)");
        check(GrB_Descriptor_new(&desc_), "GrB_Descriptor_new");
        if (method == "saxpy")
            check(GxB_Desc_set(desc_, GxB_AxB_METHOD, GxB_AxB_SAXPY), "GxB_Desc_set");
        if (method == "dot") check(GxB_Desc_set(desc_, GxB_AxB_METHOD, GxB_AxB_DOT), "GxB_Desc_set");
        if (method == "accum") {
            // C is a full matrix that this kernel owns: unpacked (O(1)), zeroed, packed back.
            c_entries_ = rows_ * k_;
            c_bytes_ = std::max<GrB_Index>(1, c_entries_) * sizeof(V);
            void* cx = std::calloc(1, c_bytes_);
            if (!cx) throw std::bad_alloc();
            check(GxB_Matrix_pack_FullR(c_gb_, &cx, c_bytes_, false, nullptr), "pack C");
        }
    }
    void multiply() override {
        if (method == "accum") {
            void* cx = nullptr;
            GrB_Index size = 0;
            bool iso = false;
            check(GxB_Matrix_unpack_FullR(c_gb_, &cx, &size, &iso, nullptr), "unpack C");
            V* cv = static_cast<V*>(cx);
            const auto n = static_cast<size_type>(c_entries_);
#pragma omp parallel for schedule(static)
            for (size_type e = 0; e < n; ++e) cv[e] = V{0};
            check(GxB_Matrix_pack_FullR(c_gb_, &cx, size, false, nullptr), "pack C");
            check(GrB_mxm(c_gb_, nullptr, accum(), semiring(), a_, b_gb_, desc_), "GrB_mxm");
        } else {
            check(GrB_mxm(c_gb_, nullptr, nullptr, semiring(), a_, b_gb_, desc_), "GrB_mxm");
        }
        check(GrB_Matrix_wait(c_gb_, GrB_MATERIALIZE), "GrB_Matrix_wait(C)");
    }
    void collect() override {
        auto& c = this->c_;
        GrB_Index nvals = 0;
        check(GrB_Matrix_nvals(&nvals, c_gb_), "GrB_Matrix_nvals");
        if (nvals == rows_ * k_) {
            // Every entry present: unpack as full by row (O(1) when already in that form).
            void* cx = nullptr;
            GrB_Index size = 0;
            bool iso = false;
            check(GxB_Matrix_unpack_FullR(c_gb_, &cx, &size, &iso, nullptr),
                  "GxB_Matrix_unpack_FullR");
            const V* cv = static_cast<const V*>(cx);
            for (size_type i = 0; i < c.rows; ++i)
                for (size_type j = 0; j < c.cols; ++j)
                    c.data[i * c.ld + j] = iso ? cv[0] : cv[i * c.cols + j];
            std::free(cx);
            return;
        }
        // Rows of A without entries leave holes in C: extract the tuples, zeros elsewhere.
        std::vector<GrB_Index> ii(nvals), jj(nvals);
        std::vector<V> xx(nvals);
        GrB_Index n = nvals;
        if constexpr (std::is_same_v<V, double>)
            check(GrB_Matrix_extractTuples_FP64(ii.data(), jj.data(), xx.data(), &n, c_gb_),
                  "GrB_Matrix_extractTuples");
        else
            check(GrB_Matrix_extractTuples_FP32(ii.data(), jj.data(), xx.data(), &n, c_gb_),
                  "GrB_Matrix_extractTuples");
        for (size_type i = 0; i < c.rows; ++i)
            for (size_type j = 0; j < c.cols; ++j) c.data[i * c.ld + j] = V{0};
        for (GrB_Index e = 0; e < n; ++e) c.data[size_type(ii[e]) * c.ld + size_type(jj[e])] = xx[e];
    }
    void unbind() override {
        if (b_gb_) GrB_Matrix_free(&b_gb_);
        if (c_gb_) GrB_Matrix_free(&c_gb_);
        if (desc_) GrB_Descriptor_free(&desc_);
    }

private:
    static GrB_Type type() { return std::is_same_v<V, double> ? GrB_FP64 : GrB_FP32; }
    static GrB_BinaryOp accum() { return std::is_same_v<V, double> ? GrB_PLUS_FP64 : GrB_PLUS_FP32; }
    static GrB_Semiring semiring() {
        return std::is_same_v<V, double> ? GrB_PLUS_TIMES_SEMIRING_FP64
                                         : GrB_PLUS_TIMES_SEMIRING_FP32;
    }

    GrB_Matrix a_ = nullptr;
    GrB_Matrix b_gb_ = nullptr;
    GrB_Matrix c_gb_ = nullptr;
    GrB_Descriptor desc_ = nullptr;
    GrB_Index c_entries_ = 0, c_bytes_ = 0;
    GrB_Index rows_ = 0;
    GrB_Index k_ = 0;
    double bytes_ = 0;
};

}  // namespace

template <typename V>
std::unique_ptr<Kernel<V>> make_graphblas() {
    return std::make_unique<GraphBlasKernel<V>>();
}
template std::unique_ptr<Kernel<float>> make_graphblas<float>();
template std::unique_ptr<Kernel<double>> make_graphblas<double>();

}  // namespace tessel::bench::peers
