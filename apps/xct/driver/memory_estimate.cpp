// Memory estimate of a reconstruction and the search for what fits.
#include "apps/xct/driver/memory_estimate.hpp"

#include "core/app/byte_size.hpp"
#include "core/app/machine.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/kernels/spmm_kernels.hpp"

namespace tessel::xct {

double MemoryEstimate::total() const { return std::max(build_peak, matrices + vectors) + rank0 + process; }

MemoryEstimate estimate_memory(const MemoryPlan& p) {
    MemoryEstimate e;
    const double x = double(p.value_bytes);  // vectors
    const double v = p.stored_value_bytes ? double(p.stored_value_bytes) : x;  // the operator's values
    const double nnz_rank = double(p.nnz) / double(std::max(1, p.p_data));
    const double pixels = double(p.pixels) / double(p.p_data), rays = double(p.rays) / double(p.p_data);
    // The build's CSR (data ranks) holds values in the vectors' precision.
    const double csr_entry = double(sizeof(Index)) + x;
    const double csr = nnz_rank * csr_entry + (rays + pixels) * 8.0;  // one of A, Aᵀ as CSR
    const double padding = p.hilbert ? assumed_padding : assumed_padding_natural;
    const double map = (p.hilbert ? assumed_map : assumed_map_natural) * nnz_rank * double(sizeof(Index));
    const double tiled = nnz_rank * (1.0 + padding) * (2.0 + v) + map;  // one of A, Aᵀ as tiled ELL
    const double one = p.kernel == Kernel::csr ? nnz_rank * (double(sizeof(Index)) + v) + (rays + pixels) * 8.0 : tiled;
    e.matrices = 2 * one;
    if (p.p_data > 1) {
        // Sender-multiplies: CSR blocks exchanged and transposed before the local operators.
        e.build_peak = 2 * one + 2 * csr + double(p.pixels) * 16.0;
    } else if (p.kernel != Kernel::csr) {
        // The lean build: tiled A (its values traced straight into their stored precision,
        // half for mixed), then tiled Aᵀ made from it (its maps held twice meanwhile).
        e.build_peak = 2 * tiled + map;
        // --row-groups: A's and Aᵀ's groups are made on the host (two at once at worst) before
        // they go up: an index and G values per slot.
        const double g = double(p.row_groups);
        if (p.row_groups > 1) e.build_peak += 2 * nnz_rank / assumed_group_entries_per_slot * (2.0 + g * v);
    } else {
        e.build_peak = 2 * one + csr + double(p.pixels) * 8.0 * 2;
    }
    // Solver: b, r, q (rays) and x, p, s (pixels), K columns; the distributed SpMM adds
    // partial-result buffers of about the same size again.
    e.vectors = 3.0 * (rays + pixels) * double(p.k) * x;
    if (p.p_data > 1) e.vectors *= 2;
    const bool scatter = p.scatter_transpose && p.p_data == 1 && p.kernel != Kernel::csr;
    if (scatter) {  // A traced straight into its arrays, no Aᵀ; the kernel's sums per thread
        e.matrices = one;
        e.build_peak = tiled;
        const size_type columns = p.turned ? 2 * p.k : p.k;
        e.vectors += double(std::max(1, p.threads)) * double(p.pixels) * double(cpu::choose_register_factor(columns)) * x;
    }
    // The turned operator's 2K-column operands, kept between products: pixels x 2K, rays/2 x 2K.
    if (p.turned) e.vectors += (2.0 * double(p.pixels) + double(p.rays)) * double(p.k) * x;
    const double round = double(p.round_slices);
    const double held = p.keep_volume ? double(p.slices) : round;                     // finished slices
    e.rank0 = held * double(p.pixels) * 4.0                                           // volume
              + round * (double(p.rays) * (4.0 + x) + double(p.input_bytes_per_slice)) // inputs
              + round * (3.0 * double(p.pixels) + double(p.rays)) * x;                // gathered state
    e.process = process_bytes;
    e.items = {{"A (" + std::string(to_string(p.kernel)) + ", " + std::to_string(static_cast<size_type>(v)) + "-byte values)", one},
               {scatter ? "A^T (none: the scatter kernel on A's tiles)" : "A^T", scatter ? 0.0 : one},
               {"build peak", e.build_peak},
               {"solver vectors and buffers (" + std::to_string(p.k) + " slices)", e.vectors},
               {p.keep_volume ? "rank 0: volume, inputs of a round, gathered state"
                               : "rank 0: a round's slices, inputs and gathered state", e.rank0},
               {"process (libraries)", e.process}};
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
    auto fits = [&](int p) {
        plan.p_data = p;
        return estimate_memory(plan).total() <= limit;
    };
    // Doubling to the first count that fits, then the smallest one between (fewer ranks never
    // need less memory each).
    int hi = 1;
    while (hi <= max_ranks && !fits(hi)) hi *= 2;
    if (hi > max_ranks) return fits(max_ranks) ? max_ranks : 0;
    int lo = hi / 2;  // does not fit (or 0)
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        (fits(mid) ? hi : lo) = mid;
    }
    return hi;
}

double available_memory() { return available_memory_bytes(); }

std::string format_bytes(double bytes) { return app::format_bytes(bytes); }

double parse_bytes(const std::string& text) { return app::parse_bytes(text, "memory-limit"); }

}  // namespace tessel::xct
