// The machine hierarchy seen by the ranks of a communicator: levels (socket, node, rack, ...,
// global) and, per level, which group every rank belongs to. Detected or stated by a spec.
#pragma once

#include <mpi.h>

#include <string>
#include <string_view>
#include <vector>

namespace tessel::comm {

/// Levels are numbered from the innermost (0, for example "socket") to the outermost, which is
/// always "global" (every rank in one group). Groups are nested: two ranks in one group at
/// level l are in one group at every level above l. A message between ranks a != b travels at
/// level_of(a, b), the lowest level whose group holds both; "inter-node" traffic is the
/// traffic at levels above "node".
class Topology {
public:
    /// One rank, one level "global".
    Topology() : Topology(flat(1)) {}

    /// `ranks` ranks in one group: the single level "global".
    static Topology flat(int ranks);

    /// From a spec "name=count,name=count,..." written outermost first, for example
    /// "node=2,socket=2" (2 nodes, 2 sockets per node, the ranks of a socket are its devices) or
    /// "rack=2,node=2,socket=2". Ranks are dealt out in contiguous, near-equal groups: with 8
    /// ranks and "node=2,socket=2", ranks 0-3 are node 0 and ranks 0-1 socket 0. "" or "flat"
    /// gives flat(ranks). Throws InvalidInput on a bad spec (syntax, count < 1, repeated or
    /// reserved name "global") or when a group would be empty (fewer ranks than groups).
    static Topology from_spec(std::string_view spec, int ranks);

    /// Reads the hierarchy of the ranks of `comm` (collective): "node" from
    /// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), "socket" from the hwloc package that holds
    /// the process binding (unbound processes share one socket group per node).
    /// Throws MpiError.
    static Topology detect(MPI_Comm comm);

    /// The sub-hierarchy of `ranks` (rank i of the result is ranks[i] here): same levels.
    /// Throws InvalidInput on a rank out of range.
    Topology subset(const std::vector<int>& ranks) const;

    /// Explicit levels, innermost first; the last must be named "global" with all ranks in
    /// group 0. Group ids are renumbered 0.. in order of first appearance.
    /// Throws InvalidInput when the levels are not nested or sizes disagree.
    Topology(std::vector<std::string> names, std::vector<std::vector<int>> groups);

    int ranks() const { return static_cast<int>(groups_.back().size()); }
    int num_levels() const { return static_cast<int>(names_.size()); }
    const std::string& level_name(int level) const { return names_.at(level); }
    const std::vector<std::string>& level_names() const { return names_; }
    /// Level index of `name`, or -1 when there is no such level.
    int level_index(std::string_view name) const;
    int group(int level, int rank) const { return groups_[level][rank]; }
    int num_groups(int level) const;
    /// Lowest level whose group holds both a and b; -1 when a == b.
    int level_of(int a, int b) const;
    /// Lowest level whose groups hold all of `members` (-1 for one member or none).
    int level_spanned(const std::vector<int>& members) const;
    /// Ranks of the group of `rank` at `level`, ascending.
    std::vector<int> members(int level, int rank) const;
    /// Position of `rank` among members(level, rank).
    int index_in_group(int level, int rank) const;
    /// Levels above "node" (all but level 0 when there is no "node" level): the inter-node ones.
    bool is_inter_node(int level) const;
    /// "8 ranks: global 1 > node 2 > socket 4" (group counts, outermost first).
    std::string describe() const;

private:
    std::vector<std::string> names_;
    std::vector<std::vector<int>> groups_;  // [level][rank] -> group id
};

/// "auto" (or empty) -> Topology::detect(comm); anything else -> from_spec(spec, size of comm).
Topology make_topology(std::string_view spec, MPI_Comm comm);

}  // namespace tessel::comm
