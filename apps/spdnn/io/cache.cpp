// HDF5 caches: /layers/{offsets,row_ptr,col,val} and /images/{row_ptr,col,val}, with the
// format, N, L, counts, the checksum and the sources' signature as attributes of "/".
#include "apps/spdnn/io/cache.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/error.hpp"
#include "io/hdf5_file.hpp"

namespace tessel::spdnn {

namespace fs = std::filesystem;

const char* const network_cache_format = "tessel-spdnn network cache";
const char* const images_cache_format = "tessel-spdnn images cache";

namespace {


std::uint64_t mix64(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

template <typename T>
std::uint64_t checksum_of(const std::vector<T>& v, std::uint64_t seed) {
    return checksum(v.data(), v.size() * sizeof(T), seed);
}

std::uint64_t csr_checksum(const std::vector<size_type>& rp, const std::vector<Index>& col,
                           const std::vector<Value>& val) {
    std::uint64_t h = checksum_of(rp, 1);
    h = checksum_of(col, h);
    return checksum_of(val, h);
}

std::string hashed_name(const std::string& source, const std::string& name) {
    std::error_code ec;
    auto abs = fs::absolute(source, ec).lexically_normal().string();
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx",
                  static_cast<unsigned long long>(checksum(abs.data(), abs.size(), 7)));
    return std::string(hex).substr(0, 12) + "-" + name;
}

// "why" when a cache is unusable: the caller rebuilds it.
struct Stale {
    std::string why;
};

}  // namespace

std::uint64_t checksum_block(const void* data, std::size_t bytes, std::size_t b) {
    const auto* p = static_cast<const unsigned char*>(data);
    std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ b;
    std::size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + i, 8);
        h = (h ^ mix64(w)) * 0x100000001b3ULL;
    }
    std::uint64_t tail = 0;
    std::memcpy(&tail, p + i, bytes - i);
    return mix64(h ^ mix64(tail ^ (bytes - i)));
}

std::uint64_t checksum_fold(const std::vector<std::uint64_t>& blocks, std::size_t bytes, std::uint64_t seed) {
    std::uint64_t h = mix64(seed ^ bytes);
    for (auto x : blocks) h = mix64(h ^ x) * 0x9e3779b97f4a7c15ULL;
    return h;
}

std::uint64_t checksum(const void* data, std::size_t bytes, std::uint64_t seed) {
    const auto* p = static_cast<const unsigned char*>(data);
    const std::size_t blocks = (bytes + checksum_block_bytes - 1) / checksum_block_bytes;
    std::vector<std::uint64_t> part(blocks);
#pragma omp parallel for schedule(static)
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t begin = b * checksum_block_bytes, end = std::min(bytes, begin + checksum_block_bytes);
        part[b] = checksum_block(p + begin, end - begin, b);
    }
    return checksum_fold(part, bytes, seed);
}

std::string source_signature(const std::vector<std::string>& files) {
    std::string sig;
    for (const auto& f : files) {
        std::error_code ec;
        const auto size = fs::file_size(f, ec);
        const auto time = fs::last_write_time(f, ec);
        sig += fs::path(f).filename().string() + ":" + std::to_string(ec ? 0 : size) + ":" +
               std::to_string(ec ? 0 : time.time_since_epoch().count()) + ";";
    }
    return sig;
}

std::string network_cache_path(const std::string& layer_dir, size_type neurons, size_type layers,
                               const CacheOptions& options) {
    const std::string name = "n" + std::to_string(neurons) + "-l" + std::to_string(layers) + ".tessel.h5";
    if (options.dir.empty()) return (fs::path(layer_dir) / name).string();
    return (fs::path(options.dir) / hashed_name(layer_dir, name)).string();
}

std::string images_cache_path(const std::string& images, size_type neurons, size_type num_images,
                              const CacheOptions& options) {
    std::string name = fs::path(images).filename().string() + ".n" + std::to_string(neurons);
    if (num_images > 0) name += ".m" + std::to_string(num_images);
    name += ".tessel.h5";
    if (options.dir.empty()) return (fs::path(images).parent_path() / name).string();
    return (fs::path(options.dir) / hashed_name(images, name)).string();
}

