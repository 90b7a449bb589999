// `tessel-spdnn generate`: its options and the run (generate_command.cpp).
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "core/types.hpp"

namespace tessel::spdnn {

struct GenerateArgs {
    std::string out;
    size_type neurons = 0, layers = 0, images = 0;
    std::uint64_t seed = 2020;
    double bias = std::numeric_limits<double>::quiet_NaN();
    bool no_categories = false;
    /// Write the binary caches (network layer by layer) instead of the text files.
    bool binary = false;
    /// With binary: also store every layer as the kernels take it (tiled ELL), converted with
    /// these options (infer's --block-rows and --reorder must match to read them).
    bool tiled = true;
    size_type block_rows = 256;
    std::string reorder = "auto";
    int threads = 0;
};

/// Writes the problem (rank 0 only); returns the exit code. Throws tessel errors.
int run_generate(const GenerateArgs& args);

}  // namespace tessel::spdnn
