// Row reordering by METIS graph partitioning of the row-similarity graph (pattern of A·Aᵀ).
#include "partition/metis_reorder.hpp"

#include <metis.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/instantiate.hpp"

namespace tessel::partition {

namespace {

static_assert(sizeof(idx_t) >= 4, "METIS idx_t narrower than 32 bits");

constexpr size_type idx_max = static_cast<size_type>(std::numeric_limits<idx_t>::max());

// Symmetric row graph in METIS's CSR form (no self loops), edge weights = shared columns.
struct RowGraph {
    std::vector<idx_t> xadj{0}, adjncy, adjwgt;
};

void check_fits(size_type entries) {
    if (entries > idx_max)
        TESSEL_INVALID_INPUT("metis", 0,
                             "row graph has " + std::to_string(entries) +
                                 " edge entries, more than METIS's idx_t holds; lower "
                                 "MetisOptions::max_column_rows or set max_neighbors");
}

template <typename V, typename I>
RowGraph row_graph(const Csr<V, I>& a, const MetisOptions& options) {
    const size_type n = a.rows();
    const size_type m = a.cols();
    // The rows of every column (columns with too many rows are left out).
    std::vector<size_type> count(static_cast<std::size_t>(m) + 1, 0);
    for (I j : a.col_idx()) ++count[static_cast<std::size_t>(j) + 1];
    for (size_type j = 0; j < m; ++j)
        if (options.max_column_rows > 0 && count[j + 1] > options.max_column_rows) count[j + 1] = 0;
    std::vector<size_type> col_ptr(static_cast<std::size_t>(m) + 1, 0);
    for (size_type j = 0; j < m; ++j) col_ptr[j + 1] = col_ptr[j] + count[j + 1];
    std::vector<idx_t> col_rows(static_cast<std::size_t>(col_ptr[m]));
    {
        std::vector<size_type> fill(col_ptr.begin(), col_ptr.end() - 1);
        for (size_type i = 0; i < n; ++i)
            for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e) {
                const auto j = static_cast<std::size_t>(a.col_idx()[e]);
                if (col_ptr[j + 1] > col_ptr[j]) col_rows[fill[j]++] = static_cast<idx_t>(i);
            }
    }

    // Row by row: the weights of row i's neighbours in a dense accumulator (as in SpGEMM).
    RowGraph g;
    std::vector<idx_t> weight(static_cast<std::size_t>(n), 0);
    std::vector<idx_t> touched;
    auto heavier = [&](idx_t x, idx_t y) { return weight[x] != weight[y] ? weight[x] > weight[y] : x < y; };
    for (size_type i = 0; i < n; ++i) {
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e) {
            const auto j = static_cast<std::size_t>(a.col_idx()[e]);
            for (size_type k = col_ptr[j]; k < col_ptr[j + 1]; ++k) {
                const idx_t r = col_rows[k];
                if (r == static_cast<idx_t>(i)) continue;  // no self loops
                if (weight[r]++ == 0) touched.push_back(r);
            }
        }
        if (options.max_neighbors > 0 && static_cast<size_type>(touched.size()) > options.max_neighbors) {
            std::nth_element(touched.begin(), touched.begin() + options.max_neighbors, touched.end(), heavier);
            for (auto it = touched.begin() + options.max_neighbors; it != touched.end(); ++it) weight[*it] = 0;
            touched.resize(static_cast<std::size_t>(options.max_neighbors));
        }
        std::sort(touched.begin(), touched.end());
        check_fits(static_cast<size_type>(g.adjncy.size() + touched.size()));
        for (idx_t r : touched) {
            g.adjncy.push_back(r);
            g.adjwgt.push_back(weight[r]);
            weight[r] = 0;
        }
        touched.clear();
        g.xadj.push_back(static_cast<idx_t>(g.adjncy.size()));
    }
    if (options.max_neighbors == 0) return g;  // A·Aᵀ is symmetric already

