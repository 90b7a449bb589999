// In-memory reconstruction and projection: the single-process path of reconstruct.cpp
// (ordering, local operator, batched solver; FBP without the operator) over arrays the caller owns.
#include "apps/xct/driver/api.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "apps/xct/cache/operator_cache.hpp"
#include "apps/xct/driver/memory_estimate.hpp"
#include "apps/xct/fbp/direct_backprojection.hpp"
#include "apps/xct/operator/system_matrix.hpp"
#include "apps/xct/operator/turned_projector.hpp"
#include "core/error.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "io/data_exchange.hpp"

namespace tessel::xct {

namespace {

std::string str(size_type v) { return std::to_string(v); }

Geometry geometry_of(size_type n, size_type channels, const std::vector<double>& theta) {
    Geometry g;
    g.n = n;
    g.num_rho = channels;
    g.theta = theta;
    g.validate();
    return g;
}

void check_sinograms(const SinogramArray& s) {
    if (s.slices < 1 || s.angles < 1 || s.channels < 1)
        TESSEL_INVALID_INPUT("sinograms", 0, "empty stack of " + str(s.slices) + " slices x " + str(s.angles) +
                                                 " angles x " + str(s.channels) + " channels");
    if (s.data == nullptr) TESSEL_INVALID_INPUT("sinograms", 0, "no data");
    if (static_cast<size_type>(s.theta.size()) != s.angles)
        TESSEL_INVALID_INPUT("theta", 0, str(static_cast<size_type>(s.theta.size())) + " angles for " + str(s.angles) +
                                             " projections");
}

// Slices solved together: the option, or as many as the memory estimate lets fit (as the CLI).
size_type choose_batch(const Geometry& g, const SinogramArray& s, const ArrayReconstructOptions& o, bool turned) {
    if (o.batch_slices < 0) TESSEL_INVALID_INPUT("batch_slices", 0, "negative count " + str(o.batch_slices));
    if (o.batch_slices > 0) return std::min(o.batch_slices, s.slices);
    MemoryPlan m;
    m.nnz = turned ? (estimate_nnz(g) + 1) / 2 : estimate_nnz(g);
    m.turned = turned;
    m.pixels = g.num_pixels();
    m.rays = g.num_rays();
    m.value_bytes = 4;
    m.stored_value_bytes = o.projector.half_values ? 2 : 4;
    m.kernel = o.projector.kernel;
    m.scatter_transpose = o.projector.scatter_transpose;
    m.threads = omp_get_max_threads();
    m.slices = s.slices;
    m.round_slices = s.slices;
    m.input_bytes_per_slice = g.num_rays() * 4;
    const double available = o.memory_limit > 0 ? o.memory_limit : available_memory();
    const double limit = available > 0 ? available : 1e300;
    const size_type fit = max_batch_slices(m, limit);
    if (fit < 1)
        TESSEL_THROW(OutOfMemoryBudget, "reconstruct: not even one slice of " + g.describe() +
                                            " fits in the memory limit of " + format_bytes(limit));
    return std::min(fit, s.slices);
}

// Slices [first, first + count) in natural order (slice, angle, channel), centre-shifted.
std::vector<float> natural_batch(const SinogramArray& s, double center, size_type first, size_type count) {
    std::vector<float> natural(static_cast<std::size_t>(count * s.angles * s.channels));
#pragma omp parallel for schedule(static)
    for (size_type j = 0; j < count; ++j)
        for (size_type a = 0; a < s.angles; ++a)
            std::copy_n(s.data + s.row(first + j, a), s.channels, natural.data() + (j * s.angles + a) * s.channels);
    io::shift_center(natural, count * s.angles, s.channels, center);
    return natural;
}

// m (rays x k, ordered rays) := the `count` slices of `natural`, zero columns beyond.
void to_ray_order(const std::vector<float>& natural, const Ordering& ordering, size_type count,
                  DenseMatrix<float>& m) {
    const size_type rays = m.rows(), k = m.cols();
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < rays; ++i) {
        const size_type ray = ordering.rays[i];
        for (size_type j = 0; j < k; ++j) m(i, j) = j < count ? natural[j * rays + ray] : 0.0f;
    }
}

// The geometry and centre of an array reconstruction, checked against the sinograms and the
// volume it fills.
std::pair<Geometry, double> array_geometry(const SinogramArray& s, const ArrayReconstructOptions& o,
                                           std::span<float> volume) {
    check_sinograms(s);
    if (o.size < 0) TESSEL_INVALID_INPUT("size", 0, "negative image size " + str(o.size));
    Geometry g = geometry_of(o.size > 0 ? o.size : s.channels, s.channels, s.theta);
    const double center = o.center.value_or(0.5 * double(s.channels));
    if (!(center >= 0.0 && center <= double(s.channels)))
        TESSEL_INVALID_INPUT("center", 0, "rotation centre " + std::to_string(center) + " outside the detector [0, " +
                                              str(s.channels) + "]");
    if (static_cast<size_type>(volume.size()) != s.slices * g.num_pixels())
        TESSEL_INVALID_INPUT("volume", 0, "holds " + str(static_cast<size_type>(volume.size())) + " values, expected " +
                                              str(s.slices) + " x " + str(g.n) + " x " + str(g.n));
    return {std::move(g), center};
}

// A of the scan (the half, applied turned, when `turned`); `ordering` gets the scan's order.
std::unique_ptr<Projector<float>> array_operator(const Geometry& g, const ArrayReconstructOptions& o, bool turned,
                                                 Ordering& ordering) {
    // The cache serves the tiled ELL operator, as in tessel-xct; its notes (a rebuilt file) go to stderr.
    auto make = [&o](const Geometry& geometry, const Ordering& order) {
        std::ostringstream quiet;
        return !o.operator_cache.empty() && o.projector.kernel == Kernel::tiled_ell
                   ? cached_local_projector<float>(o.operator_cache, geometry, order, o.projector, nullptr, quiet, false)
                   : make_local_projector<float>(geometry, order, o.projector);
    };
    auto make_order = [&o](const Geometry& geometry) { return make_ordering(geometry, o.order, o.tile); };
    if (turned) return make_turned_projector<float>(g, ordering, make_order, make);
    ordering = make_order(g);
    return make(g, ordering);
}

// The batched loop of reconstruct_array: A and Aᵀ built once, K slices per solve.
ArrayReconstructInfo solve_batches(const SinogramArray& s, const ArrayReconstructOptions& o,
                                   const SolverOptions& solver_options, std::span<float> volume) {
    const auto [g, center] = array_geometry(s, o, volume);
    const size_type pixels = g.num_pixels();
    require_backend(o.projector.backend, "backend");
    ArrayReconstructInfo info;
    info.n = g.n;
    std::string why;
    info.turned = turn_chosen(o.turn_symmetry, g, "turn_symmetry", why);
    info.batch_slices = choose_batch(g, s, o, info.turned);
    Ordering ordering;
    const auto op = array_operator(g, o, info.turned, ordering);
    Solver<float> solver(*op, solver_options);
    const size_type k = info.batch_slices;
    DenseMatrix<float> b(g.num_rays(), k);
    for (size_type first = 0; first < s.slices; first += k) {
        const size_type count = std::min(k, s.slices - first);
        to_ray_order(natural_batch(s, center, first, count), ordering, count, b);
        SolverState<float> state;
        solver.start(b, state);
        while (solver.running(state)) solver.step(b, state);
        solver.sync_image(state);
        float* out = volume.data() + first * pixels;
#pragma omp parallel for schedule(static)
        for (size_type i = 0; i < pixels; ++i) {
            const size_type pixel = ordering.pixels[i];
            for (size_type j = 0; j < count; ++j) out[j * pixels + pixel] = state.x(i, j);
        }
        for (size_type j = 0; j < count; ++j) {
            info.histories.push_back(state.history[j]);
            info.iterations = std::max(info.iterations, static_cast<int>(state.history[j].size()) - 1);
        }
    }
    return info;
}

}  // namespace

