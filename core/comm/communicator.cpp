// Owned communicators and rank/size/node helpers.
#include "core/comm/mpi_check.hpp"
#include "core/comm/mpi_types.hpp"

namespace tessel::comm {

int rank_of(MPI_Comm comm) {
    int rank = 0;
    TESSEL_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    return rank;
}

int size_of(MPI_Comm comm) {
    int size = 0;
    TESSEL_MPI_CHECK(MPI_Comm_size(comm, &size));
    return size;
}

int ranks_on_node(MPI_Comm comm, int* node_rank) {
    MPI_Comm node = MPI_COMM_NULL;
    TESSEL_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    const Communicator owned(node);
    if (node_rank) *node_rank = rank_of(node);
    return size_of(node);
}

double max_over_ranks(double x, MPI_Comm comm) {
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, comm));
    return x;
}

Communicator::~Communicator() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && comm_ != MPI_COMM_NULL && comm_ != MPI_COMM_WORLD && comm_ != MPI_COMM_SELF)
        MPI_Comm_free(&comm_);
}

Communicator& Communicator::operator=(Communicator&& other) noexcept {
    if (this != &other) {
        Communicator dropped(comm_);
        comm_ = other.comm_;
        other.comm_ = MPI_COMM_NULL;
    }
    return *this;
}

Communicator Communicator::split(MPI_Comm parent, int color, int key) {
    MPI_Comm comm = MPI_COMM_NULL;
    TESSEL_MPI_CHECK(MPI_Comm_split(parent, color, key, &comm));
    return Communicator(comm);
}

Communicator Communicator::dup(MPI_Comm parent) {
    MPI_Comm comm = MPI_COMM_NULL;
    TESSEL_MPI_CHECK(MPI_Comm_dup(parent, &comm));
    return Communicator(comm);
}

}  // namespace tessel::comm
