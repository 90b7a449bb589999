// Row reordering for matrices without geometry (thesis 2.5.1): rows clustered by sparsity
// pattern into balanced clusters of one tiled-ELL block each, so that rows sharing input
// columns share a block and its staged buffer.
#pragma once

#include <cstdint>
#include <vector>

#include "core/formats/csr.hpp"
#include "partition/permutation.hpp"

namespace tessel::partition {

struct KmeansOptions {
    /// Rows per cluster: the tiled-ELL block height (TiledEllConfig::block_rows).
    size_type cluster_rows = 32;
    /// Lloyd iterations per bisection.
    int iterations = 8;
    std::uint64_t seed = 1;
};

/// The clusters: rows order[offsets[c] .. offsets[c+1]) form cluster c. Every cluster has
/// exactly cluster_rows rows except the last, which has the rest.
struct RowClustering {
    Permutation order;
    std::vector<size_type> offsets;
};

/// Balanced spherical k-means by recursive bisection, computed on the sparse rows themselves.
/// Row i is the point x_i = (1/√nnz_i)·(indicator of its columns) in column space, so that
/// ‖x_i - x_l‖² = 2 - 2·cos(row i, row l). A set of rows is split by 2-means: seeds a random
/// row's farthest row and that row's farthest row, then `iterations` Lloyd steps in which the
/// ceil(blocks/2)·cluster_rows rows with the smallest ‖x - c₀‖² - ‖x - c₁‖² = 2x·(c₁ - c₀) +
/// ‖c₀‖² - ‖c₁‖² go to the first half (a balanced assignment: both halves whole multiples of
/// the cluster size) and the centroids are recomputed as sparse means. Halves are split again
/// down to one cluster; the leaves in recursion order give the row order, so similar clusters
/// also end up near each other. Dot products and centroids touch only nonzeros: each level of
/// the recursion costs O(nnz·iterations), the whole O(nnz·iterations·log(rows/cluster_rows)).
/// Deterministic for a seed. Throws InvalidInput when cluster_rows or iterations are below 1.
template <typename ValueType, typename IndexType>
RowClustering kmeans_row_order(const Csr<ValueType, IndexType>& a, const KmeansOptions& options = {});

/// The tiled-ELL reuse nnz / staged entries (TiledEll::average_reuse, thesis 2.5.1) of `a` with
/// blocks of `block_rows` rows and staging buffers of `buffer_entries` entries.
template <typename ValueType, typename IndexType>
double tiled_ell_reuse(const Csr<ValueType, IndexType>& a, size_type block_rows,
                       size_type buffer_entries = 4096);

}  // namespace tessel::partition
