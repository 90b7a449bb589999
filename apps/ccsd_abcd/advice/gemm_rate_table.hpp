// The tile GEMM rate of this machine by tile shape m x n x k (issue 17): measured once with
// the GEMM the executor runs (cpu: core's cpu::gemm on one BLAS thread, as each executor task
// does; cuda: cuBLAS through cuda::gemm on the cuda executor's four streams of one device),
// cached in a small JSON file keyed by the machine (and device), and interpolated between the
// measured shapes. With the executor's overheads, the cost of making B's values and (cuda) the
// copy rates between host and device, it is what the tiling advice (tiling_advice.hpp)
// predicts executor times from.
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"

namespace tessel::abcd {

/// 2: the first-touch cost of B and C (version 1 tables lack it).
inline constexpr int rate_table_version = 2;

struct GemmRateTable {
    std::string backend = "cpu";       ///< "cpu" or "cuda": which executor the table models
    std::string machine;               ///< the key: host, CPU model (or device), GEMM library, precision
    std::vector<size_type> sizes;      ///< measured sizes per dimension, ascending (>= 1)
    std::vector<double> rates;         ///< FLOP/s of one core, [m][n][k] over `sizes`
    double gemm_overhead_seconds = 0;  ///< per tile GEMM in the executor beyond the GEMM call
    double tile_overhead_seconds = 0;  ///< per tile of B and of C the executor makes (buffers, zeroing)
    double fill_seconds_per_value = 0; ///< computing one value of a B tile
    /// Writing one value to memory not touched before (page faults): B's and C's values each run.
    double first_touch_seconds_per_value = 0;
    double h2d_seconds_per_byte = 0;   ///< cuda: pinned host to device copies (0 on cpu)
    double d2h_seconds_per_byte = 0;   ///< cuda: device to pinned host copies (0 on cpu)
    int version = rate_table_version;  ///< older versions are measured again

    /// The rate of an m x n x k GEMM: trilinear in log2 of the sizes between measured shapes;
    /// above the largest size its rate, below the smallest one the time of a call at that size.
    double rate(size_type m, size_type n, size_type k) const;
    /// 2·m·n·k / rate(m, n, k): the modelled seconds of one call on one core (cuda: of one
    /// call among many issued to one device).
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
/// "host / cuda: device name / cuBLAS / double": the key of a device's table (device 0 of
/// the process). Throws NotCompiled without CUDA in the build, CudaError without a device.
std::string cuda_machine_key(bool double_precision);

/// Measures the table on one core: every shape of sizes³ for about `seconds_per_shape`
/// (best of three rounds, then the running maximum over smaller shapes), the fill cost from the tile-value function, and the executor's
/// overheads per GEMM and per tile from two runs of it on 8 x 8 tiles with this process's
/// threads (dense: many GEMMs per tile; diagonal: one).
GemmRateTable measure_gemm_rate_table(bool double_precision, const std::vector<size_type>& sizes,
                                      double seconds_per_shape = 0.004);

/// The cuda table of device 0: every shape of sizes³ issued round-robin to four streams (as the
/// cuda executor does) for about `seconds_per_shape` of wall time, best of three; the rates
/// include the launch cost, so small shapes are as slow as the host can issue them. The copy
/// rates from 64 MiB pinned copies each way, the fill cost of B's values on the host (per
/// core). Throws NotCompiled without CUDA in the build, CudaError without a device.
GemmRateTable measure_cuda_gemm_rate_table(bool double_precision, const std::vector<size_type>& sizes,
                                           double seconds_per_shape = 0.004);

/// The sizes measured by default: 1, 2, 4, ..., 1024.
std::vector<size_type> default_rate_table_sizes();
/// cuda: 1, 2, ..., 2048 (a device's cuBLAS still gains between 1024 and 2048, and the
/// synthetic problems' tiles reach 2048).
std::vector<size_type> default_cuda_rate_table_sizes();

/// Where this machine's table is cached: $TESSEL_CACHE_DIR, else $XDG_CACHE_HOME/tessel, else
/// $HOME/.cache/tessel, file "abcd-gemm-rates-<hash of the key>.json".
std::string rate_table_cache_path(const std::string& machine);

/// JSON text of a table and back (read_rate_table throws InvalidInput "path: ..." on a bad file).
std::string rate_table_json(const GemmRateTable& table);
GemmRateTable read_rate_table(const std::string& path);

/// The cached table of this machine (`cuda`: of its device 0), measured (and cached) when there
/// is none, when the cache is for another machine, of other sizes (an older version) or
/// unreadable, or when `recalibrate`. `note` says which.
GemmRateTable machine_rate_table(bool double_precision, bool recalibrate, std::string* note = nullptr,
                                 bool cuda = false);

}  // namespace tessel::abcd
