// Direct and hierarchical reduction plans, and a serial simulator of plans.
#include "partition/reduction_plan.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "core/error.hpp"
#include "core/instantiate.hpp"

namespace tessel::partition {

template <typename V, typename I>
std::vector<std::vector<size_type>> footprints(const Csr<V, I>& a,
                                               const std::vector<size_type>& col_offsets) {
    const int parts = static_cast<int>(col_offsets.size()) - 1;
    if (parts < 1 || col_offsets.front() != 0 || col_offsets.back() != a.cols())
        TESSEL_INVALID_INPUT("footprints", 0, "column offsets do not cover the matrix");
    std::vector<std::vector<size_type>> out(parts);
    std::vector<size_type> last(parts, -1);
    for (size_type i = 0; i < a.rows(); ++i)
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e) {
            const int d = static_cast<int>(
                std::upper_bound(col_offsets.begin(), col_offsets.end(), size_type(a.col_idx()[e])) -
                col_offsets.begin() - 1);
            if (last[d] != i) {
                last[d] = i;
                out[d].push_back(i);
            }
        }
    return out;
}

template <typename V, typename I>
Csr<V, I> footprint_block(const Csr<V, I>& a, const std::vector<size_type>& footprint,
                          size_type col_begin, size_type col_end) {
    std::vector<size_type> ptr{0};
    std::vector<I> col;
    std::vector<V> val;
    for (size_type g : footprint) {
        if (g < 0 || g >= a.rows()) TESSEL_INVALID_INPUT("footprint", 0, "row out of range");
        for (size_type e = a.row_ptr()[g]; e < a.row_ptr()[g + 1]; ++e)
            if (a.col_idx()[e] >= col_begin && a.col_idx()[e] < col_end) {
                col.push_back(static_cast<I>(a.col_idx()[e] - col_begin));
                val.push_back(a.values()[e]);
            }
        ptr.push_back(static_cast<size_type>(col.size()));
    }
    return Csr<V, I>(static_cast<size_type>(footprint.size()), col_end - col_begin, std::move(ptr),
                     std::move(col), std::move(val), "footprint block");
}

namespace {

int owner_of(const std::vector<size_type>& row_offsets, size_type g) {
    return static_cast<int>(std::upper_bound(row_offsets.begin(), row_offsets.end(), g) -
                            row_offsets.begin() - 1);
}

void check_inputs(const std::vector<std::vector<size_type>>& fp, const std::vector<size_type>& ro,
                  const comm::Topology& topology) {
    const int p = topology.ranks();
    if (static_cast<int>(fp.size()) != p || static_cast<int>(ro.size()) != p + 1 || ro.front() != 0)
        TESSEL_INVALID_INPUT("reduction plan", 0,
                             "needs one footprint per rank and " + std::to_string(p + 1) +
                                 " row offsets");
    for (const auto& f : fp)
        for (std::size_t e = 0; e < f.size(); ++e)
            if (f[e] < 0 || f[e] >= ro.back() || (e > 0 && f[e] <= f[e - 1]))
                TESSEL_INVALID_INPUT("reduction plan", 0, "footprint rows must be ascending and < m");
}

// One step for all ranks: rank p holds rows held[p] (ascending, position = buffer row) and sends
// row g to target(p, g). The receivers' new row sets are the unions of what they get; their
// buffer position of g is out_position(t, g) (given the new sets). Returns the new sets.
template <typename Target, typename OutPosition>
std::vector<std::vector<size_type>> add_step(std::vector<comm::ExchangePlan>& plans, int level,
                                             const std::vector<std::vector<size_type>>& held,
                                             Target target, OutPosition out_position,
                                             const std::vector<size_type>* out_rows) {
    const int p = static_cast<int>(held.size());
    std::vector<std::vector<size_type>> next(p);
    std::vector<std::vector<int>> targets(p);
    for (int q = 0; q < p; ++q) {
        targets[q].resize(held[q].size());
        for (std::size_t e = 0; e < held[q].size(); ++e) {
            const int t = target(q, held[q][e]);
            targets[q][e] = t;
            next[t].push_back(held[q][e]);
        }
    }
    for (auto& n : next) {
        std::sort(n.begin(), n.end());
        n.erase(std::unique(n.begin(), n.end()), n.end());
    }
    std::vector<comm::ExchangeStep> steps(p);
    // recv[t][q] = out positions at t of the rows q sends to t, in q's buffer order.
    std::vector<std::map<int, std::vector<size_type>>> recv(p);
    for (int q = 0; q < p; ++q) {
        auto& st = steps[q];
        st.level = level;
        st.in_rows = static_cast<size_type>(held[q].size());
        std::map<int, std::vector<size_type>> send;
        for (std::size_t e = 0; e < held[q].size(); ++e) {
            const int t = targets[q][e];
            const size_type g = held[q][e];
            const size_type pos = out_position(t, g, next[t]);
            if (t == q) {
                st.self_in.push_back(static_cast<size_type>(e));
                st.self_out.push_back(pos);
            } else {
                send[t].push_back(static_cast<size_type>(e));
                recv[t][q].push_back(pos);
            }
        }
        for (auto& [t, rows] : send) {
            st.send_peers.push_back(t);
            st.send_rows.insert(st.send_rows.end(), rows.begin(), rows.end());
            st.send_displ.push_back(static_cast<size_type>(st.send_rows.size()));
        }
    }
    for (int t = 0; t < p; ++t) {
        auto& st = steps[t];
        st.out_rows = out_rows ? (*out_rows)[t] : static_cast<size_type>(next[t].size());
        for (auto& [q, rows] : recv[t]) {
            st.recv_peers.push_back(q);
            st.recv_rows.insert(st.recv_rows.end(), rows.begin(), rows.end());
            st.recv_displ.push_back(static_cast<size_type>(st.recv_rows.size()));
        }
        plans[t].steps.push_back(std::move(st));
    }
    return next;
}

std::vector<size_type> owned_rows(const std::vector<size_type>& ro) {
    std::vector<size_type> out(ro.size() - 1);
    for (std::size_t p = 0; p + 1 < ro.size(); ++p) out[p] = ro[p + 1] - ro[p];
    return out;
}

}  // namespace

