// Names of the variants, block ownership rules of the grid layouts, block extraction.
#include "core/dist/dist_spmm.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/instantiate.hpp"

namespace tessel::dist {

namespace {

struct Named {
    DistAlgorithm algorithm;
    std::string_view name;
};

constexpr Named names[] = {
    {DistAlgorithm::automatic, "auto"},        {DistAlgorithm::a15d, "1.5d-a"},
    {DistAlgorithm::a2d, "2d-a"},              {DistAlgorithm::c2d, "2d-c"},
    {DistAlgorithm::a2d_async, "2d-a-async"},  {DistAlgorithm::c2d_async, "2d-c-async"},
    {DistAlgorithm::sm_direct, "sm-direct"},   {DistAlgorithm::sm_hierarchical, "sm-hier"},
};

void check_offsets(const std::vector<size_type>& offsets, std::size_t expected, size_type total,
                   const std::string& what) {
    TESSEL_ENSURE_DIMS(offsets.size() == expected,
                       what + " has " + std::to_string(offsets.size()) + " entries, expected " +
                           std::to_string(expected));
    TESSEL_ENSURE_DIMS(offsets.front() == 0 && offsets.back() == total,
                       what + " must run from 0 to " + std::to_string(total));
    for (std::size_t i = 1; i < offsets.size(); ++i)
        TESSEL_ENSURE_DIMS(offsets[i] >= offsets[i - 1], what + " decreases");
}

BlockRange block(size_type r0, size_type r1, size_type c0, size_type c1) {
    return {r0, r1, c0, c1};
}

}  // namespace

std::string_view to_string(DistAlgorithm algorithm) {
    for (const auto& n : names)
        if (n.algorithm == algorithm) return n.name;
    return "?";
}

DistAlgorithm parse_dist_algorithm(std::string_view name) {
    for (const auto& n : names)
        if (n.name == name) return n.algorithm;
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + std::string(n.name);
    TESSEL_INVALID_INPUT("--dist-algo", 0, "unknown algorithm \"" + std::string(name) + "\" (" + known + ")");
}

const std::vector<DistAlgorithm>& all_dist_algorithms() {
    static const std::vector<DistAlgorithm> all = {
        DistAlgorithm::a15d,      DistAlgorithm::a2d,       DistAlgorithm::c2d,
        DistAlgorithm::a2d_async, DistAlgorithm::c2d_async, DistAlgorithm::sm_direct,
        DistAlgorithm::sm_hierarchical};
    return all;
}

bool uses_process_grid(DistAlgorithm algorithm) {
    return algorithm == DistAlgorithm::a15d || algorithm == DistAlgorithm::a2d ||
           algorithm == DistAlgorithm::c2d || algorithm == DistAlgorithm::a2d_async ||
           algorithm == DistAlgorithm::c2d_async;
}

void DistLayout::validate(DistAlgorithm algorithm) const {
    TESSEL_ENSURE_DIMS(grid_rows >= 1 && grid_cols >= 1, "layout: grid must be at least 1 x 1");
    const std::size_t r = grid_rows, c = grid_cols;
    switch (algorithm) {
    case DistAlgorithm::a15d:
        check_offsets(row_offsets, r * c + 1, m, "1.5d layout row_offsets");
        check_offsets(col_offsets, r * c + 1, n, "1.5d layout col_offsets");
        check_offsets(k_offsets, 2, k, "1.5d layout k_offsets");
        break;
    case DistAlgorithm::a2d:
    case DistAlgorithm::a2d_async:
        check_offsets(row_offsets, r + 1, m, "2d-a layout row_offsets");
        check_offsets(col_offsets, c + 1, n, "2d-a layout col_offsets");
        TESSEL_ENSURE_DIMS(k_offsets.size() >= 2, "2d-a layout needs at least one stage");
        check_offsets(k_offsets, k_offsets.size(), k, "2d-a layout k_offsets");
        break;
    case DistAlgorithm::c2d:
    case DistAlgorithm::c2d_async:
        check_offsets(row_offsets, r + 1, m, "2d-c layout row_offsets");
        TESSEL_ENSURE_DIMS(col_offsets.size() >= 2, "2d-c layout needs at least one stage");
        check_offsets(col_offsets, col_offsets.size(), n, "2d-c layout col_offsets");
        check_offsets(k_offsets, c + 1, k, "2d-c layout k_offsets");
        break;
    default:
        TESSEL_THROW(DimensionMismatch, "layout: " + std::string(to_string(algorithm)) +
                                            " does not use a grid layout");
    }
}

std::vector<BlockRange> a_ranges(DistAlgorithm algorithm, const DistLayout& l, int rank) {
    const int r = l.grid_rows, c = l.grid_cols, i = rank / c, j = rank % c;
    const auto& ro = l.row_offsets;
    const auto& co = l.col_offsets;
    switch (algorithm) {
    case DistAlgorithm::a15d:
        return {block(ro[i * c], ro[(i + 1) * c], co[j * r], co[(j + 1) * r])};
    case DistAlgorithm::a2d:
    case DistAlgorithm::a2d_async: return {block(ro[i], ro[i + 1], co[j], co[j + 1])};
    case DistAlgorithm::c2d:
    case DistAlgorithm::c2d_async: {
        std::vector<BlockRange> out;
        const int stages = static_cast<int>(co.size()) - 1;
        for (int s = j; s < stages; s += c) out.push_back(block(ro[i], ro[i + 1], co[s], co[s + 1]));
        return out;
    }
    default: TESSEL_THROW(DimensionMismatch, "a_ranges: not a grid algorithm");
    }
}

std::vector<BlockRange> b_ranges(DistAlgorithm algorithm, const DistLayout& l, int rank) {
    const int r = l.grid_rows, c = l.grid_cols, i = rank / c, j = rank % c;
    const auto& co = l.col_offsets;
    const auto& ko = l.k_offsets;
    std::vector<BlockRange> out;
    switch (algorithm) {
    case DistAlgorithm::a15d: return {block(co[j * r + i], co[j * r + i + 1], 0, l.k)};
    case DistAlgorithm::a2d:
    case DistAlgorithm::a2d_async: {
        const int stages = static_cast<int>(ko.size()) - 1;
        for (int s = i; s < stages; s += r) out.push_back(block(co[j], co[j + 1], ko[s], ko[s + 1]));
        return out;
    }
    case DistAlgorithm::c2d:
    case DistAlgorithm::c2d_async: {
        const int stages = static_cast<int>(co.size()) - 1;
        for (int s = i; s < stages; s += r) out.push_back(block(co[s], co[s + 1], ko[j], ko[j + 1]));
        return out;
    }
    default: TESSEL_THROW(DimensionMismatch, "b_ranges: not a grid algorithm");
    }
}

std::vector<BlockRange> c_ranges(DistAlgorithm algorithm, const DistLayout& l, int rank) {
    const int c = l.grid_cols, i = rank / c, j = rank % c;
    const auto& ro = l.row_offsets;
    const auto& ko = l.k_offsets;
    std::vector<BlockRange> out;
    switch (algorithm) {
    case DistAlgorithm::a15d: return {block(ro[i * c + j], ro[i * c + j + 1], 0, l.k)};
    case DistAlgorithm::a2d:
    case DistAlgorithm::a2d_async: {
        const int stages = static_cast<int>(ko.size()) - 1;
        for (int s = j; s < stages; s += c) out.push_back(block(ro[i], ro[i + 1], ko[s], ko[s + 1]));
        return out;
    }
    case DistAlgorithm::c2d:
    case DistAlgorithm::c2d_async: return {block(ro[i], ro[i + 1], ko[j], ko[j + 1])};
    default: TESSEL_THROW(DimensionMismatch, "c_ranges: not a grid algorithm");
    }
}

template <typename V, typename I>
Csr<V, I> extract_block(const Csr<V, I>& a, const BlockRange& range) {
    TESSEL_ENSURE_DIMS(range.row_begin >= 0 && range.row_begin <= range.row_end &&
                           range.row_end <= a.rows() && range.col_begin >= 0 &&
                           range.col_begin <= range.col_end && range.col_end <= a.cols(),
                       "extract_block: range outside the " + std::to_string(a.rows()) + "x" +
                           std::to_string(a.cols()) + " matrix");
    std::vector<size_type> row_ptr{0};
    std::vector<I> col;
    std::vector<V> val;
    std::vector<std::pair<I, V>> row;
    for (size_type i = range.row_begin; i < range.row_end; ++i) {
        row.clear();
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e) {
            const size_type jj = a.col_idx()[e];
            if (jj >= range.col_begin && jj < range.col_end)
                row.emplace_back(static_cast<I>(jj - range.col_begin), a.values()[e]);
        }
        std::sort(row.begin(), row.end(),
                  [](const auto& x, const auto& y) { return x.first < y.first; });
        for (const auto& [jj, v] : row) {
            col.push_back(jj);
            val.push_back(v);
        }
        row_ptr.push_back(static_cast<size_type>(col.size()));
    }
    return Csr<V, I>(range.rows(), range.cols(), std::move(row_ptr), std::move(col), std::move(val),
                     "block");
}