void write_network_cache(const std::string& path, const Network& network, const std::string& signature) {
    const size_type n = network.neurons, layers = network.layer_count();
    std::vector<std::int64_t> offsets(layers + 1, 0);
    for (size_type k = 0; k < layers; ++k) offsets[k + 1] = offsets[k] + network.layers[k].nnz();
    std::vector<std::int64_t> row_ptr(static_cast<std::size_t>(layers * (n + 1)));
    std::vector<Index> col(offsets.back());
    std::vector<Value> val(offsets.back());
    for (size_type k = 0; k < layers; ++k) {
        const auto& w = network.layers[k];
        std::copy(w.row_ptr().begin(), w.row_ptr().end(), row_ptr.begin() + k * (n + 1));
        std::copy(w.col_idx().begin(), w.col_idx().end(), col.begin() + offsets[k]);
        std::copy(w.values().begin(), w.values().end(), val.begin() + offsets[k]);
    }
    auto file = io::File::create(path);
    file.write<std::int64_t>("/layers/offsets", {layers + 1}, offsets.data());
    file.write<std::int64_t>("/layers/row_ptr", {layers, n + 1}, row_ptr.data());
    file.write<std::int32_t>("/layers/col", {offsets.back()}, col.data());
    file.write<float>("/layers/val", {offsets.back()}, val.data());
    std::uint64_t h = checksum_of(offsets, 1);
    h = checksum_of(row_ptr, h);
    h = checksum_of(col, h);
    h = checksum_of(val, h);
    write_network_cache_header(file, n, layers, h, signature);
    file.commit();
}

void write_network_cache_header(io::File& file, std::int64_t neurons, std::int64_t layers, std::uint64_t checksum,
                                const std::string& sources) {
    file.write_attribute("/", "format", network_cache_format);
    file.write_attribute<std::int64_t>("/", "version", cache_version);
    file.write_attribute<std::int64_t>("/", "neurons", neurons);
    file.write_attribute<std::int64_t>("/", "layers", layers);
    file.write_attribute<std::uint64_t>("/", "checksum", checksum);
    file.write_attribute("/", "sources", sources);
}

namespace {

void check_header(const io::File& file, const char* format, size_type neurons) {
    if (!file.has_attribute("/", "format") || file.read_string_attribute("/", "format") != format)
        throw Stale{"not a " + std::string(format)};
    if (file.read_attribute<std::int64_t>("/", "version") != cache_version) throw Stale{"older cache version"};
    if (file.read_attribute<std::int64_t>("/", "neurons") != neurons) throw Stale{"made for another N"};
}

Network read_network_cache_or_stale(const std::string& path, size_type neurons, size_type layers,
                                    Value bias, const std::string* signature) {
    auto file = io::File::open(path);
    check_header(file, network_cache_format, neurons);
    if (file.read_attribute<std::int64_t>("/", "layers") != layers) throw Stale{"made for another L"};
    if (signature && file.read_string_attribute("/", "sources") != *signature)
        throw Stale{"the source files changed"};
    auto offsets = file.read<std::int64_t>("/layers/offsets");
    auto row_ptr = file.read<std::int64_t>("/layers/row_ptr");
    auto col = file.read<std::int32_t>("/layers/col");
    auto val = file.read<float>("/layers/val");
    if (static_cast<size_type>(offsets.size()) != layers + 1 ||
        static_cast<size_type>(row_ptr.size()) != layers * (neurons + 1) || offsets.front() != 0 ||
        offsets.back() != static_cast<std::int64_t>(col.size()) || col.size() != val.size())
        throw Stale{"sizes do not agree"};
    std::uint64_t h = checksum_of(offsets, 1);
    h = checksum_of(row_ptr, h);
    h = checksum_of(col, h);
    h = checksum_of(val, h);
    if (h != file.read_attribute<std::uint64_t>("/", "checksum")) throw Stale{"checksum mismatch"};
    Network net;
    net.neurons = neurons;
    net.bias = bias;
    net.layers.resize(layers);
    for (size_type k = 0; k < layers; ++k) {
        std::vector<size_type> rp(row_ptr.begin() + k * (neurons + 1), row_ptr.begin() + (k + 1) * (neurons + 1));
        const size_type nnz = offsets[k + 1] - offsets[k];
        if (rp.front() != 0 || rp.back() != nnz) throw Stale{"sizes do not agree"};
        std::vector<Index> c(col.begin() + offsets[k], col.begin() + offsets[k + 1]);
        std::vector<Value> v(val.begin() + offsets[k], val.begin() + offsets[k + 1]);
        try {
            net.layers[k] = Layer(neurons, neurons, std::move(rp), std::move(c), std::move(v), path);
        } catch (const InvalidInput& e) {
            throw Stale{e.message()};
        }
    }
    return net;
}

}  // namespace

Network read_network_cache(const std::string& path, size_type neurons, size_type layers, Value bias) {
    try {
        return read_network_cache_or_stale(path, neurons, layers, bias, nullptr);
    } catch (const Stale& s) {
        TESSEL_INVALID_INPUT(path, 0, "not a usable network cache: " + s.why);
    }
}