    // Kept neighbour lists are not symmetric: take the union of i→l and l→i (equal weights).
    std::vector<size_type> deg(static_cast<std::size_t>(n) + 1, 0);
    for (size_type i = 0; i < n; ++i)
        for (idx_t e = g.xadj[i]; e < g.xadj[i + 1]; ++e) ++deg[i + 1], ++deg[g.adjncy[e] + 1];
    for (size_type i = 0; i < n; ++i) deg[i + 1] += deg[i];
    check_fits(deg[n]);
    std::vector<std::pair<idx_t, idx_t>> both(static_cast<std::size_t>(deg[n]));
    {
        std::vector<size_type> fill(deg.begin(), deg.end() - 1);
        for (size_type i = 0; i < n; ++i)
            for (idx_t e = g.xadj[i]; e < g.xadj[i + 1]; ++e) {
                both[fill[i]++] = {g.adjncy[e], g.adjwgt[e]};
                both[fill[g.adjncy[e]]++] = {static_cast<idx_t>(i), g.adjwgt[e]};
            }
    }
    RowGraph sym;
    sym.adjncy.reserve(both.size());
    sym.adjwgt.reserve(both.size());
    for (size_type i = 0; i < n; ++i) {
        std::sort(both.begin() + deg[i], both.begin() + deg[i + 1]);
        for (size_type k = deg[i]; k < deg[i + 1]; ++k)
            if (k == deg[i] || both[k].first != both[k - 1].first) {
                sym.adjncy.push_back(both[k].first);
                sym.adjwgt.push_back(both[k].second);
            }
        sym.xadj.push_back(static_cast<idx_t>(sym.adjncy.size()));
    }
    return sym;
}

const char* metis_status(int status) {
    switch (status) {
    case METIS_ERROR_INPUT: return "METIS_ERROR_INPUT (erroneous input or options)";
    case METIS_ERROR_MEMORY: return "METIS_ERROR_MEMORY (out of memory)";
    case METIS_ERROR: return "METIS_ERROR";
    default: return "unknown status";
    }
}

// Moves rows out of over-full parts into under-full ones until part p has exactly target[p]
// rows: the rows least tied to their own part leave (ties: lower row first), and each
// goes to the under-full part it shares most with (ties and no ties at all: the under-full
// part nearest in number to its old part, lower first).
void exact_balance(const RowGraph& g, const std::vector<size_type>& target, std::vector<idx_t>& part) {
    const auto nparts = static_cast<idx_t>(target.size());
    const auto n = static_cast<size_type>(part.size());
    std::vector<size_type> size(target.size(), 0);
    for (idx_t p : part) ++size[p];
    std::vector<std::vector<idx_t>> members(target.size());
    for (size_type i = 0; i < n; ++i)
        if (size[part[i]] > target[part[i]]) members[part[i]].push_back(static_cast<idx_t>(i));
    std::vector<idx_t> moving;
    std::vector<idx_t> old_part(part);
    for (idx_t p = 0; p < nparts; ++p) {
        auto& rows = members[p];
        if (rows.empty()) continue;
        std::vector<std::pair<long long, idx_t>> tie(rows.size());
        for (std::size_t k = 0; k < rows.size(); ++k) {
            long long w = 0;
            for (idx_t e = g.xadj[rows[k]]; e < g.xadj[rows[k] + 1]; ++e)
                if (part[g.adjncy[e]] == p) w += g.adjwgt[e];
            tie[k] = {w, rows[k]};
        }
        std::sort(tie.begin(), tie.end());
        const size_type surplus = size[p] - target[p];
        for (size_type k = 0; k < surplus; ++k) moving.push_back(tie[k].second);
        size[p] = target[p];
    }
    for (idx_t r : moving) part[r] = -1;
    std::sort(moving.begin(), moving.end());
    std::set<idx_t> open;
    for (idx_t p = 0; p < nparts; ++p)
        if (size[p] < target[p]) open.insert(p);
    std::vector<long long> shared(target.size(), 0);
    std::vector<idx_t> seen;
    for (idx_t r : moving) {
        for (idx_t e = g.xadj[r]; e < g.xadj[r + 1]; ++e) {
            const idx_t p = part[g.adjncy[e]];
            if (p < 0 || size[p] >= target[p]) continue;
            if (shared[p] == 0) seen.push_back(p);
            shared[p] += g.adjwgt[e];
        }
        idx_t best = -1;
        if (!seen.empty()) {
            std::sort(seen.begin(), seen.end());
            for (idx_t p : seen)
                if (best < 0 || shared[p] > shared[best]) best = p;
            for (idx_t p : seen) shared[p] = 0;
            seen.clear();
        } else {
            const auto above = open.lower_bound(old_part[r]);
            if (above == open.begin()) best = *above;
            else if (above == open.end()) best = *std::prev(above);
            else best = (*above - old_part[r] < old_part[r] - *std::prev(above)) ? *above : *std::prev(above);
        }
        part[r] = best;
        if (++size[best] == target[best]) open.erase(best);
    }
}

}  // namespace

