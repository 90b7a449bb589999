// TESSEL_MPI_CHECK: a failed MPI call becomes tessel::MpiError naming the call and MPI's message.
#pragma once

#include <mpi.h>

#include "core/error.hpp"

namespace tessel::comm {

/// Throws MpiError "call failed: <MPI_Error_string(code)>" located at file:line.
[[noreturn]] void throw_mpi_error(const char* file, int line, const char* call, int code);

/// Makes MPI calls on `comm` (and communicators derived from it later) return error codes
/// instead of aborting, so that TESSEL_MPI_CHECK can turn them into exceptions.
void return_error_codes(MPI_Comm comm);

}  // namespace tessel::comm

/// Runs an MPI call; throws tessel::MpiError (file:line, the call, MPI's message) unless it
/// returns MPI_SUCCESS.
#define TESSEL_MPI_CHECK(call)                                                       \
    do {                                                                             \
        const int tessel_mpi_rc_ = (call);                                           \
        if (tessel_mpi_rc_ != MPI_SUCCESS)                                           \
            ::tessel::comm::throw_mpi_error(__FILE__, __LINE__, #call, tessel_mpi_rc_); \
    } while (0)
