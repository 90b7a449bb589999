// Interpolating the tile GEMM rate table between its measured shapes, and checking a table.
#include "apps/ccsd_abcd/advice/gemm_rate_table.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace tessel::abcd {

namespace {

// Position of x between the measured sizes: index of the lower one and the weight of the
// upper one, in log2 (clamped at both ends).
std::pair<std::size_t, double> locate(const std::vector<size_type>& sizes, size_type x) {
    if (x <= sizes.front() || sizes.size() == 1) return {0, 0.0};
    if (x >= sizes.back()) return {sizes.size() - 2, 1.0};
    const auto hi = static_cast<std::size_t>(std::upper_bound(sizes.begin(), sizes.end(), x) - sizes.begin());
    const double l0 = std::log2(double(sizes[hi - 1])), l1 = std::log2(double(sizes[hi]));
    return {hi - 1, (std::log2(double(x)) - l0) / (l1 - l0)};
}

}  // namespace

double GemmRateTable::rate(size_type m, size_type n, size_type k) const {
    const auto [im, wm] = locate(sizes, m);
    const auto [in, wn] = locate(sizes, n);
    const auto [ik, wk] = locate(sizes, k);
    const std::size_t last = sizes.size() - 1;
    double log_rate = 0;
    for (int dm = 0; dm < 2; ++dm)
        for (int dn = 0; dn < 2; ++dn)
            for (int dk = 0; dk < 2; ++dk) {
                const double w = (dm ? wm : 1 - wm) * (dn ? wn : 1 - wn) * (dk ? wk : 1 - wk);
                if (w == 0) continue;
                log_rate += w * std::log(at(std::min(im + dm, last), std::min(in + dn, last), std::min(ik + dk, last)));
            }
    // Below the smallest measured size a call costs what one of that size costs (its time is
    // the call's fixed cost), so the rate falls with the size.
    const double smallest = double(sizes.front());
    double below = 1;
    for (size_type x : {m, n, k})
        if (double(x) < smallest) below *= double(x) / smallest;
    return std::exp(log_rate) * below;
}

double GemmRateTable::gemm_seconds(size_type m, size_type n, size_type k) const {
    return 2.0 * double(m) * double(n) * double(k) / rate(m, n, k);
}

void GemmRateTable::validate(const std::string& what) const {
    if (sizes.empty()) TESSEL_INVALID_INPUT(what, 0, "the rate table has no sizes");
    for (std::size_t s = 0; s < sizes.size(); ++s)
        if (sizes[s] < 1 || (s > 0 && sizes[s] <= sizes[s - 1]))
            TESSEL_INVALID_INPUT(what, 0, "the rate table's sizes must be positive and ascending");
    if (rates.size() != sizes.size() * sizes.size() * sizes.size())
        TESSEL_INVALID_INPUT(what, 0, "the rate table has " + std::to_string(rates.size()) + " rates, its sizes need " +
                                          std::to_string(sizes.size() * sizes.size() * sizes.size()));
    for (double r : rates)
        if (!(std::isfinite(r) && r > 0)) TESSEL_INVALID_INPUT(what, 0, "the rate table holds a rate that is not positive");
    if (backend != "cpu" && backend != "cuda")
        TESSEL_INVALID_INPUT(what, 0, "the rate table's backend is \"" + backend + "\", not cpu or cuda");
    for (double x : {gemm_overhead_seconds, tile_overhead_seconds, fill_seconds_per_value, first_touch_seconds_per_value,
                     h2d_seconds_per_byte, d2h_seconds_per_byte})
        if (!(std::isfinite(x) && x >= 0))
            TESSEL_INVALID_INPUT(what, 0, "the rate table's overheads must be finite and not negative");
}

// From 1: molecular tiles of a few orbitals (1-7 functions per tile at small cluster sizes)
// are common, and their GEMMs run far below the 8 x 8 x 8 rate.
std::vector<size_type> default_rate_table_sizes() { return {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}; }
std::vector<size_type> default_cuda_rate_table_sizes() { return {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048}; }

}  // namespace tessel::abcd
