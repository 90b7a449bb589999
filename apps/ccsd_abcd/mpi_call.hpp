// ABCD_MPI: a failed MPI call of the app becomes tessel::MpiError naming the call.
#pragma once

#include <mpi.h>

#include <string>

#include "core/error.hpp"

namespace tessel::abcd::detail {

[[noreturn]] inline void throw_mpi(const char* file, int line, const char* call, int code) {
    char text[MPI_MAX_ERROR_STRING] = {0};
    int len = 0;
    MPI_Error_string(code, text, &len);
    throw MpiError(file, line, std::string(call) + " failed: " + text);
}

}  // namespace tessel::abcd::detail

/// Runs an MPI call; throws tessel::MpiError unless it returns MPI_SUCCESS (the communicator
/// must return errors, MPI_ERRORS_RETURN, for the check to see them).
#define ABCD_MPI(call)                                                                   \
    do {                                                                                 \
        const int abcd_mpi_rc_ = (call);                                                 \
        if (abcd_mpi_rc_ != MPI_SUCCESS)                                                 \
            ::tessel::abcd::detail::throw_mpi(__FILE__, __LINE__, #call, abcd_mpi_rc_);  \
    } while (0)
