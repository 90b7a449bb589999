// Binary (HDF5) cache of the parsed TSV files: written on the first read next to the inputs or
// in a cache folder, loaded later after checking its sizes, its checksum and the sources.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apps/spdnn/network/network.hpp"
#include "io/hdf5_file.hpp"

namespace tessel::spdnn {

struct CacheOptions {
    bool enabled = true;
    /// Folder for cache files; empty: next to the inputs (the network cache in the layer
    /// folder, the images cache beside the images file).
    std::string dir;
};

/// What happened with a cache file.
struct CacheReport {
    std::string path;
    bool hit = false;      // loaded from the cache
    bool written = false;  // built from the sources and written
    std::string note;      // why it was rebuilt, or why it could not be written
};

/// 64-bit checksum of a byte range (word-wise multiply-xorshift, blocks in parallel).
std::uint64_t checksum(const void* data, std::size_t bytes, std::uint64_t seed = 0);

/// The parts of checksum(), for data that arrives in pieces (ChecksumStream): the hash of
/// block b (checksum_block_bytes long, the last one shorter), and the fold of the blocks'
/// hashes for `bytes` bytes in all.
inline constexpr std::size_t checksum_block_bytes = std::size_t(1) << 20;
std::uint64_t checksum_block(const void* data, std::size_t bytes, std::size_t b);
std::uint64_t checksum_fold(const std::vector<std::uint64_t>& blocks, std::size_t bytes, std::uint64_t seed);

/// The "format" and "version" attributes of the cache files.
extern const char* const network_cache_format;
extern const char* const images_cache_format;
inline constexpr std::int64_t cache_version = 1;

/// The root attributes of a network cache (format, version, sizes, checksum, sources), written
/// last by both writers so that a cache without them is never taken as finished.
void write_network_cache_header(io::File& file, std::int64_t neurons, std::int64_t layers, std::uint64_t checksum,
                                const std::string& sources);

/// "size:mtime" of each source file, joined: a change in any file changes the signature.
std::string source_signature(const std::vector<std::string>& files);

/// Cache file names: `layer_dir`/n{N}-l{L}.tessel.h5 and `images`.tessel.h5, or the same
/// names with a hash of the source path in options.dir.
std::string network_cache_path(const std::string& layer_dir, size_type neurons, size_type layers,
                               const CacheOptions& options);
std::string images_cache_path(const std::string& images, size_type neurons, size_type num_images,
                              const CacheOptions& options);

/// The network of `layer_dir` (read_network): from the cache when it is valid (same N and L,
/// same source files, sizes consistent, checksum right), else parsed from the files and the
/// cache (re)written. A cache that cannot be written is reported in `report`, not thrown.
/// Throws InvalidInput for missing or bad source files.
Network load_network(const std::string& layer_dir, size_type neurons, size_type layers, Value bias,
                     const CacheOptions& options, CacheReport* report = nullptr);

/// The images (read_images) through the cache like load_network.
Images load_images(const std::string& path, size_type neurons, size_type num_images,
                   const CacheOptions& options, CacheReport* report = nullptr);

/// The cache file of a generated network with no text files (tessel-spdnn generate
/// --binary writes layer_dir/n{N}-l{L}.tessel.h5 alone), or "" when the layer files exist or
/// there is no such cache. load_network and load_images read such generated caches directly.
std::string generated_network_cache(const std::string& layer_dir, size_type neurons, size_type layers);

/// For streaming from disk: the path of a current network cache, without loading the network
/// when one exists (generated, or made from text files that have not changed); otherwise the
/// cache is built by load_network (the whole network in memory once; `report` says so).
/// Throws InvalidInput when caching is off or the cache cannot be written.
std::string prepare_network_cache(const std::string& layer_dir, size_type neurons, size_type layers, Value bias,
                                  const CacheOptions& options, CacheReport* report = nullptr);

/// Writes / reads a network cache directly (tests, streaming from disk).
void write_network_cache(const std::string& path, const Network& network, const std::string& signature);
/// Reads the whole cache; throws InvalidInput "path: ..." when it is not a valid network
/// cache of N neurons and L layers (wrong format, sizes or checksum).
Network read_network_cache(const std::string& path, size_type neurons, size_type layers, Value bias);
/// Reads layer k (0-based) of a network cache (no checksum: used for streaming from disk).
Layer read_cached_layer(const std::string& path, size_type k);

void write_images_cache(const std::string& path, const Images& images, size_type requested,
                        const std::string& signature);
Images read_images_cache(const std::string& path, size_type neurons, size_type requested);
/// read_images_cache for whatever image count the cache was made for.
inline constexpr size_type any_image_count = -1;

}  // namespace tessel::spdnn
