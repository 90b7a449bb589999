// A block-sparse product C = A·B: the tilings of the three index ranges, the shapes of A and B,
// and where the values of their tiles come from.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "apps/ccsd_abcd/problem/tile_shape.hpp"
#include "apps/ccsd_abcd/problem/tile_source.hpp"
#include "apps/ccsd_abcd/problem/tiling.hpp"

namespace tessel::abcd {

/// Element type of the tiles.
enum class Precision { float64, float32 };

/// Parses "double" / "float64" or "float" / "float32"; throws InvalidInput.
Precision parse_precision(const std::string& name);
std::string to_string(Precision precision);
inline size_type value_bytes(Precision p) { return p == Precision::float64 ? 8 : 4; }

/// C = A·B with A M x K (tile rows m_tiling, tile columns k_tiling), B K x N (k_tiling,
/// n_tiling) and C M x N. In CCSD terms A = T(ij, cd), B = V(cd, ab), C = R(ij, ab).
struct Problem {
    Tiling m_tiling, k_tiling, n_tiling;
    TileShape a_shape, b_shape;
    std::shared_ptr<const TileSource> values;
    Precision precision = Precision::float64;
    std::uint64_t seed = 1;
    /// What made it: "synthetic M=2000 N=K=24000 ...", "molecule C8H18 ...", "file x.h5".
    std::string description;

    size_type m() const { return m_tiling.extent(); }
    size_type k() const { return k_tiling.extent(); }
    size_type n() const { return n_tiling.extent(); }
    double density_a() const { return a_shape.density(m_tiling, k_tiling); }
    double density_b() const { return b_shape.density(k_tiling, n_tiling); }
};

/// Puts a problem together from A's and B's own tilings and shapes. Throws DimensionMismatch
/// when A's column tiling is not B's row tiling ("A has K = 100 in 4 tiles ..., B has 120 rows
/// in ...") or a shape does not match its tilings; InvalidInput for empty tilings.
Problem make_problem(Tiling a_rows, Tiling a_cols, TileShape a_shape, Tiling b_rows, Tiling b_cols,
                     TileShape b_shape);

}  // namespace tessel::abcd
