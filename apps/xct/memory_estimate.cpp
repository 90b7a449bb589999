// Memory estimate of a reconstruction and the search for what fits.
#include "apps/xct/memory_estimate.hpp"

#include "core/app/byte_size.hpp"
#include "core/app/machine.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace tessel::xct {

double MemoryEstimate::total() const { return std::max(build_peak, matrices + vectors) + rank0; }

MemoryEstimate estimate_memory(const MemoryPlan& p) {
    MemoryEstimate e;
    const double v = double(p.value_bytes), nnz_rank = double(p.nnz) / double(std::max(1, p.p_data));
    const double pixels = double(p.pixels) / double(p.p_data), rays = double(p.rays) / double(p.p_data);
    const double csr_entry = double(sizeof(Index)) + v;
    const double csr = nnz_rank * csr_entry + (rays + pixels) * 8.0;  // one of A, Aᵀ as CSR
    double one;  // one of A, Aᵀ as stored for the iterations
    if (p.p_data > 1) {
        // Sender-multiplies: CSR blocks; the build also holds the exchange buffers.
        one = nnz_rank * csr_entry + (rays + pixels) * 8.0;
        e.matrices = 2 * one;
        e.build_peak = 2 * one + 2 * nnz_rank * csr_entry + double(p.pixels) * 16.0;
    } else if (p.kernel != Kernel::csr) {
        const double stored = p.stored_value_bytes ? double(p.stored_value_bytes) : v;
        one = nnz_rank * (1.0 + assumed_padding) * (2.0 + stored) + nnz_rank * assumed_map * double(sizeof(Index));
        e.matrices = 2 * one;
        // Tiled A next to CSR A and CSR Aᵀ (the transpose), then tiled A, CSR Aᵀ and tiled Aᵀ.
        e.build_peak = std::max(one + 2 * csr, 2 * one + csr);
    } else {
        one = csr;
        e.matrices = 2 * csr;
        e.build_peak = 2 * csr + double(p.pixels) * 8.0 * 2;
    }
    // Solver: b, r, q (rays) and x, p, s (pixels), K columns; the distributed SpMM adds
    // partial-result buffers of about the same size again.
    e.vectors = 3.0 * (rays + pixels) * double(p.k) * v;
    if (p.p_data > 1) e.vectors *= 2;
    const double round = double(p.round_slices);
    e.rank0 = double(p.slices) * double(p.pixels) * 4.0                               // volume
              + round * (double(p.rays) * (4.0 + v) + double(p.input_bytes_per_slice)) // inputs
              + round * (3.0 * double(p.pixels) + double(p.rays)) * v;                // gathered state
    e.items = {{"A (" + std::string(p.p_data > 1 ? "csr" : to_string(p.kernel)) + ")", one},
               {"A^T", one},
               {"build peak", e.build_peak},
               {"solver vectors and buffers (" + std::to_string(p.k) + " slices)", e.vectors},
               {"rank 0: volume, inputs of a round, gathered state", e.rank0}};
    return e;
}

size_type max_batch_slices(MemoryPlan plan, double limit) {
    plan.k = 1;
    if (estimate_memory(plan).total() > limit) return 0;
    size_type lo = 1, hi = std::max<size_type>(1, plan.slices);
    plan.k = hi;
    if (estimate_memory(plan).total() <= limit) return hi;
    while (hi - lo > 1) {
        const size_type mid = (lo + hi) / 2;
        plan.k = mid;
        (estimate_memory(plan).total() <= limit ? lo : hi) = mid;
    }
    return lo;
}

int min_data_ranks(MemoryPlan plan, double limit, int max_ranks) {
    plan.k = 1;
    for (int p = 1; p <= max_ranks; p *= 2) {
        plan.p_data = p;
        if (estimate_memory(plan).total() <= limit) return p;
    }
    return 0;
}

double available_memory() { return available_memory_bytes(); }

std::string format_bytes(double bytes) { return app::format_bytes(bytes); }

double parse_bytes(const std::string& text) { return app::parse_bytes(text, "memory-limit"); }

}  // namespace tessel::xct
