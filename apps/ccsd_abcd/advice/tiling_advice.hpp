// Tile-size advice (issue 17): the executor time of a candidate tiling predicted from its exact
// tile GEMMs (the shapes of the block-sparse product, as the inspector counts them), the GEMM
// rate of each tile shape on this machine (gemm_rate_table.hpp), the executor's overhead per
// GEMM, the cost of making B's values and of first touching B and C (cpu), or of copying A, B
// and C between host and device (cuda); the candidates side by side and the fastest one.
#pragma once

#include <string>
#include <vector>

#include "apps/ccsd_abcd/advice/gemm_rate_table.hpp"
#include "apps/ccsd_abcd/inspector/inspector.hpp"
#include "apps/ccsd_abcd/problem/problem.hpp"

namespace tessel::abcd {

/// One candidate tiling and what the model says about it.
struct TilingPrediction {
    std::string label;          ///< "cluster 8", "merge x2"
    size_type parameter = 0;    ///< the cluster size or merge factor it was made with
    size_type tiles_m = 0, tiles_k = 0, tiles_n = 0;
    size_type a_tiles = 0, b_tiles = 0, c_tiles = 0;
    double flops = 0;           ///< Σ 2 m n k over the tile GEMMs (= the inspector's count)
    size_type gemms = 0;
    double gemm_seconds = 0;    ///< Σ 2 m n k / rate(m, n, k), core-seconds (cuda: device-seconds)
    /// cpu: GEMMs and tiles of B and C x their overheads, core-seconds; cuda: the copies
    /// between host and device not hidden behind GEMMs, device-seconds.
    double overhead_seconds = 0;
    double fill_seconds = 0;    ///< B's values made on demand (cpu: B and C first touched too)
    /// cpu: (gemm + overhead + fill) / workers; cuda: the busiest device's sum of its blocks;
    /// infinite when the tiling does not fit the memory budget.
    double predicted_seconds = 0;
    double memory_bytes = 0;    ///< A, B and C stored whole (element areas x value size)
    double measured_seconds = -1;  ///< executor time when measured (< 0: not run)
};

/// The model on one problem: every tile GEMM A(i,k)·B(k,c) timed from the table, the work
/// spread evenly over `workers` cores (ranks x threads). Throws InvalidInput for workers < 1.
TilingPrediction predict_tiling(const Problem& problem, const GemmRateTable& table, int workers,
                                const std::string& label = "", size_type parameter = 0);

/// The cuda executor's model on one problem planned as `plan` (the inspector's blocks and
/// chunks of each process and device): per block, B's values made on the device (generated
/// values; free in the model) or by `host_threads` threads and copied up (stored ones), per chunk its GEMMs (each shape's time from a cuda table) with the next chunk's
/// copy hidden behind them, C copied back; the prediction is the busiest device's time.
/// Throws InvalidInput for host_threads < 1.
TilingPrediction predict_tiling_cuda(const Problem& problem, const Plan& plan, const GemmRateTable& table,
                                     int host_threads, const std::string& label = "", size_type parameter = 0);

/// The recommended candidate: the fastest predicted (the first of equals); with a `margin` (a
/// fraction), of those predicted within it of the fastest, the one with the fewest tile GEMMs.
/// The app uses margin 0 (the validation runs, docs/BENCHMARKS.md, did not support a margin).
/// Throws InvalidInput when there is none (or none fits: every prediction infinite).
std::size_t recommend_tiling(const std::vector<TilingPrediction>& candidates, double margin = 0.0);

/// The table of candidates (one line each, the recommendation marked) and a last line
/// "recommended: cluster 8 (predicted 0.12 s, 1.8x faster than the slowest candidate)".
std::string advice_table(const std::vector<TilingPrediction>& candidates, std::size_t recommended);

}  // namespace tessel::abcd
