// tessel._spmm: C = A·B with A in CSR (scipy's arrays) and B a dense numpy array. A is copied
// into tessel's CSR (64-bit row offsets); B is viewed in place (C-ordered; the kernel copies a
// Fortran-ordered one row-major) and C is written in place into the returned array.
#include <cmath>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "core/formats/csr.hpp"
#include "core/kernels/spmm.hpp"

namespace tessel::python {

namespace {

template <typename V, typename I>
Csr<V, I> csr_copy(size_type rows, size_type cols, const std::vector<std::int64_t>& indptr, py::handle indices,
                   py::handle data) {
    auto idx = numpy_array<I>(indices, "A.indices", 1);
    auto val = numpy_array<V>(data, "A.data", 1);
    if (static_cast<size_type>(indptr.size()) != rows + 1)
        bad_argument("A.indptr", std::to_string(indptr.size()) + " offsets for " + std::to_string(rows) + " rows");
    std::vector<size_type> row_ptr(indptr.begin(), indptr.end());
    std::vector<I> col_idx(static_cast<std::size_t>(idx.shape(0)));
    std::vector<V> values(static_cast<std::size_t>(val.shape(0)));
    auto idx_view = idx.template unchecked<1>();
    auto val_view = val.template unchecked<1>();
    for (py::ssize_t i = 0; i < idx.shape(0); ++i) col_idx[i] = idx_view(i);
    for (py::ssize_t i = 0; i < val.shape(0); ++i) values[i] = val_view(i);
    // The constructor checks offsets, column bounds and lengths (InvalidInput naming "A").
    return Csr<V, I>(rows, cols, std::move(row_ptr), std::move(col_idx), std::move(values), "A");
}

// C's starting values for beta != 0: a copy of `c_object` (shape rows x k), row-major.
template <typename V>
void copy_initial_c(py::handle c_object, py::array_t<V>& c, size_type rows, size_type k) {
    auto c0 = numpy_array<V>(c_object, "C", 2);
    if (c0.shape(0) != rows || c0.shape(1) != k)
        bad_argument("C", "shape " + shape_text(c0) + ", expected (" + std::to_string(rows) + ", " + std::to_string(k) + ")");
    auto from = c0.template unchecked<2>();
    auto to = c.template mutable_unchecked<2>();
    for (py::ssize_t i = 0; i < c0.shape(0); ++i)
        for (py::ssize_t j = 0; j < c0.shape(1); ++j) to(i, j) = from(i, j);
}

template <typename V, typename I>
py::array_t<V> multiply(size_type rows, size_type cols, const std::vector<std::int64_t>& indptr, py::handle indices,
                        py::handle data, py::handle b_object, Backend backend, double alpha, double beta,
                        py::handle c_object) {
    const Csr<V, I> a = csr_copy<V, I>(rows, cols, indptr, indices, data);
    auto b = numpy_array<V>(b_object, "B", 2);
    if (b.shape(0) != cols)
        bad_argument("B", "shape " + shape_text(b) + " does not fit A of shape (" + std::to_string(rows) + ", " +
                              std::to_string(cols) + "): B needs " + std::to_string(cols) + " rows");
    const bool c_order = b.flags() & py::array::c_style, f_order = b.flags() & py::array::f_style;
    if (!c_order && !f_order) bad_argument("B", "neither C- nor Fortran-contiguous (pass np.ascontiguousarray(B))");
    const size_type k = b.shape(1);
    py::array_t<V> c({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(k)});
    if (beta != 0 && c_object.is_none()) bad_argument("C", "beta != 0 needs C");
    if (beta != 0) copy_initial_c(c_object, c, rows, k);
    if (rows == 0 || k == 0) return c;
    if (cols == 0) {  // A·B is all zero; the kernels need columns
        for (size_type e = 0; e < rows * k; ++e) c.mutable_data()[e] = beta != 0 ? V(beta) * c.data()[e] : V{0};
        return c;
    }
    DenseView<const V> b_view(b.data(), cols, k, c_order ? Layout::row_major : Layout::col_major);
    DenseView<V> c_view(c.mutable_data(), rows, k, Layout::row_major);
    {
        py::gil_scoped_release release;
        spmm(a, b_view, c_view, Epilogue<V>::scaled(V(alpha), V(beta)), backend);
    }
    return c;
}

py::array spmm_binding(size_type rows, size_type cols, py::handle indptr_object, py::handle indices,
                       py::handle data, py::handle b, const std::string& backend_name, double alpha, double beta,
                       py::handle c) {
    if (rows < 0 || cols < 0) bad_argument("A", "negative shape");
    const Backend backend = parse_backend(backend_name);
    const auto indptr = index_vector(indptr_object, "A.indptr");
    const bool single = has_dtype<float>(data), wide = has_dtype<std::int64_t>(indices);
    if (!single && !has_dtype<double>(data))
        bad_argument("A.data", "dtype " + std::string(py::str(py::getattr(data, "dtype", py::str("?")))) +
                                   ", expected float32 or float64");
    if (!wide && !has_dtype<std::int32_t>(indices)) bad_argument("A.indices", "expected int32 or int64 indices");
    if (!std::isfinite(alpha)) bad_argument("alpha", "must be finite");
    if (!std::isfinite(beta)) bad_argument("beta", "must be finite");
    if (single)
        return wide ? py::array(multiply<float, std::int64_t>(rows, cols, indptr, indices, data, b, backend, alpha, beta, c))
                    : py::array(multiply<float, std::int32_t>(rows, cols, indptr, indices, data, b, backend, alpha, beta, c));
    return wide ? py::array(multiply<double, std::int64_t>(rows, cols, indptr, indices, data, b, backend, alpha, beta, c))
                : py::array(multiply<double, std::int32_t>(rows, cols, indptr, indices, data, b, backend, alpha, beta, c));
}

}  // namespace

void bind_spmm(py::module_& m) {
    m.def("_spmm", &spmm_binding, py::arg("rows"), py::arg("cols"), py::arg("indptr"), py::arg("indices"),
          py::arg("data"), py::arg("b"), py::arg("backend") = "auto", py::arg("alpha") = 1.0, py::arg("beta") = 0.0,
          py::arg("c") = py::none(),
          "alpha·A·B + beta·C; A given as CSR arrays, B a 2-D array of A's dtype (C- or Fortran-ordered).");
}

}  // namespace tessel::python
