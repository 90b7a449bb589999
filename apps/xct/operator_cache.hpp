// --operator-cache DIR: A and Aᵀ in tiled ELL stored under a key of everything that determines
// them, and reused by later runs with the same geometry. Written under a temporary name and
// renamed, so a reader sees a whole file or none; a file that is truncated, corrupt (checksum)
// or written for another operator is rebuilt with one note, never trusted. A trusted file is
// mapped and its slot arrays used in place (SlotArray views), not copied into fresh memory.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "apps/xct/ordering.hpp"
#include "apps/xct/projector.hpp"
#include "apps/xct/tiled_system_matrix.hpp"

namespace tessel::xct {

/// Bumped whenever the file layout or the operator a geometry gives changes.
inline constexpr int operator_cache_version = 2;

/// The key: format version, image size, channels, every angle's bits, order and tile, block
/// and buffer sizes, value type and half storage, transpose form. (The rotation centre is not
/// in it: the sinogram is shifted, A never sees it.) file_name() is "xct-op-<hash>.bin".
struct OperatorCacheKey {
    std::string text;
    std::string file_name() const;
};
OperatorCacheKey operator_cache_key(const Geometry& geometry, const Ordering& ordering, const ProjectorOptions& options,
                                    int value_bytes);
/// The same key from the order's kind and tile (all the key takes of an Ordering), for the plan.
OperatorCacheKey operator_cache_key(const Geometry& geometry, DomainOrder order, size_type tile,
                                    const ProjectorOptions& options, int value_bytes);

/// Whether `dir` holds a file under this key (not checked yet: a damaged one is rebuilt when
/// it is loaded). --transpose auto counts no build for a form found here.
bool operator_cache_has(const std::string& dir, const OperatorCacheKey& key);

/// Writes A (and Aᵀ unless `at` is null) with the key to `path` via a temporary file in the
/// same folder and a rename. Throws InvalidInput when the folder cannot be written.
template <typename ValueType>
void save_tiled_operators(const std::string& path, const OperatorCacheKey& key, const TiledEll<ValueType, Index>& a,
                          const TiledEll<ValueType, Index>* at);

/// Reads what save_tiled_operators wrote. nullopt when the file is missing (why_not empty) or
/// cannot be trusted (why_not says why: truncated, checksum, another key, not a cache file).
template <typename ValueType>
std::optional<TiledOperators<ValueType>> load_tiled_operators(const std::string& path, const OperatorCacheKey& key,
                                                              bool with_transpose, std::string& why_not);

/// make_local_projector (tiled ELL) through the cache in `dir`: loaded when a trusted file is
/// there, else built and stored. Notes go to `log` ("operator: loaded from ...", or why a file
/// was rebuilt). Throws what the build and save_tiled_operators throw.
template <typename ValueType>
std::unique_ptr<LocalProjector<ValueType>> cached_local_projector(const std::string& dir, const Geometry& geometry,
                                                                  const Ordering& ordering,
                                                                  const ProjectorOptions& options, PhaseTimes* times,
                                                                  std::ostream& log, bool talk);

}  // namespace tessel::xct
