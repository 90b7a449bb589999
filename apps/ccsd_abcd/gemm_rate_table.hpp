// The tile GEMM rate of this machine by tile shape m x n x k (issue 17): measured once with
// the GEMM the executor runs (core's cpu::gemm on one BLAS thread, as each executor task does),
// cached in a small JSON file keyed by the machine, and interpolated between the measured
// shapes. With the executor's per-GEMM overhead and the cost of making B's values, it is what
// the tiling advice (tiling_advice.hpp) predicts executor times from.
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"

namespace tessel::abcd {

/// 2: the first-touch cost of B and C (version 1 tables lack it).
inline constexpr int rate_table_version = 2;

struct GemmRateTable {
    std::string machine;               ///< the key: host, CPU model, BLAS library, precision
    std::vector<size_type> sizes;      ///< measured sizes per dimension, ascending (>= 1)
    std::vector<double> rates;         ///< FLOP/s of one core, [m][n][k] over `sizes`
    double gemm_overhead_seconds = 0;  ///< per tile GEMM in the executor beyond the GEMM call
    double tile_overhead_seconds = 0;  ///< per tile of B and of C the executor makes (buffers, zeroing)
    double fill_seconds_per_value = 0; ///< computing one value of a B tile
    /// Writing one value to memory not touched before (page faults): B's and C's values each run.
    double first_touch_seconds_per_value = 0;
    int version = rate_table_version;  ///< older versions are measured again

    /// The rate of an m x n x k GEMM: trilinear in log2 of the sizes between measured shapes;
    /// above the largest size its rate, below the smallest one the time of a call at that size.
    double rate(size_type m, size_type n, size_type k) const;
    /// 2·m·n·k / rate(m, n, k): the modelled seconds of one call on one core.
    double gemm_seconds(size_type m, size_type n, size_type k) const;
    double& at(std::size_t im, std::size_t in, std::size_t ik) {
        return rates[(im * sizes.size() + in) * sizes.size() + ik];
    }
    double at(std::size_t im, std::size_t in, std::size_t ik) const {
        return rates[(im * sizes.size() + in) * sizes.size() + ik];
    }
    /// Throws InvalidInput naming `what` when the sizes are not ascending and positive or the
    /// rates are not sizes³ positive finite numbers.
    void validate(const std::string& what) const;
};

/// "host / CPU model / BLAS / double": the key of this machine's table.
std::string machine_key(bool double_precision);

/// Measures the table on one core: every shape of sizes³ for about `seconds_per_shape`
/// (best of three rounds, then the running maximum over smaller shapes), the fill cost from the tile-value function, and the executor's
/// overheads per GEMM and per tile from two runs of it on 8 x 8 tiles with this process's
/// threads (dense: many GEMMs per tile; diagonal: one).
GemmRateTable measure_gemm_rate_table(bool double_precision, const std::vector<size_type>& sizes,
                                      double seconds_per_shape = 0.004);

/// The sizes measured by default: 1, 2, 4, ..., 1024.
std::vector<size_type> default_rate_table_sizes();

/// Where this machine's table is cached: $TESSEL_CACHE_DIR, else $XDG_CACHE_HOME/tessel, else
/// $HOME/.cache/tessel, file "abcd-gemm-rates-<hash of the key>.json".
std::string rate_table_cache_path(const std::string& machine);

/// JSON text of a table and back (read_rate_table throws InvalidInput "path: ..." on a bad file).
std::string rate_table_json(const GemmRateTable& table);
GemmRateTable read_rate_table(const std::string& path);

/// The cached table of this machine, measured (and cached) when there is none, when the cache
/// is for another machine, of other sizes (an older version) or unreadable, or when `recalibrate`. `note` says which.
GemmRateTable machine_rate_table(bool double_precision, bool recalibrate, std::string* note = nullptr);

}  // namespace tessel::abcd