std::vector<comm::ExchangePlan> direct_reduction_plans(
    const std::vector<std::vector<size_type>>& fp, const std::vector<size_type>& ro,
    const comm::Topology& topology) {
    check_inputs(fp, ro, topology);
    std::vector<comm::ExchangePlan> plans(topology.ranks());
    const auto owned = owned_rows(ro);
    add_step(
        plans, topology.num_levels() - 1, fp, [&](int, size_type g) { return owner_of(ro, g); },
        [&](int t, size_type g, const std::vector<size_type>&) { return g - ro[t]; }, &owned);
    return plans;
}

std::vector<comm::ExchangePlan> hierarchical_reduction_plans(
    const std::vector<std::vector<size_type>>& fp, const std::vector<size_type>& ro,
    const comm::Topology& topology) {
    check_inputs(fp, ro, topology);
    const int p = topology.ranks(), top = topology.num_levels() - 1;
    std::vector<comm::ExchangePlan> plans(p);
    const auto owned = owned_rows(ro);
    // Levels that change something: groups bigger than one rank, different from the last level
    // used (groups are nested, so equal counts mean equal groups) and not already everybody
    // (the global step does that one).
    std::vector<int> levels;
    int previous_groups = p;
    for (int l = 0; l < top; ++l) {
        const int groups = topology.num_groups(l);
        if (groups < previous_groups && groups > 1) {
            levels.push_back(l);
            previous_groups = groups;
        }
    }
    levels.push_back(top);
    std::vector<std::vector<size_type>> held = fp;
    for (int l : levels) {
        // Members of every rank's level-l group, and every rank's position in its group.
        std::vector<std::vector<int>> members(p);
        std::vector<int> position(p);
        for (int q = 0; q < p; ++q) {
            members[q] = topology.members(l, q);
            position[q] = topology.index_in_group(l, q);
        }
        auto target = [&](int q, size_type g) {
            const int o = owner_of(ro, g);
            const auto& group = members[q];
            return group[position[o] % static_cast<int>(group.size())];
        };
        if (l == top) {
            add_step(plans, l, held, target,
                     [&](int t, size_type g, const std::vector<size_type>&) { return g - ro[t]; },
                     &owned);
        } else {
            held = add_step(
                plans, l, held, target,
                [](int, size_type g, const std::vector<size_type>& rows) {
                    return static_cast<size_type>(std::lower_bound(rows.begin(), rows.end(), g) -
                                                  rows.begin());
                },
                nullptr);
        }
    }
    return plans;
}

std::vector<std::vector<double>> simulate_plans(const std::vector<comm::ExchangePlan>& plans,
                                                const std::vector<std::vector<double>>& inputs,
                                                size_type w) {
    const int p = static_cast<int>(plans.size());
    std::vector<std::vector<double>> current = inputs;
    const std::size_t steps = p ? plans[0].steps.size() : 0;
    for (std::size_t s = 0; s < steps; ++s) {
        std::vector<std::vector<double>> next(p);
        for (int q = 0; q < p; ++q) {
            const auto& st = plans[q].steps.at(s);
            if (static_cast<size_type>(current[q].size()) != st.in_rows * w)
                TESSEL_INVALID_INPUT("simulate", 0, "input of rank " + std::to_string(q) + " has the wrong size");
            next[q].assign(static_cast<std::size_t>(st.out_rows * w), 0.0);
            for (std::size_t e = 0; e < st.self_in.size(); ++e)
                for (size_type j = 0; j < w; ++j)
                    next[q][st.self_out[e] * w + j] += current[q][st.self_in[e] * w + j];
        }
        // Messages: the rows q packs for t, matched with the rows t expects from q.
        for (int q = 0; q < p; ++q) {
            const auto& sq = plans[q].steps[s];
            for (std::size_t i = 0; i < sq.send_peers.size(); ++i) {
                const int t = sq.send_peers[i];
                const auto& st = plans[t].steps[s];
                const auto it = std::find(st.recv_peers.begin(), st.recv_peers.end(), q);
                if (it == st.recv_peers.end())
                    TESSEL_INVALID_INPUT("simulate", 0, "rank " + std::to_string(t) +
                                                            " does not expect rows from " + std::to_string(q));
                const std::size_t r = it - st.recv_peers.begin();
                const size_type count = sq.send_displ[i + 1] - sq.send_displ[i];
                if (count != st.recv_displ[r + 1] - st.recv_displ[r])
                    TESSEL_INVALID_INPUT("simulate", 0, "send and receive counts differ");
                for (size_type e = 0; e < count; ++e)
                    for (size_type j = 0; j < w; ++j)
                        next[t][st.recv_rows[st.recv_displ[r] + e] * w + j] +=
                            current[q][sq.send_rows[sq.send_displ[i] + e] * w + j];
            }
        }
        current = std::move(next);
    }
    return current;
}

#define TESSEL_INSTANTIATE(V, I)                                                               \
    template std::vector<std::vector<size_type>> footprints(const Csr<V, I>&,                  \
                                                            const std::vector<size_type>&);    \
    template Csr<V, I> footprint_block(const Csr<V, I>&, const std::vector<size_type>&,        \
                                       size_type, size_type);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::partition