Layer read_cached_layer(const std::string& path, size_type k) {
    auto file = io::File::open(path);
    const size_type n = file.read_attribute<std::int64_t>("/", "neurons");
    const size_type layers = file.read_attribute<std::int64_t>("/", "layers");
    if (k < 0 || k >= layers) TESSEL_INVALID_INPUT(path, 0, "no layer " + std::to_string(k + 1));
    auto off = file.read_slab<std::int64_t>("/layers/offsets", {{k}, {2}});
    auto rp = file.read_slab<std::int64_t>("/layers/row_ptr", {{k, 0}, {1, n + 1}});
    auto col = file.read_slab<std::int32_t>("/layers/col", {{off[0]}, {off[1] - off[0]}});
    auto val = file.read_slab<float>("/layers/val", {{off[0]}, {off[1] - off[0]}});
    return Layer(n, n, std::vector<size_type>(rp.begin(), rp.end()), std::move(col), std::move(val), path);
}

void write_images_cache(const std::string& path, const Images& images, size_type requested,
                        const std::string& signature) {
    auto file = io::File::create(path);
    std::vector<std::int64_t> rp(images.row_ptr().begin(), images.row_ptr().end());
    file.write<std::int64_t>("/images/row_ptr", {images.rows() + 1}, rp.data());
    file.write<std::int32_t>("/images/col", {images.nnz()}, images.col_idx().data());
    file.write<float>("/images/val", {images.nnz()}, images.values().data());
    file.write_attribute("/", "format", images_cache_format);
    file.write_attribute<std::int64_t>("/", "version", cache_version);
    file.write_attribute<std::int64_t>("/", "neurons", images.cols());
    file.write_attribute<std::int64_t>("/", "images", images.rows());
    file.write_attribute<std::int64_t>("/", "requested", requested);
    file.write_attribute<std::uint64_t>("/", "checksum",
                                        csr_checksum(images.row_ptr(), images.col_idx(), images.values()));
    file.write_attribute("/", "sources", signature);
    file.commit();
}

namespace {

Images read_images_cache_or_stale(const std::string& path, size_type neurons, size_type requested,
                                  const std::string* signature) {
    auto file = io::File::open(path);
    check_header(file, images_cache_format, neurons);
    if (requested != any_image_count && file.read_attribute<std::int64_t>("/", "requested") != requested)
        throw Stale{"made for another image count"};
    if (signature && file.read_string_attribute("/", "sources") != *signature)
        throw Stale{"the source file changed"};
    const size_type m = file.read_attribute<std::int64_t>("/", "images");
    auto rp64 = file.read<std::int64_t>("/images/row_ptr");
    auto col = file.read<std::int32_t>("/images/col");
    auto val = file.read<float>("/images/val");
    std::vector<size_type> rp(rp64.begin(), rp64.end());
    if (static_cast<size_type>(rp.size()) != m + 1 || col.size() != val.size() ||
        rp.back() != static_cast<size_type>(col.size()))
        throw Stale{"sizes do not agree"};
    if (csr_checksum(rp, col, val) != file.read_attribute<std::uint64_t>("/", "checksum"))
        throw Stale{"checksum mismatch"};
    try {
        return Images(m, neurons, std::move(rp), std::move(col), std::move(val), path);
    } catch (const InvalidInput& e) {
        throw Stale{e.message()};
    }
}

template <typename Load, typename Parse, typename Write>
auto through_cache(const std::string& cache, const CacheOptions& options, CacheReport* report, Load&& load,
                   Parse&& parse, Write&& write) {
    CacheReport r;
    r.path = options.enabled ? cache : std::string();
    if (options.enabled && fs::exists(cache)) {
        try {
            auto value = load();
            r.hit = true;
            if (report) *report = r;
            return value;
        } catch (const Stale& s) {
            r.note = "cache " + cache + " rebuilt: " + s.why;
        } catch (const Error& e) {
            r.note = "cache " + cache + " rebuilt: " + e.message();
        }
    }
    auto value = parse();
    if (options.enabled) {
        try {
            if (!options.dir.empty()) fs::create_directories(options.dir);
            write(value);
            r.written = true;
        } catch (const std::exception& e) {
            r.note += std::string(r.note.empty() ? "" : "; ") + "cache not written: " + e.what();
        }
    }
    if (report) *report = r;
    return value;
}

}  // namespace

Images read_images_cache(const std::string& path, size_type neurons, size_type requested) {
    try {
        return read_images_cache_or_stale(path, neurons, requested, nullptr);
    } catch (const Stale& s) {
        TESSEL_INVALID_INPUT(path, 0, "not a usable images cache: " + s.why);
    }
}

