// Problems: assembling and checking the tilings and shapes of A and B.
#include "apps/ccsd_abcd/problem/problem.hpp"

#include "core/error.hpp"

namespace tessel::abcd {

Precision parse_precision(const std::string& name) {
    if (name == "double" || name == "float64") return Precision::float64;
    if (name == "float" || name == "float32") return Precision::float32;
    TESSEL_INVALID_INPUT("--precision", 0, "'" + name + "' is not double or float");
}

std::string to_string(Precision precision) {
    return precision == Precision::float64 ? "double" : "float";
}

Problem make_problem(Tiling a_rows, Tiling a_cols, TileShape a_shape, Tiling b_rows, Tiling b_cols,
                     TileShape b_shape) {
    for (auto [t, what] : {std::pair{&a_rows, "rows of A"}, std::pair{&a_cols, "columns of A"},
                           std::pair{&b_rows, "rows of B"}, std::pair{&b_cols, "columns of B"}})
        if (t->count() == 0) TESSEL_INVALID_INPUT(what, 0, "no tiles (the range is empty)");
    TESSEL_ENSURE_DIMS(a_cols == b_rows,
                       "A has K = " + std::to_string(a_cols.extent()) + " columns (" +
                           a_cols.describe() + ") but B has " + std::to_string(b_rows.extent()) +
                           " rows (" + b_rows.describe() + "): the tilings must be the same");
    TESSEL_ENSURE_DIMS(a_shape.rows() == a_rows.count() && a_shape.cols() == a_cols.count(),
                       "the shape of A has " + std::to_string(a_shape.rows()) + " x " +
                           std::to_string(a_shape.cols()) + " tiles, its tilings " +
                           std::to_string(a_rows.count()) + " x " + std::to_string(a_cols.count()));
    TESSEL_ENSURE_DIMS(b_shape.rows() == b_rows.count() && b_shape.cols() == b_cols.count(),
                       "the shape of B has " + std::to_string(b_shape.rows()) + " x " +
                           std::to_string(b_shape.cols()) + " tiles, its tilings " +
                           std::to_string(b_rows.count()) + " x " + std::to_string(b_cols.count()));
    Problem p;
    p.m_tiling = std::move(a_rows);
    p.k_tiling = std::move(a_cols);
    p.n_tiling = std::move(b_cols);
    p.a_shape = std::move(a_shape);
    p.b_shape = std::move(b_shape);
    return p;
}

}  // namespace tessel::abcd
