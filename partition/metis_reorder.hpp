// Row reordering with METIS, for comparison with the k-means reordering (kmeans_reorder.hpp):
// rows that share columns are put into balanced parts of one tiled-ELL block each by a graph
// partitioner. Compiled only when METIS is found (TESSEL_HAVE_METIS is then defined).
#pragma once

#include <cstdint>

#include "core/formats/csr.hpp"
#include "partition/kmeans_reorder.hpp"
#include "partition/permutation.hpp"

namespace tessel::partition {

struct MetisOptions {
    /// Rows per part: the tiled-ELL block height (TiledEllConfig::block_rows).
    size_type cluster_rows = 32;
    /// Columns with more rows than this are left out of the row graph (a column with r rows
    /// adds r·(r-1) edge entries); 0 keeps every column.
    size_type max_column_rows = 1024;
    /// Each row keeps only its `max_neighbors` heaviest edges (most shared columns, ties: lower
    /// row; the graph is then made symmetric again by union), so that the graph has at most
    /// 2·rows·max_neighbors edge entries; 0 keeps every edge. On the 128² tomography matrix
    /// (about 16 000 rows, ~107 nonzeros per row) 256 cut METIS's time by 3x at the same reuse.
    size_type max_neighbors = 256;
    /// METIS_PartGraphKway instead of METIS_PartGraphRecursive. Recursive bisection is the
    /// default: its part numbers follow the bisection tree, so that parts next to each other in
    /// the order are similar (as with the k-means leaves), which larger blocks profit from; with
    /// parts this small k-way also gave much lower reuse on the tomography matrix.
    bool kway = false;
    std::uint64_t seed = 1;
};

/// Balanced graph partitioning of the rows with METIS. The row graph has an edge between rows i
/// and l (i ≠ l) weighted by the number of columns they share, that is the pattern of A·Aᵀ
/// without its diagonal, built from the columns' row lists (restricted by max_column_rows and
/// max_neighbors to bound its cost). METIS splits it into ceil(rows / cluster_rows) parts, the
/// last one given the remainder as its target weight; rows of over-full parts (METIS balances
/// only within a tolerance) that are least tied to their part then move to the under-full part
/// they share most with, so that every part has exactly cluster_rows rows except the last,
/// which has the rest. Rows are ordered part by part, ascending within a part.
/// Same result convention as kmeans_row_order: order[new] = old, clusters order[offsets[c] ..
/// offsets[c+1]). Deterministic for a seed. Throws InvalidInput when cluster_rows is below 1 or
/// the graph does not fit METIS's 32-bit indices, and Error when METIS fails.
template <typename ValueType, typename IndexType>
RowClustering metis_row_order(const Csr<ValueType, IndexType>& a, const MetisOptions& options = {});

}  // namespace tessel::partition
