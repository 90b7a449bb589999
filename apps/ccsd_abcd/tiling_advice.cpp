// The executor-time model of a tiling and the table of candidates.
#include "apps/ccsd_abcd/tiling_advice.hpp"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "apps/ccsd_abcd/inspector.hpp"
#include "core/error.hpp"

namespace tessel::abcd {

TilingPrediction predict_tiling(const Problem& p, const GemmRateTable& table, int workers, const std::string& label,
                                size_type parameter) {
    if (workers < 1) TESSEL_INVALID_INPUT("--advise-tiles", 0, "workers must be at least 1");
    TilingPrediction r;
    r.label = label;
    r.parameter = parameter;
    r.tiles_m = p.m_tiling.count();
    r.tiles_k = p.k_tiling.count();
    r.tiles_n = p.n_tiling.count();
    r.a_tiles = p.a_shape.nnz();
    r.b_tiles = p.b_shape.nnz();
    const TileShape& as = p.a_shape;
    const TileShape& bs = p.b_shape;
    // Tile sizes repeat: the rate of each shape is interpolated once.
    std::unordered_map<std::uint64_t, double> seconds_of;
    auto gemm_seconds = [&](size_type m, size_type n, size_type k) {
        const std::uint64_t key = (std::uint64_t(m) << 42) ^ (std::uint64_t(n) << 21) ^ std::uint64_t(k);
        auto it = seconds_of.find(key);
        if (it == seconds_of.end()) it = seconds_of.emplace(key, table.gemm_seconds(m, n, k)).first;
        return it->second;
    };
    std::vector<char> c_seen(static_cast<std::size_t>(p.n_tiling.count()), 0);
    double c_area = 0;
    for (size_type i = 0; i < as.rows(); ++i) {
        const size_type m = p.m_tiling.size(i);
        std::fill(c_seen.begin(), c_seen.end(), 0);
        for (size_type e = as.row_ptr()[i]; e < as.row_ptr()[i + 1]; ++e) {
            const size_type k = as.col_idx()[e], kk = p.k_tiling.size(k);
            for (size_type f = bs.row_ptr()[k]; f < bs.row_ptr()[k + 1]; ++f) {
                const size_type c = bs.col_idx()[f], n = p.n_tiling.size(c);
                r.flops += 2.0 * double(m) * double(n) * double(kk);
                r.gemm_seconds += gemm_seconds(m, n, kk);
                ++r.gemms;
                if (!c_seen[c]) {
                    c_seen[c] = 1;
                    ++r.c_tiles;
                    c_area += double(m) * double(n);
                }
            }
        }
    }
    const double b_area = bs.area(p.k_tiling, p.n_tiling);
    r.overhead_seconds = double(r.gemms) * table.gemm_overhead_seconds +
                         double(r.b_tiles + r.c_tiles) * table.tile_overhead_seconds;
    // Every run makes B and C in memory it has not touched yet (one block per process; later
    // blocks would reuse the first one's memory).
    r.fill_seconds = b_area * table.fill_seconds_per_value + (b_area + c_area) * table.first_touch_seconds_per_value;
    r.predicted_seconds = (r.gemm_seconds + r.overhead_seconds + r.fill_seconds) / double(workers);
    r.memory_bytes = (as.area(p.m_tiling, p.k_tiling) + b_area + c_area) * double(value_bytes(p.precision));
    return r;
}

std::size_t recommend_tiling(const std::vector<TilingPrediction>& c, double margin) {
    if (c.empty()) TESSEL_INVALID_INPUT("--advise-tiles", 0, "no candidate tiling");
    std::size_t fastest = 0;
    for (std::size_t x = 1; x < c.size(); ++x)
        if (c[x].predicted_seconds < c[fastest].predicted_seconds) fastest = x;
    // Within a margin the model cannot tell candidates apart; fewer, larger GEMMs are then the
    // choice that depends least on the small-GEMM rates.
    std::size_t pick = fastest;
    for (std::size_t x = 0; x < c.size(); ++x)
        if (c[x].predicted_seconds <= c[fastest].predicted_seconds * (1 + margin) && c[x].gemms < c[pick].gemms) pick = x;
    return pick;
}

std::string advice_table(const std::vector<TilingPrediction>& c, std::size_t recommended) {
    const bool measured = std::any_of(c.begin(), c.end(), [](const TilingPrediction& x) { return x.measured_seconds >= 0; });
    std::string out;
    char line[320];
    std::snprintf(line, sizeof line, "  %-12s %15s %21s %10s %9s %8s %8s %8s %10s %10s%s\n", "candidate", "tiles M/K/N",
                  "tiles A/B/C", "GFLOP", "GEMMs", "GEMM s", "ovh s", "fill s", "predict s", "memory",
                  measured ? "  measured s" : "");
    out += line;
    double slowest = 0;
    for (const auto& x : c) slowest = std::max(slowest, x.predicted_seconds);
    for (std::size_t i = 0; i < c.size(); ++i) {
        const auto& x = c[i];
        char tiles[64], shape[64], meas[32] = "";
        std::snprintf(tiles, sizeof tiles, "%lld/%lld/%lld", (long long)x.tiles_m, (long long)x.tiles_k, (long long)x.tiles_n);
        std::snprintf(shape, sizeof shape, "%lld/%lld/%lld", (long long)x.a_tiles, (long long)x.b_tiles, (long long)x.c_tiles);
        if (measured) std::snprintf(meas, sizeof meas, "  %10.4f", x.measured_seconds);
        std::snprintf(line, sizeof line, "%c %-12s %15s %21s %10.4f %9lld %8.4f %8.4f %8.4f %10.4f %10s%s\n",
                      i == recommended ? '*' : ' ', x.label.c_str(), tiles, shape, x.flops * 1e-9, (long long)x.gemms,
                      x.gemm_seconds, x.overhead_seconds, x.fill_seconds, x.predicted_seconds,
                      format_bytes(x.memory_bytes).c_str(), meas);
        out += line;
    }
    const auto& r = c[recommended];
    std::snprintf(line, sizeof line, "recommended: %s (predicted %.4f s, %.2fx faster than the slowest candidate)\n",
                  r.label.c_str(), r.predicted_seconds, r.predicted_seconds > 0 ? slowest / r.predicted_seconds : 1.0);
    out += line;
    return out;
}

}  // namespace tessel::abcd