ArrayReconstructInfo reconstruct_array(const SinogramArray& s, const ArrayReconstructOptions& o,
                                       std::span<float> volume) {
    return solve_batches(s, o, o.solver, volume);
}

ArrayReconstructInfo fbp_array(const SinogramArray& s, const ArrayReconstructOptions& o, const FbpOptions& fbp,
                               std::span<float> volume) {
    const auto [g, center] = array_geometry(s, o, volume);
    fbp_frequency_response(2, fbp);  // a bad cut-off fails before any work
    require_backend(o.projector.backend, "backend");
    const size_type pixels = g.num_pixels();
    ArrayReconstructInfo info;
    info.n = g.n;
    // No operator: batches only bound the filtered copy and the image (16 slices: SIMD width).
    info.batch_slices = std::min<size_type>(s.slices, 16);
    const Ordering natural = make_ordering(g, DomainOrder::natural);
    const size_type k = info.batch_slices;
    DenseMatrix<float> filtered(g.num_rays(), k), x;
    for (size_type first = 0; first < s.slices; first += k) {
        const size_type count = std::min(k, s.slices - first);
        auto rows = natural_batch(s, center, first, count);
        fbp_filter_rows<float>(rows, count * s.angles, s.channels, s.theta, fbp);
        to_ray_order(rows, natural, count, filtered);
        backproject_direct(filtered, g, 0.5 * double(s.channels), x, o.projector.backend);
        float* out = volume.data() + first * pixels;
#pragma omp parallel for schedule(static)
        for (size_type i = 0; i < pixels; ++i)
            for (size_type j = 0; j < count; ++j) out[j * pixels + i] = x(i, j);
        info.histories.resize(info.histories.size() + count);  // no residual: FBP has no A·x
    }
    return info;
}

std::vector<float> reconstruct_array(const SinogramArray& s, const ArrayReconstructOptions& o) {
    check_sinograms(s);
    const size_type n = o.size > 0 ? o.size : s.channels;
    std::vector<float> volume(static_cast<std::size_t>(s.slices * n * n));
    reconstruct_array(s, o, volume);
    return volume;
}

std::vector<float> project_array(std::span<const float> images, size_type slices, size_type n,
                                 const std::vector<double>& theta, size_type channels) {
    if (slices < 1) TESSEL_INVALID_INPUT("images", 0, "no slices");
    const Geometry g = geometry_of(n, channels, theta);
    const size_type pixels = g.num_pixels(), rays = g.num_rays();
    if (static_cast<size_type>(images.size()) != slices * pixels)
        TESSEL_INVALID_INPUT("images", 0, "holds " + str(static_cast<size_type>(images.size())) + " values, expected " +
                                              str(slices) + " x " + str(n) + " x " + str(n));
    const Ordering ordering = make_ordering(g, DomainOrder::hilbert, 32);
    auto op = make_local_projector<float>(g, ordering, ProjectorOptions{});
    DenseMatrix<float> x(pixels, slices), y(rays, slices);
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < pixels; ++i)
        for (size_type j = 0; j < slices; ++j) x(i, j) = images[j * pixels + ordering.pixels[i]];
    op->forward(x, y);
    std::vector<float> sinograms(static_cast<std::size_t>(slices * rays));
#pragma omp parallel for schedule(static)
    for (size_type i = 0; i < rays; ++i)
        for (size_type j = 0; j < slices; ++j) sinograms[j * rays + ordering.rays[i]] = y(i, j);
    return sinograms;
}

}  // namespace tessel::xct
