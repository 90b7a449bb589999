// docs/api.md, the xct driver: tessel-xct's whole reconstruction (inputs, memory plan, ranks,
// outputs) called from a program; here the 2-D phantom on every rank of MPI_COMM_WORLD.
#include <mpi.h>

#include <cstdio>
#include <iostream>

#include "apps/xct/driver/reconstruct.hpp"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int status = 0;
    try {
        // [xct-driver]
        tessel::xct::ReconstructOptions o;
        o.input.kind = tessel::xct::InputKind::phantom;
        o.input.phantom_size = 64;                       // 64 x 64, 96 angles
        o.solver.algorithm = tessel::xct::Algorithm::sirt;
        o.solver.iterations = 40;
        o.quiet = true;                                   // no progress lines on std::cout
        const auto result = tessel::xct::reconstruct(o, MPI_COMM_WORLD, std::cout);  // collective
        // rank 0 holds result.volume (slices x n x n) and result.psnr (the phantom's)
        // [xct-driver]
        if (!result.psnr.empty()) {
            std::printf("SIRT, %d iterations: PSNR %.2f dB\n", result.iterations, result.psnr[0]);
            status = result.psnr[0] > 15 ? 0 : 1;
        }
    } catch (const tessel::Error& e) {
        std::fprintf(stderr, "xct_driver: %s\n", e.message().c_str());
        status = 1;
    }
    MPI_Finalize();
    return status;
}
