// The MPI datatype of a C++ value or index type, and small helpers on communicators.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "core/types.hpp"

namespace tessel::comm {

/// MPI_FLOAT, MPI_DOUBLE, MPI_INT32_T or MPI_INT64_T for T.
template <typename T>
MPI_Datatype mpi_datatype() {
    if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
    else if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
    else if constexpr (std::is_same_v<T, std::int32_t>) return MPI_INT32_T;
    else if constexpr (std::is_same_v<T, std::int64_t>) return MPI_INT64_T;
    else static_assert(sizeof(T) == 0, "no MPI datatype for this type");
}

/// An element count as the int MPI takes; throws InvalidInput when it does not fit
/// (messages above 2^31 elements must be split by the caller).
inline int mpi_count(size_type count) {
    if (count < 0 || count > std::numeric_limits<int>::max())
        TESSEL_INVALID_INPUT("mpi message", 0,
                             "count " + std::to_string(count) + " does not fit an MPI int");
    return static_cast<int>(count);
}

/// Rank of the calling process in `comm`.
int rank_of(MPI_Comm comm);
/// Number of processes in `comm`.
int size_of(MPI_Comm comm);
/// Number of processes of `comm` on this node (they share its memory), from
/// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED); `node_rank`, when given, gets this process's
/// place among them. Collective.
int ranks_on_node(MPI_Comm comm, int* node_rank = nullptr);
/// The largest `x` over the ranks of `comm`. Collective.
double max_over_ranks(double x, MPI_Comm comm);

/// An owned communicator, freed on destruction (MPI_COMM_NULL and world are never freed).
class Communicator {
public:
    Communicator() = default;
    explicit Communicator(MPI_Comm comm) : comm_(comm) {}
    ~Communicator();
    Communicator(const Communicator&) = delete;
    Communicator& operator=(const Communicator&) = delete;
    Communicator(Communicator&& other) noexcept : comm_(other.comm_) { other.comm_ = MPI_COMM_NULL; }
    Communicator& operator=(Communicator&& other) noexcept;

    MPI_Comm get() const { return comm_; }
    operator MPI_Comm() const { return comm_; }

    /// MPI_Comm_split(parent, color, key), owned.
    static Communicator split(MPI_Comm parent, int color, int key);
    /// MPI_Comm_dup(parent), owned.
    static Communicator dup(MPI_Comm parent);

private:
    MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace tessel::comm
