// Construction of the plans that reduce the partial rows of a sender-multiplies SpMM into
// their owners: direct (one sparse all-to-all) or hierarchical (level by level, thesis 3.3).
#pragma once

#include <vector>

#include "core/comm/exchange_plan.hpp"
#include "core/comm/topology.hpp"
#include "core/formats/csr.hpp"

namespace tessel::partition {

/// For every part d of the columns (col_offsets, d = 0 .. parts-1): the rows, ascending, where
/// A(:, col_offsets[d] .. col_offsets[d+1]) has a nonzero — the partial rows rank d produces.
template <typename ValueType, typename IndexType>
std::vector<std::vector<size_type>> footprints(const Csr<ValueType, IndexType>& a,
                                               const std::vector<size_type>& col_offsets);

/// A(:, cols of part d) with its rows compressed to footprint d (row e is global row
/// footprint[e]), local column indices: the local matrix of SenderMultipliesSpmm.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> footprint_block(const Csr<ValueType, IndexType>& a,
                                          const std::vector<size_type>& footprint,
                                          size_type col_begin, size_type col_end);

/// Direct reduction: one step at the global level; rank p sends each partial row g of its
/// footprint to the owner o of g (row_offsets[o] <= g < row_offsets[o+1]), which adds it into
/// row g - row_offsets[o] of its result. Plans for every rank of `topology` (plans[p] is rank
/// p's). Throws InvalidInput when sizes disagree or a footprint row is out of range.
std::vector<comm::ExchangePlan> direct_reduction_plans(
    const std::vector<std::vector<size_type>>& footprints, const std::vector<size_type>& row_offsets,
    const comm::Topology& topology);

/// Hierarchical reduction (thesis 3.3, any depth): one step per topology level, innermost
/// first, skipping levels whose groups are all single ranks, equal to those of the level
/// below, or a single group of everybody (the global step's). At level l, rank p sends partial row g (owner o) to the member of its own level-l
/// group G whose position in G is (position of o in o's level-l group) mod |G|, and every
/// receiver sums what it gets, so a row leaves each socket, then each node, at most once; at
/// the global level G is everybody and the row reaches o. Every rank's plan has the same
/// number of steps. Same inputs and throws as direct_reduction_plans.
std::vector<comm::ExchangePlan> hierarchical_reduction_plans(
    const std::vector<std::vector<size_type>>& footprints, const std::vector<size_type>& row_offsets,
    const comm::Topology& topology);

/// Runs every rank's plan serially on one process (a model of the exchange, no MPI):
/// inputs[p] has plans[p].in_rows() rows of width w (row-major); returns each rank's output.
/// For checking plans in tests and for counting volumes without running MPI.
std::vector<std::vector<double>> simulate_plans(const std::vector<comm::ExchangePlan>& plans,
                                                const std::vector<std::vector<double>>& inputs,
                                                size_type width);

}  // namespace tessel::partition
