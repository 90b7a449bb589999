// The library entry points of xct for callers that hold their data in memory (the Python
// module, C++ users): reconstruct sinograms given as an array, project images. One process,
// no MPI calls; the same operator, ordering, solver and centre shift as tessel-xct.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "apps/xct/fbp/fbp_filter.hpp"
#include "apps/xct/operator/ordering.hpp"
#include "apps/xct/operator/projector.hpp"
#include "apps/xct/operator/turn_symmetry.hpp"
#include "apps/xct/solvers/solver.hpp"

namespace tessel::xct {

/// Axis order of a sinogram stack in memory (channels always contiguous).
enum class SinogramLayout {
    slice_angle_channel,  // MemXCT raw files and tessel-xct (slices, angles, channels)
    angle_slice_channel   // TomoPy's tomo array (angles, slices, channels)
};

/// A stack of sinograms (line integrals, already normalised and -log'ed) over borrowed memory.
struct SinogramArray {
    const float* data = nullptr;
    size_type slices = 0, angles = 0, channels = 0;
    SinogramLayout layout = SinogramLayout::slice_angle_channel;
    std::vector<double> theta;  // radians, one per angle

    /// Index of (slice, angle, channel 0) in data.
    size_type row(size_type slice, size_type angle) const {
        return layout == SinogramLayout::slice_angle_channel ? (slice * angles + angle) * channels
                                                             : (angle * slices + slice) * channels;
    }
};

/// Options of reconstruct_array; the defaults are tessel-xct's.
struct ArrayReconstructOptions {
    SolverOptions solver;           // algorithm, iterations, tol, nonneg
    std::optional<double> center;   // rotation centre in channels (default channels/2)
    size_type size = 0;             // image size N (0: the channel count)
    DomainOrder order = DomainOrder::hilbert;
    size_type tile = 32;
    ProjectorOptions projector;     // kernel, tiles, backend
    size_type batch_slices = 0;     // slices solved together (0: as many as fit in memory)
    double memory_limit = 0;        // bytes (0: the node's available memory)
    std::string operator_cache;     // folder of A and Aᵀ reused across calls (tessel-xct --operator-cache; "": none)
    // A of half the angles applied turned (tessel-xct --turn-symmetry): auto when they pair up.
    TurnSymmetry turn_symmetry = TurnSymmetry::automatic;
};

/// What reconstruct_array did besides the images.
struct ArrayReconstructInfo {
    size_type n = 0;
    size_type batch_slices = 0;
    int iterations = 0;  // the most any slice ran
    bool turned = false;  // the operator of half the angles, applied turned
    /// history[s][i]: relative residual of slice s after i iterations.
    std::vector<std::vector<double>> histories;
};

/// Reconstructs every slice of `sinograms` into `volume` (slices x N x N, row-major, index
/// iy·N + ix as tessel-xct writes it). Throws InvalidInput naming the argument ("theta",
/// "center", "volume", ...), OutOfMemoryBudget, NotCompiled (cuda backend without CUDA).
ArrayReconstructInfo reconstruct_array(const SinogramArray& sinograms, const ArrayReconstructOptions& options,
                                       std::span<float> volume);

/// The same, returning the volume.
std::vector<float> reconstruct_array(const SinogramArray& sinograms, const ArrayReconstructOptions& options = {});

/// Filtered backprojection of every slice, as tessel-xct --solver fbp: the centre-shifted rows
/// filtered (fbp_filter_rows with `fbp`), then backprojected directly (backproject_direct, no
/// operator is built); options.solver, order and projector are not used. info.histories[s] is
/// empty (a residual would need A·x). Throws as reconstruct_array, InvalidInput on a bad
/// filter cut-off.
ArrayReconstructInfo fbp_array(const SinogramArray& sinograms, const ArrayReconstructOptions& options,
                               const FbpOptions& fbp, std::span<float> volume);

/// Line integrals of `images` (slices x n x n, row-major) along the rays of `theta` over
/// `channels` channels: (slices, angles, channels), as tessel-xct computes the phantom's
/// sinograms. Throws InvalidInput.
std::vector<float> project_array(std::span<const float> images, size_type slices, size_type n,
                                 const std::vector<double>& theta, size_type channels);

}  // namespace tessel::xct