Network load_network(const std::string& layer_dir, size_type neurons, size_type layers, Value bias,
                     const CacheOptions& options, CacheReport* report) {
    if (neurons < 1) TESSEL_INVALID_INPUT("--neurons", 0, "must be positive");
    if (layers < 1) TESSEL_INVALID_INPUT("--layers", 0, "must be positive");
    if (!fs::is_directory(layer_dir)) TESSEL_INVALID_INPUT(layer_dir, 0, "network directory not found");
    if (auto generated = generated_network_cache(layer_dir, neurons, layers); !generated.empty()) {
        if (report) *report = CacheReport{generated, true, false, "generated, no text files"};
        return read_network_cache(generated, neurons, layers, bias);
    }
    std::vector<std::string> files(layers);
    for (size_type k = 0; k < layers; ++k) files[k] = layer_file(layer_dir, neurons, k + 1, layers);
    const std::string signature = source_signature(files);
    const std::string cache = network_cache_path(layer_dir, neurons, layers, options);
    return through_cache(
        cache, options, report,
        [&] { return read_network_cache_or_stale(cache, neurons, layers, bias, &signature); },
        [&] { return read_network(layer_dir, neurons, layers, bias); },
        [&](const Network& net) { write_network_cache(cache, net, signature); });
}

Images load_images(const std::string& path, size_type neurons, size_type num_images,
                   const CacheOptions& options, CacheReport* report) {
    if (!fs::exists(path)) {
        const std::string generated = images_cache_path(path, neurons, 0, CacheOptions{});
        if (num_images > 0 || !fs::exists(generated)) TESSEL_INVALID_INPUT(path, 0, "images file not found");
        if (report) *report = CacheReport{generated, true, false, "generated, no text file"};
        return read_images_cache(generated, neurons, 0);
    }
    if (io::File::is_hdf5(path)) {
        // The binary cache itself (what `generate --binary` writes beside the network) given as
        // --images: read as the cache it is, not as text.
        if (report) *report = CacheReport{path, true, false, "the binary images cache, given as --images"};
        Images images = read_images_cache(path, neurons, any_image_count);
        if (num_images > 0 && images.rows() != num_images)
            TESSEL_INVALID_INPUT(path, 0, "the images cache holds " + std::to_string(images.rows()) + " images, not the " +
                                              std::to_string(num_images) + " of --num-images");
        return images;
    }
    const std::string signature = source_signature({path});
    const std::string cache = images_cache_path(path, neurons, num_images, options);
    return through_cache(
        cache, options, report, [&] { return read_images_cache_or_stale(cache, neurons, num_images, &signature); },
        [&] { return read_images(path, neurons, num_images); },
        [&](const Images& images) { write_images_cache(cache, images, num_images, signature); });
}

std::string generated_network_cache(const std::string& layer_dir, size_type neurons, size_type layers) {
    const std::string cache = network_cache_path(layer_dir, neurons, layers, CacheOptions{});
    const std::string first = layer_file_name(layer_dir, neurons, 1);
    const bool text = fs::exists(first) || fs::exists(fs::path(first).replace_extension(".mtx"));
    return !text && fs::exists(cache) ? cache : std::string();
}

std::string prepare_network_cache(const std::string& layer_dir, size_type neurons, size_type layers, Value bias,
                                  const CacheOptions& options, CacheReport* report) {
    if (!options.enabled) TESSEL_INVALID_INPUT("--stream-source", 0, "disk streams from the binary cache; drop --no-cache");
    if (auto generated = generated_network_cache(layer_dir, neurons, layers); !generated.empty()) {
        if (report) *report = CacheReport{generated, true, false, "generated, no text files"};
        return generated;
    }
    // A cache made from the text files: current when its signature matches them (its sizes
    // are checked when it is opened for streaming, its values by each layer's checks).
    const std::string cache = network_cache_path(layer_dir, neurons, layers, options);
    if (fs::exists(cache)) {
        std::vector<std::string> files(layers);
        for (size_type k = 0; k < layers; ++k) files[k] = layer_file(layer_dir, neurons, k + 1, layers);
        try {
            auto file = io::File::open(cache);
            if (file.has_attribute("/", "sources") &&
                file.read_string_attribute("/", "sources") == source_signature(files)) {
                if (report) *report = CacheReport{cache, true, false, ""};
                return cache;
            }
        } catch (const Error&) {
            // unreadable: rebuilt below
        }
    }
    CacheReport built;
    load_network(layer_dir, neurons, layers, bias, options, &built);  // parses and writes the cache
    if (!built.written && !built.hit)
        TESSEL_INVALID_INPUT(cache, 0, "cannot stream from disk: the binary cache could not be written (" +
                                           built.note + ")");
    built.note += std::string(built.note.empty() ? "" : "; ") +
                  "built from the text files first, so the whole network was in memory once: run again for the "
                  "streaming peak";
    if (report) *report = built;
    return built.path;
}

}  // namespace tessel::spdnn
