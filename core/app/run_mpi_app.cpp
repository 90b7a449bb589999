// The MPI main wrapper: one line per failure, clean exit codes.
#include "core/app/run_mpi_app.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>

#include "core/cpu/isa.hpp"
#include "core/error.hpp"

namespace tessel::app {

namespace {

std::string& name_storage() {
    static std::string name = "tessel";
    return name;
}

/// Prints the line and ends this process with `code` (see run_mpi_app for why so).
int report_and_end(const std::string& message, int code) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const bool shared = size == 1 || failure_shared();
    // When every rank failed alike, rank 0's line is the one shown: the others wait a little,
    // and mpiexec has ended them by then.
    if (!shared && rank != 0) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::fprintf(stderr, "%s: %s\n", program_name().c_str(), message.c_str());
    std::fflush(stderr);
    std::fflush(stdout);
    if (shared) {
        MPI_Finalize();
        return code;
    }
    // Ranks may wait for this one in a collective. Open MPI's MPI_Abort adds a help text (and,
    // in Debian's 4.1, an ORTE_ERROR_LOG line); its mpiexec ends a job whose process exits
    // non-zero without finalizing just as surely, so exit; other launchers get MPI_Abort.
    if (std::getenv("OMPI_COMM_WORLD_SIZE")) std::_Exit(code);
    MPI_Abort(MPI_COMM_WORLD, code);
    return code;
}

}  // namespace

const std::string& program_name() { return name_storage(); }

bool& failure_shared() {
    static bool shared = false;
    return shared;
}

namespace detail {

int first_failed(MPI_Comm comm, bool failed) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    int first = failed ? comm::rank_of(comm) : size;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
    return first < size ? first : -1;
}

bool root_succeeded(MPI_Comm comm, bool ok) {
    int value = ok ? 1 : 0;
    MPI_Bcast(&value, 1, MPI_INT, 0, comm);
    return value == 1;
}

}  // namespace detail

namespace {

// Started without mpiexec, Open MPI 4 forks a daemon for the one process (about 0.08 s) and
// probes the network for its fastest transport (UCX: about 0.2 s of MPI_Init). One process
// talks only to itself: an isolated singleton (tessel spawns no processes) with the ob1 point-to-point
// layer starts in 0.02 s. Isolated singletons all take job family 0, so side by side they
// shared one session folder (/tmp/ompi.<host>.<uid>/jf.0/1/0), which the first to end removed
// under the others ("mkdir ... jf.0: No such file or directory", orte_init failed: seen in the
// simulator's ctest): each gets its own top session folder, removed when it ends. A launcher's
// environment and the user's own settings are left alone.
void prefer_quick_singleton() {
    if (std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_RANK")) return;
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
    setenv("OMPI_MCA_pml", "ob1", 0);
    const char* tmp = std::getenv("TMPDIR");
    const std::string top = std::string(tmp && *tmp ? tmp : "/tmp") + "/ompi.tessel." + std::to_string(getpid());
    setenv("OMPI_MCA_orte_top_session_dir", top.c_str(), 0);
}

}  // namespace

int run_mpi_app(const char* program, int argc, char** argv, const std::function<int(int, char**)>& body) {
    name_storage() = program;
    prefer_quick_singleton();
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int code = 0;
    try {
        cpu::active_isa();  // a bad TESSEL_CPU_ISA is refused before any work
        code = body(argc, argv);
    } catch (const QuietExit& quiet) {
        code = quiet.code;
    } catch (const Error& e) {
        return report_and_end(e.message(), 1);
    } catch (const std::bad_alloc&) {
        return report_and_end("out of memory (a size beyond what this node holds)", 1);
    } catch (const std::exception& e) {
        return report_and_end(e.what(), 1);
    }
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Finalize();
    return code;
}

}  // namespace tessel::app
