// Iterative solvers of A·x = b for K slices at once (the K columns): CGLS and SIRT, with fp64
// scalars, per-slice stopping, residual histories and a state that can be checkpointed.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "apps/xct/projector.hpp"
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
/// Every column (slice) is independent: its own scalars and its own stopping test.
template <typename ValueType>
class Solver {
public:
    Solver(Projector<ValueType>& op, const SolverOptions& options, Reducer sum = {});

    /// A fresh state for the sinograms b (rays x K).
    void start(const DenseMatrix<ValueType>& b, SolverState<ValueType>& state);
    /// A state that starts from the image x0 (pixels x K, e.g. a filtered backprojection):
    /// r = b - A·x0, history[k][0] = ‖r‖/‖b‖. Throws DimensionMismatch.
    void start_from(const DenseMatrix<ValueType>& b, const DenseMatrix<ValueType>& x0, SolverState<ValueType>& state);
    /// One iteration of the active columns. Throws DimensionMismatch.
    void step(const DenseMatrix<ValueType>& b, SolverState<ValueType>& state);
    /// True while some column of this rank iterates and iterations remain.
    bool running(const SolverState<ValueType>& state) const;
    const SolverOptions& options() const { return options_; }

private:
    void reduce(std::vector<double>& values) const {
        if (sum_) sum_(values);
    }
    void begin(const DenseMatrix<ValueType>& b, const DenseMatrix<ValueType>* x0, SolverState<ValueType>& state);
    void sirt_weights(size_type k);
    void record(SolverState<ValueType>& state, const std::vector<double>& rr) const;

    Projector<ValueType>& op_;
    SolverOptions options_;
    Reducer sum_;
    DenseMatrix<ValueType> q_, s_;                       // work: rays x K, pixels x K
    std::vector<ValueType> row_weight_, col_weight_;     // SIRT R and C
};

}  // namespace tessel::xct