template <typename V>
DenseBlocks<V> DenseBlocks<V>::allocate(const std::vector<BlockRange>& ranges) {
    DenseBlocks out;
    out.ranges = ranges;
    for (const auto& r : ranges) out.blocks.emplace_back(r.rows(), r.cols());
    return out;
}

template <typename V>
DenseBlocks<V> DenseBlocks<V>::from_global(DenseView<const V> global,
                                           const std::vector<BlockRange>& ranges) {
    DenseBlocks out = allocate(ranges);
    for (std::size_t b = 0; b < ranges.size(); ++b) {
        const auto& r = ranges[b];
        TESSEL_ENSURE_DIMS(r.row_end <= global.rows && r.col_end <= global.cols,
                           "dense blocks: range outside the global matrix");
        for (size_type i = 0; i < r.rows(); ++i)
            for (size_type j = 0; j < r.cols(); ++j)
                out.blocks[b](i, j) = global(r.row_begin + i, r.col_begin + j);
    }
    return out;
}

template <typename V>
void DenseBlocks<V>::add_to_global(DenseView<V> global) const {
    for (std::size_t b = 0; b < ranges.size(); ++b) {
        const auto& r = ranges[b];
        TESSEL_ENSURE_DIMS(r.row_end <= global.rows && r.col_end <= global.cols,
                           "dense blocks: range outside the global matrix");
        for (size_type i = 0; i < r.rows(); ++i)
            for (size_type j = 0; j < r.cols(); ++j)
                global(r.row_begin + i, r.col_begin + j) += blocks[b](i, j);
    }
}

