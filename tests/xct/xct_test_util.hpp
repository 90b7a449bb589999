// Helpers of the tessel-xct tests: MPI for the driver, temporary folders, small operators.
#pragma once

#include <mpi.h>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "tests/common/temp_dir.hpp"

namespace tessel::xct::test {

/// MPI initialised once (a singleton run) and finalised at exit, for tests of the driver.
inline void ensure_mpi() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) return;
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    std::atexit([] {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized) MPI_Finalize();
    });
}

using tessel::test::TempDir;

/// message() of the tessel::Error that f throws, or what happened instead.
template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.message();
    } catch (const std::exception& e) {
        return std::string("other exception: ") + e.what();
    }
    return "no exception";
}

}  // namespace tessel::xct::test
