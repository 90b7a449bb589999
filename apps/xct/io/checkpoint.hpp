// Checkpoints of a reconstruction in HDF5: the state of the round in progress, in natural
// layout (so that any rank grid can resume), written atomically, and where the finished slices
// are kept (finished_slices.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/xct/io/finished_slices.hpp"
#include "core/types.hpp"

namespace tessel::xct {

/// Everything rank 0 gathers to resume. Per slot of the round (slot = batch group·K + column),
/// x and p are n·n values, r num_rays values (natural pixel and ray indices).
template <typename ValueType>
struct Checkpoint {
    nlohmann::json fingerprint;  // what the run reconstructs (inputs, geometry, solver, precision)
    size_type round = 0;         // round in progress
    int iteration = 0;           // its iterations done
    size_type round_width = 0;   // slots per round (P_batch·K)
    int total_iterations = 0;    // iterations over all rounds so far
    // Histories of the finished slices (all rounds before `round`); the slices themselves are
    // in `slices`: the partial --output file, or (path empty) the store next to the checkpoint.
    SliceStore slices;
    std::vector<std::vector<double>> done_histories;
    std::vector<double> done_bnorms;
    // The round in progress.
    std::vector<ValueType> x, r, p;
    std::vector<double> gamma, bnorm;
    std::vector<std::uint8_t> active;
    std::vector<std::vector<double>> history;
};

/// Writes `c` to `path` under a temporary name, then renames it (a killed writer leaves the
/// previous checkpoint intact). Throws Hdf5Error, InvalidInput.
template <typename ValueType>
void write_checkpoint(const std::string& path, const Checkpoint<ValueType>& c, size_type pixels, size_type rays);

/// Reads a checkpoint written by write_checkpoint. Throws InvalidInput ("f.ckpt.h5: cannot open",
/// "f.ckpt.h5: written with double precision, this run uses single", a missing dataset).
template <typename ValueType>
Checkpoint<ValueType> read_checkpoint(const std::string& path);

/// Checks that a checkpoint read from `path` fits the run before anything indexes it: the
/// round starts inside the `slices`, its iteration is within `iterations`, every per-column
/// vector holds one value per column of the round, x, r and p hold `pixels` and `rays` per
/// column, the finished slices are those of the rounds before, and every value is finite.
/// Throws InvalidInput "f.ckpt.h5: gamma has 3 values, expected 4 (one per column of the round)".
template <typename ValueType>
void validate_checkpoint(const std::string& path, const Checkpoint<ValueType>& c, size_type pixels, size_type rays,
                         size_type slices, int iterations);

/// Throws InvalidInput "f.ckpt.h5: written for another reconstruction (slices: 4 there, 8 here)"
/// when the fingerprints differ.
void check_fingerprint(const std::string& path, const nlohmann::json& stored, const nlohmann::json& current);

}  // namespace tessel::xct
