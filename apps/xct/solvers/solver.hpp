// Iterative solvers of A·x = b for K slices at once (the K columns): CGLS and SIRT, with fp64
// scalars, per-slice stopping, residual histories and a state that can be checkpointed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "apps/xct/operator/projector.hpp"
#include "apps/xct/solvers/column_space.hpp"
#include "core/dense.hpp"

namespace tessel::xct {

enum class Algorithm { cgls, sirt };
std::string_view to_string(Algorithm algorithm);
/// "cgls" or "sirt"; throws InvalidInput otherwise.
Algorithm parse_algorithm(std::string_view name);

struct SolverOptions {
    Algorithm algorithm = Algorithm::cgls;
    /// Iterations per batch of slices.
    int iterations = 50;
    /// A slice stops when its relative residual ‖b - A·x‖/‖b‖ drops below tol (0: never).
    double tol = 0.0;
    /// SIRT: clamp x to x >= 0 after every update.
    bool nonneg = false;
};

/// Sums a vector of doubles over the ranks that share the columns (the data ranks); the
/// identity on one rank.
using Reducer = std::function<void(std::vector<double>&)>;

/// Everything an interrupted solve needs to continue (this rank's rows).
template <typename ValueType>
struct SolverState {
    int iteration = 0;
    DenseMatrix<ValueType> x;  // pixels x K: the images
    DenseMatrix<ValueType> r;  // rays x K: b - A·x
    DenseMatrix<ValueType> p;  // pixels x K: CGLS search direction (empty for SIRT)
    std::vector<double> gamma;  // CGLS: ‖Aᵀr‖² per column
    std::vector<double> bnorm;  // ‖b‖ per column
    std::vector<std::uint8_t> active;  // 1 while the column iterates
    /// history[k][i]: relative residual of column k after i iterations (history[k][0] = 1, or
    /// 0 for an all-zero sinogram). A column that stopped repeats its last value.
    std::vector<std::vector<double>> history;
};

/// CGLS (one projection and one backprojection per iteration, residual updated in place):
///   start: x = 0, r = b, s = Aᵀr, p = s, γ = ‖s‖²;
///   step:  q = A·p, α = γ/‖q‖², x += α·p, r -= α·q, s = Aᵀr, γ' = ‖s‖², p = s + (γ'/γ)·p.
/// SIRT: x += C·Aᵀ(R·(b - A·x)) with R = 1/(row sums of A), C = 1/(column sums), optional
/// clamp to x >= 0; one backprojection and one projection per iteration.
/// Every column (slice) is independent: its own scalars and its own stopping test. Both are
/// written once over a ColumnSpace (column_space.hpp): on the host, or, when the operator is on
/// a device, with every vector and scalar there and one read of 16 bytes per column and
/// iteration (the residual and the active flag).
template <typename ValueType>
class Solver {
public:
    Solver(Projector<ValueType>& op, const SolverOptions& options, Reducer sum = {});
    ~Solver();

    /// A fresh state for the sinograms b (rays x K).
    void start(const DenseMatrix<ValueType>& b, SolverState<ValueType>& state);
    /// A state that starts from the image x0 (pixels x K, e.g. a filtered backprojection):
    /// r = b - A·x0, history[k][0] = ‖r‖/‖b‖. Throws DimensionMismatch.
    void start_from(const DenseMatrix<ValueType>& b, const DenseMatrix<ValueType>& x0, SolverState<ValueType>& state);
    /// Continues a state filled elsewhere (a checkpoint's x, r, p, γ, ‖b‖ and active flags).
    void resume(const DenseMatrix<ValueType>& b, SolverState<ValueType>& state);
    /// One iteration of the active columns. Throws DimensionMismatch.
    void step(const DenseMatrix<ValueType>& b, SolverState<ValueType>& state);
    /// Brings x, r, p and γ of the state up to date (on a device they stay there between steps):
    /// call before reading them (output, checkpoint).
    void sync(SolverState<ValueType>& state);
    /// Brings x alone up to date (a round's image, for output; r, p and γ are left as they are).
    void sync_image(SolverState<ValueType>& state);
    /// True while some column of this rank iterates and iterations remain.
    bool running(const SolverState<ValueType>& state) const;
    const SolverOptions& options() const { return options_; }
    /// True when the vectors live on the device.
    bool on_device() const { return on_device_; }

private:
    void reduce(column::Slot first, int slots);
    void begin(const DenseMatrix<ValueType>& b, const DenseMatrix<ValueType>* x0, SolverState<ValueType>& state);
    void cgls_step();
    void sirt_step();
    void sirt_weights(size_type k);
    void report(SolverState<ValueType>& state);

    Projector<ValueType>& op_;
    SolverOptions options_;
    Reducer sum_;
    bool on_device_ = false;
    bool weights_ready_ = false;
    std::unique_ptr<ColumnSpace<ValueType>> space_;
};

}  // namespace tessel::xct