template <typename V, typename I>
RowClustering metis_row_order(const Csr<V, I>& a, const MetisOptions& options) {
    if (options.cluster_rows < 1) TESSEL_INVALID_INPUT("metis", 0, "cluster_rows must be >= 1");
    const size_type n = a.rows();
    RowClustering out;
    out.order = identity_permutation(n);
    out.offsets.push_back(0);
    if (n == 0) return out;
    if (n > idx_max) TESSEL_INVALID_INPUT("metis", 0, "more rows than METIS's idx_t holds");
    const size_type cluster = options.cluster_rows;
    const size_type parts = (n + cluster - 1) / cluster;
    for (size_type p = 1; p <= parts; ++p) out.offsets.push_back(std::min(n, p * cluster));
    if (parts == 1) return out;

    RowGraph g = row_graph(a, options);
    std::vector<size_type> target(static_cast<std::size_t>(parts), cluster);
    target.back() = n - (parts - 1) * cluster;
    std::vector<idx_t> part(static_cast<std::size_t>(n), 0);
    if (g.adjncy.empty()) {
        // No edges (METIS rejects such graphs): any balanced split is as good as another.
        for (size_type i = 0; i < n; ++i) part[i] = static_cast<idx_t>(i / cluster);
    } else {
        idx_t nvtxs = static_cast<idx_t>(n), ncon = 1, nparts = static_cast<idx_t>(parts), objval = 0;
        idx_t metis_options[METIS_NOPTIONS];
        METIS_SetDefaultOptions(metis_options);
        metis_options[METIS_OPTION_NUMBERING] = 0;
        metis_options[METIS_OPTION_SEED] = static_cast<idx_t>(options.seed & 0x7fffffff);
        // Target weights: every part one block, the last one the remainder.
        std::vector<real_t> tpwgts;
        if (target.back() != cluster) {
            tpwgts.resize(target.size());
            for (std::size_t p = 0; p < target.size(); ++p) tpwgts[p] = real_t(double(target[p]) / double(n));
        }
        real_t* tp = tpwgts.empty() ? nullptr : tpwgts.data();
        const int status =
            options.kway
                ? METIS_PartGraphKway(&nvtxs, &ncon, g.xadj.data(), g.adjncy.data(), nullptr, nullptr,
                                      g.adjwgt.data(), &nparts, tp, nullptr, metis_options, &objval, part.data())
                : METIS_PartGraphRecursive(&nvtxs, &ncon, g.xadj.data(), g.adjncy.data(), nullptr, nullptr,
                                           g.adjwgt.data(), &nparts, tp, nullptr, metis_options, &objval,
                                           part.data());
        if (status != METIS_OK)
            TESSEL_THROW(::tessel::Error,
                         std::string(options.kway ? "METIS_PartGraphKway" : "METIS_PartGraphRecursive") +
                             " failed on the row graph (" + std::to_string(n) + " rows, " +
                             std::to_string(g.adjncy.size()) + " edge entries, " + std::to_string(parts) +
                             " parts): " + metis_status(status));
        for (idx_t p : part)
            if (p < 0 || p >= nparts) TESSEL_THROW(::tessel::Error, "METIS returned a part out of range");
    }
    exact_balance(g, target, part);

    // Part by part, ascending rows within a part (a stable counting sort).
    std::vector<size_type> start(static_cast<std::size_t>(parts) + 1, 0);
    for (idx_t p : part) ++start[static_cast<std::size_t>(p) + 1];
    for (size_type p = 0; p < parts; ++p) start[p + 1] += start[p];
    for (size_type i = 0; i < n; ++i) out.order[start[part[i]]++] = i;
    return out;
}

#define TESSEL_INSTANTIATE(V, I) \
    template RowClustering metis_row_order(const Csr<V, I>&, const MetisOptions&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::partition
