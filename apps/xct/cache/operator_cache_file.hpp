// The operator cache's file (operator_cache.hpp): A and Aᵀ under a key, written under a
// temporary name and renamed, read back mapped and checked whole (length, key, checksum, the
// arrays' structure) before anything is used. No MPI here: the fuzzer links it alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "apps/xct/operator/tiled_system_matrix.hpp"

namespace tessel::xct {

/// Bumped whenever the file layout or the operator a geometry gives changes.
/// 3: a ray taken as parallel to an axis on a grid line keeps one pixel row (90°, 180°).
inline constexpr int operator_cache_version = 3;

/// The key: format version, image size, channels, every angle's bits, order and tile, block
/// and buffer sizes, value type and half storage, transpose form. (The rotation centre is not
/// in it: the sinogram is shifted, A never sees it.) file_name() is "xct-op-<hash>.bin".
struct OperatorCacheKey {
    std::string text;
    std::string file_name() const;
};
/// The checksum a cache file ends with, of its bytes between the magic and the checksum (XXH3
/// of 8 MiB chunks in parallel, then of their hashes): for tools that write or repair files.
std::uint64_t operator_cache_checksum(const unsigned char* body, std::size_t bytes);

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

}  // namespace tessel::xct
