// Sizes checked before allocating: the memory a generator would need, estimated from its
// options alone, against the memory of this machine, so that an impossible problem is refused
// at once with the estimate in the message (not found by std::bad_alloc minutes later).
#pragma once

#include "apps/ccsd_abcd/problem/molecule_generator.hpp"
#include "apps/ccsd_abcd/problem/synthetic_generator.hpp"
#include "core/app/machine.hpp"

namespace tessel::abcd {

/// Bytes the synthetic generator needs at most for these options: every tile position of A
/// and B (at most extent / tile_min + 1 tiles a side) is visited while the shapes are drawn.
double synthetic_bytes_estimate(const SyntheticOptions& options);

/// Bytes the molecule generator needs at least for these options: the fused cd (= ab) range
/// has one tile per pair of AO clusters, held in several tilings, and V has at least one tile
/// per such pair (each cluster is near itself).
double molecule_bytes_estimate(const MoleculeOptions& options);

/// Throws InvalidInput "--m: the synthetic generator needs about 345 GiB for M=... (...), more
/// than the 23.4 GiB of memory of this machine" when the estimate exceeds `memory` bytes.
void check_synthetic_size(const SyntheticOptions& options, size_type memory = size_type(host_memory_bytes()));
/// Throws InvalidInput "--length: ..." likewise.
void check_molecule_size(const MoleculeOptions& options, size_type memory = size_type(host_memory_bytes()));

}  // namespace tessel::abcd
