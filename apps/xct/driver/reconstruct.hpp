// One reconstruction from inputs to outputs (the data flow of docs/architecture.md): read and
// preprocess, order the domains, build A and Aᵀ, iterate K slices at a time over batch and data
// ranks, checkpoint, write the volume, previews and metrics.
#pragma once

#include <mpi.h>

#include <ostream>

#include "apps/xct/driver/reconstruct_options.hpp"

namespace tessel::xct {

ReconstructResult reconstruct(const ReconstructOptions& options, MPI_Comm world, std::ostream& log);

}  // namespace tessel::xct
