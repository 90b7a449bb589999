// Topology from a spec, from hwloc + MPI_Comm_split_type, and its queries.
#include "core/comm/topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "core/comm/mpi_check.hpp"
#include "core/comm/mpi_types.hpp"
#include "core/error.hpp"

namespace tessel::comm {

namespace {

// Renumbers ids 0.. in order of first appearance so that equal partitions compare equal.
std::vector<int> renumber(const std::vector<int>& ids) {
    std::map<int, int> seen;
    std::vector<int> out(ids.size());
    for (std::size_t r = 0; r < ids.size(); ++r) {
        auto it = seen.try_emplace(ids[r], static_cast<int>(seen.size())).first;
        out[r] = it->second;
    }
    return out;
}

}  // namespace

Topology::Topology(std::vector<std::string> names, std::vector<std::vector<int>> groups)
    : names_(std::move(names)), groups_(std::move(groups)) {
    if (names_.empty() || names_.size() != groups_.size())
        TESSEL_INVALID_INPUT("topology", 0, "level names and group tables disagree");
    if (names_.back() != "global")
        TESSEL_INVALID_INPUT("topology", 0, "the outermost level must be \"global\"");
    const std::size_t n = groups_.back().size();
    for (auto& g : groups_) {
        if (g.size() != n) TESSEL_INVALID_INPUT("topology", 0, "levels cover different rank counts");
        g = renumber(g);
    }
    for (std::size_t r = 0; r < n; ++r)
        if (groups_.back()[r] != 0)
            TESSEL_INVALID_INPUT("topology", 0, "the global level must hold every rank");
    // Nesting: the group at level l determines the group at level l + 1.
    for (std::size_t l = 0; l + 1 < groups_.size(); ++l) {
        std::map<int, int> parent;
        for (std::size_t r = 0; r < n; ++r) {
            auto [it, fresh] = parent.try_emplace(groups_[l][r], groups_[l + 1][r]);
            if (!fresh && it->second != groups_[l + 1][r])
                TESSEL_INVALID_INPUT("topology", 0,
                                     "level " + names_[l] + " is not nested in " + names_[l + 1]);
        }
    }
}

Topology Topology::flat(int ranks) {
    if (ranks < 1) TESSEL_INVALID_INPUT("topology", 0, "needs at least one rank");
    return Topology({"global"}, {std::vector<int>(ranks, 0)});
}

Topology Topology::from_spec(std::string_view spec, int ranks) {
    if (ranks < 1) TESSEL_INVALID_INPUT("topology", 0, "needs at least one rank");
    if (spec.empty() || spec == "flat") return flat(ranks);
    const std::string text(spec);
    std::vector<std::pair<std::string, int>> levels;  // outermost first
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            TESSEL_INVALID_INPUT("--topology " + text, 0,
                                 "expected name=count, got \"" + item + "\"");
        const std::string name = item.substr(0, eq);
        int count = 0;
        try {
            std::size_t used = 0;
            count = std::stoi(item.substr(eq + 1), &used);
            if (used != item.size() - eq - 1) throw std::invalid_argument("trailing");
        } catch (const std::exception&) {
            TESSEL_INVALID_INPUT("--topology " + text, 0, "count of " + name + " is not a number");
        }
        if (count < 1) TESSEL_INVALID_INPUT("--topology " + text, 0, "count of " + name + " < 1");
        if (name == "global")
            TESSEL_INVALID_INPUT("--topology " + text, 0, "\"global\" is implied, do not name it");
        for (const auto& [seen, c] : levels)
            if (seen == name) TESSEL_INVALID_INPUT("--topology " + text, 0, "level " + name + " repeated");
        levels.emplace_back(name, count);
    }
    // Deal the ranks out level by level: each group splits into `count` contiguous parts.
    std::vector<std::pair<int, int>> ranges{{0, ranks}};  // current groups as [begin, end)
    std::vector<std::vector<int>> groups;                   // outermost first
    for (const auto& [name, count] : levels) {
        std::vector<std::pair<int, int>> next;
        std::vector<int> ids(ranks);
        for (const auto& [b, e] : ranges) {
            const int size = e - b;
            if (size < count)
                TESSEL_INVALID_INPUT("--topology " + text, 0,
                                     "a group of " + std::to_string(size) + " rank(s) cannot hold " +
                                         std::to_string(count) + " " + name +
                                         " groups (have " + std::to_string(ranks) + " ranks)");
            for (int part = 0; part < count; ++part) {
                const int pb = b + static_cast<int>(std::int64_t(size) * part / count);
                const int pe = b + static_cast<int>(std::int64_t(size) * (part + 1) / count);
                for (int r = pb; r < pe; ++r) ids[r] = static_cast<int>(next.size());
                next.emplace_back(pb, pe);
            }
        }
        ranges = std::move(next);
        groups.push_back(std::move(ids));
    }
    std::vector<std::string> names;
    std::vector<std::vector<int>> tables;
    for (int l = static_cast<int>(levels.size()) - 1; l >= 0; --l) {
        names.push_back(levels[l].first);
        tables.push_back(std::move(groups[l]));
    }
    names.emplace_back("global");
    tables.emplace_back(ranks, 0);
    return Topology(std::move(names), std::move(tables));
}

