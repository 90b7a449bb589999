// `tessel-spdnn infer`: its options and the run, in named steps (infer_command.cpp).
#pragma once

#include <limits>
#include <string>

#include "core/types.hpp"

namespace tessel::spdnn {

struct InferArgs {
    std::string network, images, check, output, metrics, cache_dir, backend = "auto", kernel = "auto",
        stream_source = "host", reorder = "auto", max_rss;
    size_type neurons = 0, layers = 0, num_images = 0, batch_images = 0, block_rows = 256, reference_images = 0,
              row_groups = 1, row_group_layers = 0;
    double bias = std::numeric_limits<double>::quiet_NaN();
    int threads = 0, register_factor = 0, repeat = 1;
    bool no_cache = false, no_compaction = false, stream_weights = false, no_rebalance = false,
         verbose = false, quiet = false, reference = false;
    double rebalance_threshold = 1.25;
};

/// Runs the inference on MPI_COMM_WORLD; returns the exit code (1 when the check, the
/// reference or --max-rss fails). Throws tessel errors for bad input.
int run_infer(const InferArgs& args);

}  // namespace tessel::spdnn
