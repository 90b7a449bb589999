// Permutations of rows and columns: order[new position] = old index.
#pragma once

#include <cstdint>
#include <vector>

#include "core/formats/csr.hpp"
#include "core/types.hpp"

namespace tessel::partition {

/// order[new] = old: the new position `new` holds what was at `old`.
using Permutation = std::vector<size_type>;

/// The identity of size n.
Permutation identity_permutation(size_type n);
/// A uniformly random permutation of size n (deterministic for a seed).
Permutation random_permutation(size_type n, std::uint64_t seed);
/// True when `order` holds every index 0 .. n-1 exactly once.
bool is_permutation(const Permutation& order);
/// position[old] = new. Throws InvalidInput unless `order` is a permutation.
Permutation inverse(const Permutation& order);

/// B = P·A·Qᵀ: row i of B is row row_order[i] of A, and column j of A becomes column
/// inverse(col_order)[j] of B (columns sorted in each row). An empty order means identity.
/// Throws InvalidInput when an order is not a permutation of the right size.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> permute(const Csr<ValueType, IndexType>& a, const Permutation& row_order,
                                  const Permutation& col_order);

}  // namespace tessel::partition