namespace {

// Logical index of the hwloc package that holds this process's binding, or -1 when the
// binding spans several packages (or the process is not bound).
int bound_package() {
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) return -1;
    int package = -1;
    if (hwloc_topology_load(topo) == 0) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(set)) {
            hwloc_obj_t obj = hwloc_get_obj_covering_cpuset(topo, set);
            while (obj && obj->type != HWLOC_OBJ_PACKAGE) obj = obj->parent;
            if (obj) package = static_cast<int>(obj->logical_index);
        }
        hwloc_bitmap_free(set);
    }
    hwloc_topology_destroy(topo);
    return package;
}

}  // namespace

Topology Topology::detect(MPI_Comm comm) {
    const int rank = rank_of(comm), size = size_of(comm);
    MPI_Comm shared = MPI_COMM_NULL;
    TESSEL_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared));
    Communicator node(shared);
    int leader = rank;
    TESSEL_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node.get()));
    int mine[2] = {leader, bound_package()};
    std::vector<int> all(2 * static_cast<std::size_t>(size));
    TESSEL_MPI_CHECK(MPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, comm));
    std::vector<int> node_ids(size), socket_ids(size);
    std::map<std::pair<int, int>, int> sockets;
    for (int r = 0; r < size; ++r) {
        node_ids[r] = all[2 * r];
        socket_ids[r] = sockets.try_emplace({all[2 * r], all[2 * r + 1]},
                                            static_cast<int>(sockets.size())).first->second;
    }
    return Topology({"socket", "node", "global"}, {socket_ids, node_ids, std::vector<int>(size, 0)});
}

Topology Topology::subset(const std::vector<int>& ranks) const {
    std::vector<std::vector<int>> tables(names_.size());
    for (std::size_t l = 0; l < names_.size(); ++l)
        for (int r : ranks) {
            if (r < 0 || r >= this->ranks())
                TESSEL_INVALID_INPUT("topology", 0, "rank " + std::to_string(r) + " out of range");
            tables[l].push_back(groups_[l][r]);
        }
    if (ranks.empty()) TESSEL_INVALID_INPUT("topology", 0, "empty subset");
    return Topology(names_, std::move(tables));
}

int Topology::level_index(std::string_view name) const {
    for (std::size_t l = 0; l < names_.size(); ++l)
        if (names_[l] == name) return static_cast<int>(l);
    return -1;
}

int Topology::num_groups(int level) const {
    const auto& g = groups_.at(level);
    return g.empty() ? 0 : *std::max_element(g.begin(), g.end()) + 1;
}

int Topology::level_of(int a, int b) const {
    if (a == b) return -1;
    for (int l = 0; l < num_levels(); ++l)
        if (groups_[l][a] == groups_[l][b]) return l;
    return num_levels() - 1;
}

int Topology::level_spanned(const std::vector<int>& members) const {
    int level = -1;
    for (std::size_t i = 1; i < members.size(); ++i)
        level = std::max(level, level_of(members[0], members[i]));
    return level;
}

std::vector<int> Topology::members(int level, int rank) const {
    std::vector<int> out;
    for (int r = 0; r < ranks(); ++r)
        if (groups_[level][r] == groups_[level][rank]) out.push_back(r);
    return out;
}

int Topology::index_in_group(int level, int rank) const {
    int index = 0;
    for (int r = 0; r < rank; ++r)
        if (groups_[level][r] == groups_[level][rank]) ++index;
    return index;
}

bool Topology::is_inter_node(int level) const {
    const int node = level_index("node");
    return node >= 0 ? level > node : level > 0;
}

std::string Topology::describe() const {
    std::string out = std::to_string(ranks()) + " ranks: ";
    for (int l = num_levels() - 1; l >= 0; --l) {
        out += names_[l] + " " + std::to_string(num_groups(l));
        if (l > 0) out += " > ";
    }
    return out;
}

Topology make_topology(std::string_view spec, MPI_Comm comm) {
    if (spec.empty() || spec == "auto") return Topology::detect(comm);
    return Topology::from_spec(spec, size_of(comm));
}

}  // namespace tessel::comm
