// tessel's typed errors as Python exceptions carrying the one-line message (no source
// location): tessel.Error (RuntimeError) and its subclasses, some also ValueError/MemoryError.
#include "errors.hpp"

#include "arrays.hpp"
#include "core/error.hpp"

namespace tessel::python {

namespace {

PyObject* error_class = nullptr;
PyObject* invalid_input_class = nullptr;
PyObject* dimension_mismatch_class = nullptr;
PyObject* out_of_memory_class = nullptr;
PyObject* not_compiled_class = nullptr;

PyObject* add_exception(py::module_& m, const char* name, py::tuple bases, const char* doc) {
    const std::string full = std::string("tessel.") + name;
    PyObject* cls = PyErr_NewExceptionWithDoc(full.c_str(), doc, bases.ptr(), nullptr);
    if (!cls) throw py::error_already_set();
    m.add_object(name, py::reinterpret_borrow<py::object>(cls));
    return cls;  // the module keeps a reference for the interpreter's lifetime
}

}  // namespace

void register_errors(py::module_& m) {
    error_class = add_exception(m, "Error", py::make_tuple(py::handle(PyExc_RuntimeError)), "A tessel error.");
    const py::handle base(error_class);
    invalid_input_class = add_exception(m, "InvalidInput", py::make_tuple(base, py::handle(PyExc_ValueError)),
                                        "Bad input data (the message names the input and the place).");
    dimension_mismatch_class = add_exception(m, "DimensionMismatch", py::make_tuple(base, py::handle(PyExc_ValueError)),
                                             "Operand sizes that do not fit together.");
    out_of_memory_class = add_exception(m, "OutOfMemoryBudget", py::make_tuple(base, py::handle(PyExc_MemoryError)),
                                        "The work does not fit in memory; the message says what would.");
    not_compiled_class = add_exception(m, "NotCompiled", py::make_tuple(base),
                                       "A backend this build or machine does not have (cuda).");
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const InvalidInput& e) {
            PyErr_SetString(invalid_input_class, e.message().c_str());
        } catch (const DimensionMismatch& e) {
            PyErr_SetString(dimension_mismatch_class, e.message().c_str());
        } catch (const OutOfMemoryBudget& e) {
            PyErr_SetString(out_of_memory_class, e.message().c_str());
        } catch (const NotCompiled& e) {
            PyErr_SetString(not_compiled_class, e.message().c_str());
        } catch (const Error& e) {
            PyErr_SetString(error_class, e.message().c_str());
        }
    });
}

std::vector<std::int64_t> index_vector(py::handle object, const std::string& name) {
    if (has_dtype<std::int32_t>(object)) {
        auto a = numpy_array<std::int32_t>(object, name, 1).unchecked<1>();
        std::vector<std::int64_t> out(static_cast<std::size_t>(a.shape(0)));
        for (py::ssize_t i = 0; i < a.shape(0); ++i) out[i] = a(i);
        return out;
    }
    auto a = numpy_array<std::int64_t>(object, name, 1).unchecked<1>();
    return std::vector<std::int64_t>(a.data(0), a.data(0) + a.shape(0));
}

}  // namespace tessel::python
