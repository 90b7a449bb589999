// Moving images and sinograms between rank 0's natural layout (slice, natural index) and the
// ranks' ordered blocks (position, K columns), for inputs, outputs and checkpoints.
#pragma once

#include <vector>

#include "apps/xct/parallel/parallel.hpp"
#include "core/dense.hpp"
#include "partition/permutation.hpp"

namespace tessel::xct {

/// Rank (b, d) of the grid holds ordered positions [offsets[d], offsets[d+1]) of a domain
/// (pixels or rays) for the K columns of batch group b. Gathers everything on world rank 0 as
/// natural[(b·K + j)·total + order[position]] (total = offsets.back()); other ranks get an
/// empty vector. Collective over layout.world. Throws MpiError.
template <typename ValueType>
std::vector<ValueType> gather_domain(const ParallelLayout& layout, const DenseMatrix<ValueType>& local,
                                     const std::vector<size_type>& offsets, const partition::Permutation& order);

/// The inverse: rank 0's natural array (P_batch·K·total values; ignored elsewhere) is cut into
/// every rank's ordered block, `local` (re)sized to its positions x k. Collective.
template <typename ValueType>
void scatter_domain(const ParallelLayout& layout, const std::vector<ValueType>& natural, DenseMatrix<ValueType>& local,
                    const std::vector<size_type>& offsets, const partition::Permutation& order, size_type k);

/// Per-column histories of every batch group on rank 0, slot b·K + j (data rank 0 of each
/// group sends; the data ranks agree). Collective.
std::vector<std::vector<double>> gather_histories(const ParallelLayout& layout,
                                                  const std::vector<std::vector<double>>& mine);

/// Scatters rank 0's per-slot vectors (P_batch·K entries) to every rank's K entries. Collective.
template <typename T>
std::vector<T> scatter_columns(const ParallelLayout& layout, const std::vector<T>& all, size_type k);

}  // namespace tessel::xct
