// STREAM triad (McCalpin) measured in-process: the memory bandwidth that bounds SpMM.
#pragma once

#include <nlohmann/json.hpp>

#include "core/types.hpp"

namespace tessel::bench {

/// Result of a triad measurement a[i] = b[i] + s·c[i] over three double arrays.
struct StreamTriad {
    size_type elements = 0;    // per array
    int threads = 0;
    int runs = 0;
    double best_seconds = 0;   // fastest run
    double gb_per_s = 0;       // 3·8·elements / best_seconds / 1e9 (STREAM convention: no
                               // write-allocate traffic counted)
    nlohmann::json json() const;
};

/// Runs the triad `runs` times with all OpenMP threads (static schedule, first touch by
/// the same threads) and keeps the best. `elements` per array should make each array
/// several times the last-level cache. Throws InvalidInput when elements < 1 or runs < 1.
StreamTriad measure_stream_triad(size_type elements = size_type(1) << 24, int runs = 10);

}  // namespace tessel::bench
