// One main for the MPI programs: a failure on any rank ends the run with one clear line on
// stderr and a non-zero exit code; never a hang, a "terminate called", or a second message.
#pragma once

#include <mpi.h>

#include <exception>
#include <functional>
#include <string>
#include <type_traits>

#include "core/comm/mpi_types.hpp"

namespace tessel::app {

/// Thrown on a rank that knows another rank failed and printed the message: it leaves
/// quietly with `code`.
struct QuietExit {
    int code = 1;
};

/// The program name printed before every message ("tessel-xct"); set by run_mpi_app.
const std::string& program_name();

/// Set by all_ranks and on_root when every rank knows of the failure, so that the rank with
/// the message can finalize MPI and exit instead of killing the job.
bool& failure_shared();

/// Runs a program's body between MPI_Init_thread (FUNNELED; errors returned, not fatal) and
/// MPI_Finalize and returns its exit code. An exception escaping the body prints
/// "PROGRAM: message" once and returns 1 (std::bad_alloc: "out of memory"). With one rank,
/// or when the failure is shared (QuietExit on the others), MPI is finalized; otherwise the
/// other ranks may be waiting in a collective, so the job is ended: under Open MPI's mpiexec
/// by exiting without MPI_Finalize (mpiexec then ends the others; its own summary is
/// silenced by `mpiexec -q`), elsewhere by MPI_Abort.
int run_mpi_app(const char* program, int argc, char** argv, const std::function<int(int, char**)>& body);

namespace detail {
/// Lowest rank of `comm` whose `failed` is true, or -1. Collective.
int first_failed(MPI_Comm comm, bool failed);
/// 1 when rank 0 succeeded, broadcast. Collective.
bool root_succeeded(MPI_Comm comm, bool ok);
}  // namespace detail

/// Runs `f` on every rank of `comm`. If it throws anywhere, the lowest failing rank rethrows
/// (its message is printed) and the others throw QuietExit. Collective: for steps every rank
/// runs, such as reading options or deterministic generation.
template <typename F>
auto all_ranks(MPI_Comm comm, F&& f) -> decltype(f()) {
    using R = decltype(f());
    std::exception_ptr error;
    std::conditional_t<std::is_void_v<R>, int, R> value{};
    try {
        if constexpr (std::is_void_v<R>) f();
        else value = f();
    } catch (...) {
        error = std::current_exception();
    }
    const int first = detail::first_failed(comm, error != nullptr);
    if (first >= 0) {
        failure_shared() = true;
        if (comm::rank_of(comm) == first) std::rethrow_exception(error);
        throw QuietExit{1};
    }
    if constexpr (!std::is_void_v<R>) return value;
}

/// Runs `f` on rank 0 of `comm` only and broadcasts whether it threw: rank 0 rethrows, the
/// others throw QuietExit. Collective.
template <typename F>
void on_root(MPI_Comm comm, F&& f) {
    std::exception_ptr error;
    if (comm::rank_of(comm) == 0) {
        try {
            f();
        } catch (...) {
            error = std::current_exception();
        }
    }
    if (!detail::root_succeeded(comm, error == nullptr)) {
        failure_shared() = true;
        if (error) std::rethrow_exception(error);
        throw QuietExit{1};
    }
}

/// Runs `f` on rank 0 first, then (when it succeeded) on the other ranks: rank 0 builds what
/// the others then load (caches). Errors on rank 0 reach the others as QuietExit.
template <typename F>
auto root_first(MPI_Comm comm, F&& f) -> decltype(f()) {
    decltype(f()) value{};
    on_root(comm, [&] { value = f(); });
    if (comm::rank_of(comm) != 0) value = f();
    return value;
}

}  // namespace tessel::app
