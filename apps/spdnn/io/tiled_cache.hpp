// The layers of a network cache stored as the kernels take them (Wᵀ in tiled ELL, converted
// once by the generator): streaming from disk then only reads, it converts nothing.
#pragma once

#include <cstdint>
#include <string>

#include "apps/spdnn/network/layer_weights.hpp"
#include "apps/spdnn/network/network.hpp"
#include "io/hdf5_file.hpp"

namespace tessel::spdnn {

/// The group of the stored layers, the "format" attribute of that group, and its version.
inline constexpr const char* tiled_group = "/tiled";
extern const char* const tiled_cache_format;
inline constexpr std::int64_t tiled_cache_version = 1;

/// "/tiled/layer{k+1}" (k 0-based; the group names are 1-based like the layer files).
std::string tiled_layer_group(size_type k);

/// 64-bit checksum of a stored layer: its sizes and every array (the order included).
std::uint64_t tiled_layer_checksum(const PreparedLayer& layer);

/// Writes layer k (0-based) into /tiled/layer{k+1}: datasets buffdispl, mapdispl, warpdispl
/// (int64), map (int32), index (uint16), values (float32), order (int32, only when the rows
/// are reordered), attributes rows, cols, nnz and checksum. Throws Hdf5Error.
void write_tiled_layer(io::File& file, size_type k, const PreparedLayer& layer);

/// The attributes of /tiled, written after the last layer (a group without them is refused):
/// format, version, neurons, layers, block_rows, buffer_entries, warp_size, reorder
/// ("locality" or "none"), value_type "float32", index_type "int32", local_index_type "uint16".
void write_tiled_header(io::File& file, size_type neurons, size_type layers, const WeightLayout& layout);

/// Whether streaming can read the stored layers of `path` for `wanted`.
struct StoredTiled {
    bool usable = false;
    /// Why not (the note printed before converting while streaming); empty when usable.
    std::string why_not;
};

/// Looks at /tiled of a network cache of N neurons and L layers: absent, or converted with
/// other options than `wanted` (block_rows, buffer_entries, reorder, value or index type):
/// not usable, with the reason. Throws InvalidInput "path:/tiled: ..." when the group is
/// there but its attributes are missing or wrong (format, version, another N or L).
StoredTiled probe_stored_tiled(const std::string& path, size_type neurons, size_type layers,
                               const WeightLayout& wanted);

/// Layer k (0-based) of the stored tiled ELL of an open cache whose /tiled was accepted by
/// probe_stored_tiled for `layout` and N = neurons. Sizes are checked against each other, the
/// memory and the index range before anything is allocated; then the checksum (unless
/// verify_checksum is false: the fuzzer, so that it reaches the next checks); then every
/// offset, column and local index and the order. Throws InvalidInput "file:/tiled/layer7/map:
/// column 70000 at 12 outside 0..65535", "...layer7: checksum mismatch (the layer was torn or
/// edited)", "...: attribute 'nnz' not found", OutOfMemoryBudget.
PreparedLayer read_tiled_layer(const io::File& file, size_type k, size_type neurons, const WeightLayout& layout,
                               bool verify_checksum = true);

}  // namespace tessel::spdnn
