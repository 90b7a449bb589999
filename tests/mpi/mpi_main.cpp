// main() of the MPI test executables: MPI_Init_thread, Catch2 on every rank (rank 0 with the
// console reporter, the others compact), failures summed over the ranks, MPI_Finalize.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <mpi.h>

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    // Errors come back as codes so that TESSEL_MPI_CHECK turns them into exceptions.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    Catch::Session session;
    int status = session.applyCommandLine(argc, argv);
    if (status == 0) {
        if (rank != 0) session.configData().reporterName = "compact";
        status = session.run();
    }
    int failures = status;
    MPI_Allreduce(&status, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
