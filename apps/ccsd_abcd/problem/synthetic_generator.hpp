// Generator 1: the synthetic problems of the paper's section 5.1 (random irregular tiles, random
// block sparsity at a target element-area density).
#pragma once

#include <cstdint>
#include <random>

#include "apps/ccsd_abcd/problem/problem.hpp"

namespace tessel::abcd {

struct SyntheticOptions {
    size_type m = 1024;         ///< rows of A and C
    size_type n = 4096;         ///< columns of B and C, and K = N (B is square)
    size_type tile_min = 512;   ///< tile sizes are uniform in [tile_min, tile_max]
    size_type tile_max = 2048;
    double density_a = 0.5;     ///< element-area densities in (0, 1]
    double density_b = 0.3;
    std::uint64_t seed = 1;
};

/// A tiling of [0, extent) with sizes drawn uniformly in [lo, hi]; the last tiles are
/// adjusted so that the sizes sum to `extent` and stay in [lo, hi] whenever some tiling can
/// (an extent below lo gives one tile of that extent). Throws InvalidInput for extent <= 0,
/// lo <= 0 or lo > hi.
Tiling random_tiling(size_type extent, size_type lo, size_type hi, std::mt19937_64& rng);

/// The shape of a rows x cols tiled matrix at element-area density `density`: starting from
/// all tiles, tiles are visited in a uniformly random order and eliminated unless that would
/// drop the density below the target or empty a tile row or column (every row and column
/// keeps at least one tile). Throws InvalidInput when density is outside (0, 1].
TileShape random_shape(const Tiling& rows, const Tiling& cols, double density, std::mt19937_64& rng,
                       const std::string& what = "--density");

/// The whole problem: M and N = K tiled at random, A and B sparsified to their densities,
/// tiles from the seeded function. Deterministic for a seed. Throws InvalidInput for bad
/// options (naming the option).
Problem synthetic_problem(const SyntheticOptions& options);

}  // namespace tessel::abcd
