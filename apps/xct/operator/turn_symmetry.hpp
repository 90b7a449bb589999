// The quarter-turn symmetry of a parallel-beam scan (--turn-symmetry): when the angles come in
// pairs 90° apart (an even number of evenly spaced angles over 180°), the ray (θ + 90°, ρ)
// crosses the pixels of the ray (θ, ρ) turned a quarter about the rotation axis, with the
// same lengths. So A needs only the rays of the first half of the angles: the second half's
// rows are the first half's applied to the image turned by 90° (turned_projector.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "apps/xct/geometry/geometry.hpp"
#include "apps/xct/operator/ordering.hpp"

namespace tessel::xct {

/// Largest difference |θ[a + M/2] − θ[a] − π/2| accepted (radians): float32 angle files are
/// about 1e-7 off; 1e-5 rad moves a ray by less than 0.01 pixel across a 2048-pixel image.
inline constexpr double turn_pair_tolerance = 1e-5;

/// --turn-symmetry: on, off, or auto (on when the scan allows it).
enum class TurnSymmetry { automatic, on, off };
TurnSymmetry parse_turn_symmetry(std::string_view name);  // "auto", "on", "off"; InvalidInput else
std::string_view to_string(TurnSymmetry mode);

/// Why the angles do not come in pairs 90° apart ("needs an even number of angles, not 45"),
/// or "" when angle a + M/2 is angle a + 90° for every a < M/2 (within turn_pair_tolerance).
std::string turned_pairs_problem(const Geometry& geometry);

/// Throws InvalidInput (`option`: turned_pairs_problem) when there is one.
void check_turned_pairs(const Geometry& geometry, const char* option = "--turn-symmetry");

/// Whether `mode` turns the scan: off never; on always, the angles checked (InvalidInput
/// naming `option`); auto when the angles pair up, with the reason either way in `why`.
bool turn_chosen(TurnSymmetry mode, const Geometry& geometry, const char* option, std::string& why);

/// The same image and detector with the first half of the angles.
Geometry first_half(const Geometry& geometry);

/// The order of the whole scan from that of its first half: the first half's rays in their
/// order, then each one's partner 90° on in the same order; the pixels as in `half`.
Ordering paired_ordering(const Ordering& half, const Geometry& geometry);

/// turn[q]: the ordered position of the pixel that the pixel at ordered position q becomes when
/// the image is turned a quarter (pixel (ix, iy) to (n − 1 − iy, ix)).
std::vector<size_type> turned_positions(const Ordering& ordering, size_type n);

}  // namespace tessel::xct