template <typename V, typename I>
void DistSpmm<V, I>::prepare(const DenseBlocks<V>& b, DenseBlocks<V>& c) const {
    TESSEL_ENSURE_DIMS(b.ranges == b_ranges_ && b.blocks.size() == b_ranges_.size(),
                       std::string(to_string(algorithm())) +
                           ": B blocks differ from the ones this rank must hold");
    for (std::size_t i = 0; i < b.blocks.size(); ++i)
        TESSEL_ENSURE_DIMS(b.blocks[i].rows() == b_ranges_[i].rows() &&
                               b.blocks[i].cols() == b_ranges_[i].cols() &&
                               b.blocks[i].layout() == Layout::row_major,
                           "distributed spmm: a B block has the wrong shape or layout");
    bool same = c.ranges == c_ranges_ && c.blocks.size() == c_ranges_.size();
    for (std::size_t i = 0; same && i < c.blocks.size(); ++i)
        same = c.blocks[i].rows() == c_ranges_[i].rows() && c.blocks[i].cols() == c_ranges_[i].cols() &&
               c.blocks[i].layout() == Layout::row_major;
    if (!same) c = DenseBlocks<V>::allocate(c_ranges_);
}

template struct DenseBlocks<float>;
template struct DenseBlocks<double>;

#define TESSEL_INSTANTIATE(V, I)                                                  \
    template Csr<V, I> extract_block(const Csr<V, I>&, const BlockRange&);        \
    template void DistSpmm<V, I>::prepare(const DenseBlocks<V>&, DenseBlocks<V>&) const;
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::dist
