// The predicted times of both transpose forms and the pick, with its reason in words.
#include "apps/xct/operator/transpose_choice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "apps/xct/operator/system_matrix.hpp"

namespace tessel::xct {

namespace {

// The reference run (vm-epyc, 2 threads, f2beb5d, memory warm, docs/BENCHMARKS.md "xct: first
// image"): 512² x 750, built in 2.47 s for scatter (the trace) and 7.1 s stored; one K = 1
// iteration 0.089 s stored and 0.144 s scatter.
constexpr int reference_threads = 2;
constexpr double reference_trace = 2.47, reference_stored_build = 7.1;

// Counted once: estimate_nnz bounds every ray of the geometry (about 10 ms).
double reference_nnz() {
    static const double nnz = double(estimate_nnz(Geometry{512, 512, uniform_angles(750)}));
    return nnz;
}

// One iteration on the reference operator at 1, 2, 4, 8, 16 and 32 columns per product, as shares
// of the K = 1 iteration (tessel-bench-xct --k 1,2,4,8,16,32 on the 2-vCPU EPYC VM, that day
// without AVX-512, 2 threads, best of 5, mean of two rounds each form: docs/BENCHMARKS.md "xct:
// the transpose choice"), times the reference's K = 1 seconds.
IterationCurve reference_curve(double k1_seconds, const std::array<double, 6>& shares) {
    IterationCurve c;
    for (std::size_t i = 0; i < shares.size(); ++i) c.at[i] = k1_seconds * shares[i] / reference_nnz();
    return c;
}

}  // namespace

double IterationCurve::seconds_per_nonzero(size_type columns) const {
    const double c = double(std::max<size_type>(columns, 1));
    if (c >= 32) return at[5] + (at[5] - at[4]) * (c - 32) / 16;
    std::size_t i = 0;
    while (double(2 << i) <= c) ++i;  // columns 2^i .. 2^(i+1)
    const double lo = double(1 << i);
    return at[i] + (at[i + 1] - at[i]) * (c - lo) / lo;
}

TransposeRates cpu_transpose_rates(int threads) {
    const double nnz = reference_nnz();
    const double spread = double(reference_threads) / double(std::max(threads, 1));
    TransposeRates r;
    r.trace = reference_trace / nnz * spread;
    r.transpose = (reference_stored_build - reference_trace) / nnz * spread;
    r.stored = reference_curve(0.089 * spread, {1.0, 1.144, 1.209, 1.530, 1.856, 3.28});
    r.scatter = reference_curve(0.144 * spread, {1.0, 1.251, 1.176, 1.373, 1.803, 2.82});
    // Zeroed and read again: 8 bytes a pixel, column and thread, at about 20 GB/s.
    constexpr double sums_bytes_per_second = 20e9;
    r.scatter_sums = 8.0 * double(std::max(threads - reference_threads, 0)) / sums_bytes_per_second;
    return r;
}

TransposeRates device_transpose_rates(int host_threads) {
    TransposeRates r = cpu_transpose_rates(reference_threads);
    const double spread = double(reference_threads) / double(std::max(host_threads, 1));
    r.trace *= spread;
    // On one rank the host makes only Aᵀ's layout and the device its slots
    // (SpmmOperator::transposed_on_device, a few passes over A on the card): the layout's two
    // passes were 17.5 % of the samples of the 512² stored-transpose run, the slot fill 22.4 %
    // (perf, vm-xeon, 2 threads), so the host part is 0.44 of the transpose.
    r.transpose *= spread * 0.44;
    // Per 16-column pass, whatever its columns: the device's products are bound by A's bytes.
    const double half_nnz = 117507144.0;  // the turned half operator of that run
    const auto per_pass = [&](double seconds) {
        IterationCurve c;
        c.at = {seconds, seconds, seconds, seconds, seconds, 2 * seconds};
        for (double& x : c.at) x /= half_nnz;
        return c;
    };
    r.stored = per_pass(4.2e-3);
    r.scatter = per_pass(11.35e-3);
    r.scatter_sums = 0;
    return r;
}

namespace {

struct Predicted {
    double stored_iteration = 0, scatter_iteration = 0;  // seconds of one iteration
};

Predicted iteration_seconds(const TransposeWork& w, const TransposeRates& r) {
    const double n = double(w.nnz);
    const size_type columns = std::max<size_type>(w.columns, 1);
    return {n * r.stored.seconds_per_nonzero(columns),
            n * r.scatter.seconds_per_nonzero(columns) + r.scatter_sums * double(w.pixels) * double(columns)};
}

std::string payback(const TransposeWork& w, const TransposeRates& r, const Predicted& p) {
    char text[96];
    const double gain = p.scatter_iteration - p.stored_iteration;
    if (gain <= 0) return "the stored A^T iterates no faster here";
    std::snprintf(text, sizeof(text), "the stored A^T pays back after about %.0f iterations",
                  std::ceil(double(w.nnz) * r.transpose / gain));
    return text;
}

}  // namespace

TransposeChoice choose_transpose(const TransposeWork& w, bool stored_fits, bool scatter_fits,
                                 const CachedForms& cached, const TransposeRates& r) {
    const Predicted p = iteration_seconds(w, r);
    const double n = double(w.nnz), iterations = double(w.iterations);
    TransposeChoice c;
    c.stored_seconds = (cached.stored ? 0 : n * (r.trace + r.transpose)) + iterations * p.stored_iteration;
    c.scatter_seconds = (cached.scatter ? 0 : n * r.trace) + iterations * p.scatter_iteration;
    if (!stored_fits && !scatter_fits) {
        c.why = "A + A^T split over data ranks (A alone does not fit one rank either)";
        return c;
    }
    if (!stored_fits) {
        c.scatter = true;
        c.why = "A^T by the scatter kernel on A (A + A^T would need data ranks)";
        return c;
    }
    c.scatter = scatter_fits && c.scatter_seconds < c.stored_seconds;
    char line[320];
    if (cached.folder && !cached.stored && !cached.scatter) {
        c.scatter = false;
        std::snprintf(line, sizeof(line),
                      "A^T stored: built once for the --operator-cache folder; a later run loads it and iterates "
                      "in a predicted %.1f s, against %.1f s scatter (this run: %.1f s stored against %.1f s scatter)",
                      iterations * p.stored_iteration, iterations * p.scatter_iteration, c.stored_seconds,
                      c.scatter_seconds);
    } else if (cached.stored || cached.scatter) {
        std::snprintf(line, sizeof(line),
                      "%s: predicted %.1f s scatter%s against %.1f s stored%s (build where not cached + %d "
                      "iterations of %lld column%s a product)",
                      c.scatter ? "A^T by the scatter kernel on A" : "A^T stored", c.scatter_seconds,
                      cached.scatter ? " (cached)" : "", c.stored_seconds, cached.stored ? " (cached)" : "",
                      w.iterations, static_cast<long long>(w.columns), w.columns == 1 ? "" : "s");
    } else {
        std::snprintf(line, sizeof(line),
                      "%s: predicted %.1f s scatter against %.1f s stored (build + %d iterations of %lld column%s a "
                      "product; %s)",
                      c.scatter ? "A^T by the scatter kernel on A" : "A^T stored", c.scatter_seconds,
                      c.stored_seconds, w.iterations, static_cast<long long>(w.columns), w.columns == 1 ? "" : "s",
                      payback(w, r, p).c_str());
    }
    c.why = line;
    return c;
}

}  // namespace tessel::xct
