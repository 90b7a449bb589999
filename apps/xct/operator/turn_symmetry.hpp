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

/// How far (pixels) a ray of the turned operator may lie from the measured one anywhere in the
/// image. A pair off by δ = θ[a + M/2] − θ[a] − π/2 is traced at its mean angle, so each of its
/// rays is turned by |δ|/2 about the axis and moves by r·|δ|/2 at distance r from it, at most
/// (N/√2)·|δ|/2 at the image's corners. 1/20 pixel: the float32 angles of i·180/n (δ ≈ 1e-7)
/// pass for any image; a 512-pixel scan whose pairs are 0.005° apart (encoder steps 0.01 % short)
/// moves 0.016 pixel and passes; a 2048-pixel one passes up to 0.0039°.
inline constexpr double turn_pair_tolerance_pixels = 0.05;

/// Pairs off by at most this (radians, rounding of angles computed in double) keep the first
/// half's angle as it is rather than the pair's mean, so that exact scans are traced exactly.
inline constexpr double turn_pair_exact = 1e-12;

/// The angles' pairing 90° apart: the worst pair and how far its rays move in the image.
struct TurnedPairing {
    std::string problem;     // "" when the angles pair up within turn_pair_tolerance_pixels
    size_type worst = 0;     // the pair (worst, partner = worst + M/2) furthest from 90°
    size_type partner = 0;
    double worst_gap = 0;    // its θ[worst + M/2] − θ[worst], radians
    double shift_pixels = 0; // (N/√2)·|δ|/2 for that pair
};
TurnedPairing turned_pairing(const Geometry& geometry);

/// --turn-symmetry: on, off, or auto (on when the scan allows it).
enum class TurnSymmetry { automatic, on, off };
TurnSymmetry parse_turn_symmetry(std::string_view name);  // "auto", "on", "off"; InvalidInput else
std::string_view to_string(TurnSymmetry mode);

/// Why the angles do not come in pairs 90° apart ("needs an even number of angles, not 45"),
/// or "" when angle a + M/2 is angle a + 90° for every a < M/2 (within turn_pair_tolerance_pixels).
std::string turned_pairs_problem(const Geometry& geometry);

/// Throws InvalidInput (`option`: turned_pairs_problem) when there is one.
void check_turned_pairs(const Geometry& geometry, const char* option = "--turn-symmetry");

/// Whether `mode` turns the scan: off never; on always, the angles checked (InvalidInput
/// naming `option`); auto when the angles pair up, with the reason either way in `why`.
bool turn_chosen(TurnSymmetry mode, const Geometry& geometry, const char* option, std::string& why);

/// A line for the plan: how close the pairs are (nothing to add for exact pairs).
std::string turned_pairing_note(const TurnedPairing& pairing);

/// The same image and detector with the first half of the angles, each at its pair's mean
/// (θ[a] + θ[a + M/2] − π/2)/2 when the pair is off by more than turn_pair_exact.
Geometry first_half(const Geometry& geometry);

/// The order of the whole scan from that of its first half: the first half's rays in their
/// order, then each one's partner 90° on in the same order; the pixels as in `half`.
Ordering paired_ordering(const Ordering& half, const Geometry& geometry);

/// turn[q]: the ordered position of the pixel that the pixel at ordered position q becomes when
/// the image is turned a quarter (pixel (ix, iy) to (n − 1 − iy, ix)).
std::vector<size_type> turned_positions(const Ordering& ordering, size_type n);

}  // namespace tessel::xct
