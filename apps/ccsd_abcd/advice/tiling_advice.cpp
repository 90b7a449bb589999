// The executor-time model of a tiling and the table of candidates.
#include "apps/ccsd_abcd/advice/tiling_advice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <utility>

#include "apps/ccsd_abcd/inspector/inspector.hpp"
#include "core/app/byte_size.hpp"
#include "core/error.hpp"

namespace tessel::abcd {

namespace {

// Tile sizes repeat: the time of each GEMM shape is interpolated once.
class GemmTimes {
public:
    explicit GemmTimes(const GemmRateTable& table) : table_(table) {}
    double operator()(size_type m, size_type n, size_type k) {
        const std::uint64_t key = (std::uint64_t(m) << 42) ^ (std::uint64_t(n) << 21) ^ std::uint64_t(k);
        auto it = seconds_.find(key);
        if (it == seconds_.end()) it = seconds_.emplace(key, table_.gemm_seconds(m, n, k)).first;
        return it->second;
    }

private:
    const GemmRateTable& table_;
    std::unordered_map<std::uint64_t, double> seconds_;
};

void count_tiles(const Problem& p, TilingPrediction& r, const std::string& label, size_type parameter) {
    r.label = label;
    r.parameter = parameter;
    r.tiles_m = p.m_tiling.count();
    r.tiles_k = p.k_tiling.count();
    r.tiles_n = p.n_tiling.count();
    r.a_tiles = p.a_shape.nnz();
    r.b_tiles = p.b_shape.nnz();
}

// A, B and C stored whole (element areas x value size): the scale of a candidate's memory.
double whole_bytes(const Problem& p, double c_area) {
    return (p.a_shape.area(p.m_tiling, p.k_tiling) + p.b_shape.area(p.k_tiling, p.n_tiling) + c_area) *
           double(value_bytes(p.precision));
}

// The bytes of chunk `ch` that go up: all of them, or with A kept on the device (`on_device`
// not null: the device's A tiles so far, updated) only those it does not have yet.
double chunk_upload_bytes(const Problem& p, const ChunkPlan& ch, std::vector<char>* on_device) {
    if (!on_device) return double(ch.bytes);
    double bytes = 0;
    for (size_type apos : ch.a_tiles)
        if (!std::exchange((*on_device)[static_cast<std::size_t>(apos)], char(1)))
            bytes += double(p.m_tiling.size(p.a_shape.row_of(apos)) * p.k_tiling.size(p.a_shape.col_idx()[apos]) *
                            value_bytes(p.precision));
    return bytes;
}

// One block on its device as the cuda executor runs it (cuda_executor.cpp): B made on the
// device when its values are the generated function (its time there is negligible against the
// GEMMs), else on the host by `threads` threads and copied up; then chunk by chunk the GEMMs
// while the next chunk's A tiles are copied up (the first chunk's copy is not hidden; with A
// kept on the device, `on_device`, only tiles the device has not had), then C copied back.
// Adds the block's GEMM, copy and fill seconds to r and returns its wall seconds.
double cuda_block_seconds(const Problem& p, const BlockPlan& b, const GemmRateTable& table, int threads,
                          GemmTimes& times, TilingPrediction& r, std::vector<char>* on_device) {
    const TileShape& as = p.a_shape;
    const TileShape& bs = p.b_shape;
    const bool b_on_device = dynamic_cast<const GeneratedTiles*>(p.values.get()) != nullptr;
    const double b_host_bytes = b_on_device ? 0.0 : double(b.b_bytes);
    const double fill = b_host_bytes / double(value_bytes(p.precision)) * table.fill_seconds_per_value / threads;
    double copies = b_host_bytes * table.h2d_seconds_per_byte + double(b.c_bytes) * table.d2h_seconds_per_byte;
    std::vector<double> up(b.chunks.size());
    for (std::size_t n = 0; n < b.chunks.size(); ++n) up[n] = chunk_upload_bytes(p, b.chunks[n], on_device);
    if (!b.chunks.empty()) copies += up.front() * table.h2d_seconds_per_byte;
    double gemms = 0, unhidden = 0;
    for (std::size_t n = 0; n < b.chunks.size(); ++n) {
        double chunk = 0;
        for (size_type apos : b.chunks[n].a_tiles) {
            const size_type i = as.row_of(apos), k = as.col_idx()[apos];
            // The block's B tiles of row k: b_tiles is sorted, so they are contiguous.
            auto lo = std::lower_bound(b.b_tiles.begin(), b.b_tiles.end(), bs.row_ptr()[k]);
            auto hi = std::lower_bound(b.b_tiles.begin(), b.b_tiles.end(), bs.row_ptr()[k + 1]);
            for (auto it = lo; it != hi; ++it)
                chunk += times(p.m_tiling.size(i), p.n_tiling.size(bs.col_idx()[*it]), p.k_tiling.size(k));
        }
        const double next_copy = n + 1 < b.chunks.size() ? up[n + 1] * table.h2d_seconds_per_byte : 0;
        gemms += chunk;
        unhidden += std::max(0.0, next_copy - chunk);
    }
    r.gemm_seconds += gemms;
    r.overhead_seconds += copies + unhidden;
    r.fill_seconds += fill;
    return fill + copies + gemms + unhidden;
}

}  // namespace

TilingPrediction predict_tiling_cuda(const Problem& p, const Plan& plan, const GemmRateTable& table, int host_threads,
                                     const std::string& label, size_type parameter) {
    if (host_threads < 1) TESSEL_INVALID_INPUT("--advise-tiles", 0, "host threads must be at least 1");
    TilingPrediction r;
    count_tiles(p, r, label, parameter);
    r.c_tiles = plan.product.c_shape.nnz();
    r.flops = plan.product.flops;
    r.gemms = plan.product.gemms;
    GemmTimes times(table);
    for (const auto& process : plan.processes) {
        std::vector<double> device_seconds;
        std::vector<std::vector<char>> on_device;  // per device: its A tiles so far (A kept there)
        for (const auto& b : process.blocks) {
            if (static_cast<std::size_t>(b.device) >= device_seconds.size()) {
                device_seconds.resize(b.device + 1, 0.0);
                on_device.resize(b.device + 1);
            }
            auto& seen = on_device[b.device];
            if (process.a_resident && seen.empty()) seen.assign(static_cast<std::size_t>(p.a_shape.nnz()), 0);
            device_seconds[b.device] +=
                cuda_block_seconds(p, b, table, host_threads, times, r, process.a_resident ? &seen : nullptr);
        }
        for (double s : device_seconds) r.predicted_seconds = std::max(r.predicted_seconds, s);
    }
    r.memory_bytes = whole_bytes(p, plan.product.c_shape.area(p.m_tiling, p.n_tiling));
    return r;
}

TilingPrediction predict_tiling(const Problem& p, const GemmRateTable& table, int workers, const std::string& label,
                                size_type parameter) {
    if (workers < 1) TESSEL_INVALID_INPUT("--advise-tiles", 0, "workers must be at least 1");
    TilingPrediction r;
    count_tiles(p, r, label, parameter);
    const TileShape& as = p.a_shape;
    const TileShape& bs = p.b_shape;
    GemmTimes gemm_seconds(table);
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
    r.memory_bytes = whole_bytes(p, c_area);
    return r;
}

std::size_t recommend_tiling(const std::vector<TilingPrediction>& c, double margin) {
    if (c.empty()) TESSEL_INVALID_INPUT("--advise-tiles", 0, "no candidate tiling");
    if (std::none_of(c.begin(), c.end(), [](const TilingPrediction& x) { return std::isfinite(x.predicted_seconds); }))
        TESSEL_INVALID_INPUT("--advise-tiles", 0, "no candidate tiling fits the memory budget");
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
    for (const auto& x : c)
        if (std::isfinite(x.predicted_seconds)) slowest = std::max(slowest, x.predicted_seconds);
    for (std::size_t i = 0; i < c.size(); ++i) {
        const auto& x = c[i];
        char tiles[64], shape[64], meas[32] = "";
        std::snprintf(tiles, sizeof tiles, "%lld/%lld/%lld", (long long)x.tiles_m, (long long)x.tiles_k, (long long)x.tiles_n);
        std::snprintf(shape, sizeof shape, "%lld/%lld/%lld", (long long)x.a_tiles, (long long)x.b_tiles, (long long)x.c_tiles);
        if (measured) std::snprintf(meas, sizeof meas, "  %10.4f", x.measured_seconds);
        std::snprintf(line, sizeof line, "%c %-12s %15s %21s %10.4f %9lld %8.4f %8.4f %8.4f %10.4f %10s%s\n",
                      i == recommended ? '*' : ' ', x.label.c_str(), tiles, shape, x.flops * 1e-9, (long long)x.gemms,
                      x.gemm_seconds, x.overhead_seconds, x.fill_seconds, x.predicted_seconds,
                      app::format_bytes(x.memory_bytes).c_str(), meas);
        out += line;
    }
    const auto& r = c[recommended];
    std::snprintf(line, sizeof line, "recommended: %s (predicted %.4f s, %.2fx faster than the slowest candidate)\n",
                  r.label.c_str(), r.predicted_seconds, r.predicted_seconds > 0 ? slowest / r.predicted_seconds : 1.0);
    out += line;
    return out;
}

}  // namespace tessel::abcd
