// MPI error codes turned into MpiError.
#include "core/comm/mpi_check.hpp"

#include <string>

namespace tessel::comm {

void throw_mpi_error(const char* file, int line, const char* call, int code) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
    throw MpiError(file, line,
                   std::string(call) + " failed: " +
                       (length > 0 ? std::string(text, length) : "MPI error " + std::to_string(code)));
}

void return_error_codes(MPI_Comm comm) {
    TESSEL_MPI_CHECK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
}

}  // namespace tessel::comm
