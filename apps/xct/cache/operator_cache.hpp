// --operator-cache DIR: A and Aᵀ in tiled ELL stored under a key of everything that determines
// them, and reused by later runs with the same geometry. Written under a temporary name and
// renamed, so a reader sees a whole file or none; a file that is truncated, corrupt (checksum)
// or written for another operator is rebuilt with one note, never trusted. A trusted file is
// mapped and its slot arrays used in place (SlotArray views), not copied into fresh memory.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "apps/xct/cache/operator_cache_file.hpp"
#include "apps/xct/operator/ordering.hpp"
#include "apps/xct/operator/projector.hpp"
#include "apps/xct/operator/tiled_system_matrix.hpp"

namespace tessel::xct {

/// The key of the operator a run with this geometry, ordering and options builds.
OperatorCacheKey operator_cache_key(const Geometry& geometry, const Ordering& ordering, const ProjectorOptions& options,
                                    int value_bytes);
/// The same key from the order's kind and tile (all the key takes of an Ordering), for the plan.
OperatorCacheKey operator_cache_key(const Geometry& geometry, DomainOrder order, size_type tile,
                                    const ProjectorOptions& options, int value_bytes);

/// Whether `dir` holds a file under this key (not checked yet: a damaged one is rebuilt when
/// it is loaded). --transpose auto counts no build for a form found here.
bool operator_cache_has(const std::string& dir, const OperatorCacheKey& key);

/// make_local_projector (tiled ELL) through the cache in `dir`: loaded when a trusted file is
/// there, else built and stored. Notes go to `log` ("operator: loaded from ...", or why a file
/// was rebuilt). Throws what the build and save_tiled_operators throw.
template <typename ValueType>
std::unique_ptr<LocalProjector<ValueType>> cached_local_projector(const std::string& dir, const Geometry& geometry,
                                                                  const Ordering& ordering,
                                                                  const ProjectorOptions& options, PhaseTimes* times,
                                                                  std::ostream& log, bool talk);

}  // namespace tessel::xct
