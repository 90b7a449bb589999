// STREAM triad measurement (best of several runs, all threads).
#include "bench/common/stream.hpp"

#include <omp.h>

#include <algorithm>
#include <limits>
#include <memory>

#include "core/aligned_allocator.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"

namespace tessel::bench {

nlohmann::json StreamTriad::json() const {
    return {{"kernel", "triad a[i] = b[i] + s*c[i], double"},
            {"elements_per_array", elements},
            {"bytes_per_array", elements * 8},
            {"threads", threads},
            {"runs", runs},
            {"best_seconds", best_seconds},
            {"gb_per_s", gb_per_s}};
}

StreamTriad measure_stream_triad(size_type elements, int runs) {
    if (elements < 1 || runs < 1)
        TESSEL_INVALID_INPUT("stream triad", 0, "elements and runs must be positive");
    AlignedAllocator<double> alloc;
    const auto n = static_cast<std::size_t>(elements);
    // Raw allocations, first touched in parallel so that pages land near the threads.
    double* a = alloc.allocate(n);
    double* b = alloc.allocate(n);
    double* c = alloc.allocate(n);
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < elements; ++i) {
        a[i] = 0.0;
        b[i] = 1.0;
        c[i] = 2.0;
    }
    const double scalar = 3.0;
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r < runs; ++r) {
        Timer timer;
#pragma omp parallel for schedule(static)
        for (size_type i = 0; i < elements; ++i) a[i] = b[i] + scalar * c[i];
        best = std::min(best, timer.seconds());
    }
    // Keep the result observable so the loops cannot be dropped.
    volatile double sink = a[elements / 2];
    (void)sink;
    alloc.deallocate(a, n);
    alloc.deallocate(b, n);
    alloc.deallocate(c, n);
    StreamTriad result;
    result.elements = elements;
    result.threads = omp_get_max_threads();
    result.runs = runs;
    result.best_seconds = best;
    result.gb_per_s = 3.0 * 8.0 * double(elements) / best / 1e9;
    return result;
}

}  // namespace tessel::bench
