// The predicted times of both transpose forms and the pick, with its reason in words.
#include "apps/xct/operator/transpose_choice.hpp"

#include <algorithm>
#include <cstdio>

#include "apps/xct/operator/system_matrix.hpp"

namespace tessel::xct {

TransposeRates reference_transpose_rates() {
    const Geometry reference{512, 512, uniform_angles(750)};
    const double nnz = double(estimate_nnz(reference));
    return {2.47 / nnz, (7.1 - 2.47) / nnz, 0.089 / nnz, 0.144 / nnz};
}

TransposeRates device_transpose_rates(int host_threads) {
    TransposeRates r = reference_transpose_rates();
    const double spread = 2.0 / double(std::max(host_threads, 1));
    r.trace *= spread;
    // On one rank the host makes only Aᵀ's layout and the device its slots
    // (SpmmOperator::transposed_on_device, a few passes over A on the card): the layout's two
    // passes were 17.5 % of the samples of the 512² stored-transpose run, the slot fill 22.4 %
    // (perf, vm-xeon, 2 threads), so the host part is 0.44 of the transpose.
    r.transpose *= spread * 0.44;
    const double half_nnz = 117507144.0;  // the turned half operator of that run
    r.iteration_stored = 4.2e-3 / half_nnz;
    r.iteration_scatter = 11.35e-3 / half_nnz;
    return r;
}

TransposeChoice choose_transpose(size_type nnz, int iterations, size_type slices, bool stored_fits, bool scatter_fits,
                                 const CachedForms& cached, const TransposeRates& r) {
    const double passes = double(iterations) * double((std::max<size_type>(slices, 1) + 15) / 16);
    const double n = double(nnz);
    TransposeChoice c;
    c.stored_seconds = n * ((cached.stored ? 0 : r.trace + r.transpose) + passes * r.iteration_stored);
    c.scatter_seconds = n * ((cached.scatter ? 0 : r.trace) + passes * r.iteration_scatter);
    char line[256];
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
    if (cached.folder && !cached.stored && !cached.scatter) {
        c.scatter = false;
        std::snprintf(line, sizeof(line),
                      "A^T stored: built once for the --operator-cache folder; a later run loads it and iterates "
                      "in a predicted %.1f s, against %.1f s scatter (this run: %.1f s stored against %.1f s scatter)",
                      n * passes * r.iteration_stored, n * passes * r.iteration_scatter, c.stored_seconds,
                      c.scatter_seconds);
    } else if (cached.stored || cached.scatter) {
        std::snprintf(line, sizeof(line),
                      "%s: predicted %.1f s scatter%s against %.1f s stored%s (build where not cached + %.0f "
                      "iteration passes)",
                      c.scatter ? "A^T by the scatter kernel on A" : "A^T stored", c.scatter_seconds,
                      cached.scatter ? " (cached)" : "", c.stored_seconds, cached.stored ? " (cached)" : "", passes);
    } else {
        std::snprintf(line, sizeof(line),
                      "%s: predicted %.1f s scatter against %.1f s stored (build + %.0f iteration passes; the "
                      "stored A^T pays back after about %.0f passes)",
                      c.scatter ? "A^T by the scatter kernel on A" : "A^T stored", c.scatter_seconds,
                      c.stored_seconds, passes, r.transpose / (r.iteration_scatter - r.iteration_stored));
    }
    c.why = line;
    return c;
}

}  // namespace tessel::xct
