// The operator cache's file: magic, version, key, the tiled ELL arrays (count + bytes each), a
// checksum of everything after the magic. Read fully and checked before anything is used.
#include "apps/xct/operator_cache.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/timer.hpp"

namespace tessel::xct {

namespace {

constexpr char magic[8] = {'T', 'E', 'S', 'S', 'X', 'C', 'T', 'O'};

std::uint64_t fnv(const std::string& text) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char ch : text) h = (h ^ ch) * 1099511628211ull;
    return h;
}

// A 64-bit checksum of a byte stream, folded a word at a time (fast on GiB operators).
struct Checksum {
    std::uint64_t h = 1469598103934665603ull;
    void add(const void* data, std::size_t bytes) {
        const auto* p = static_cast<const unsigned char*>(data);
        std::size_t i = 0;
        for (; i + 8 <= bytes; i += 8) {
            std::uint64_t w;
            std::memcpy(&w, p + i, 8);
            h = (h ^ w) * 1099511628211ull;
            h ^= h >> 29;
        }
        for (; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
    }
};

class Writer {
public:
    explicit Writer(const std::string& path) : out_(path, std::ios::binary) {}
    void raw(const void* data, std::size_t bytes) {
        out_.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
        sum_.add(data, bytes);
    }
    void u64(std::uint64_t v) { raw(&v, 8); }
    template <typename Vector>
    void array(const Vector& v) {
        u64(v.size());
        raw(v.data(), v.size() * sizeof(v[0]));
    }
    bool finish() {
        out_.write(reinterpret_cast<const char*>(&sum_.h), 8);
        out_.close();
        return bool(out_);
    }
    std::ofstream& stream() { return out_; }

private:
    std::ofstream out_;
    Checksum sum_;
};

// Reads with bounds: every count is checked against the bytes left before allocating.
class Reader {
public:
    Reader(const std::string& path) : in_(path, std::ios::binary) {
        if (in_) {
            in_.seekg(0, std::ios::end);
            left_ = static_cast<std::uint64_t>(in_.tellg());
            in_.seekg(0);
        }
    }
    bool open() const { return bool(in_); }
    void raw(void* data, std::uint64_t bytes) {
        if (bytes > left_) throw std::runtime_error("truncated");
        in_.read(static_cast<char*>(data), static_cast<std::streamsize>(bytes));
        if (!in_) throw std::runtime_error("truncated");
        left_ -= bytes;
        sum_.add(data, bytes);
    }
    std::uint64_t u64() {
        std::uint64_t v = 0;
        raw(&v, 8);
        return v;
    }
    template <typename Vector>
    void array(Vector& v) {
        const std::uint64_t count = u64();
        if (count > left_ / sizeof(v[0])) throw std::runtime_error("truncated");
        v.resize(count);
        raw(v.data(), count * sizeof(v[0]));
    }
    void check_end() {
        const std::uint64_t expected = sum_.h;
        std::uint64_t stored = 0;
        if (left_ != 8) throw std::runtime_error(left_ < 8 ? "truncated" : "trailing bytes");
        in_.read(reinterpret_cast<char*>(&stored), 8);
        if (!in_ || stored != expected) throw std::runtime_error("checksum mismatch (corrupt)");
    }
    Checksum& sum() { return sum_; }

private:
    std::ifstream in_;
    std::uint64_t left_ = 0;
    Checksum sum_;
};

template <typename V>
void write_matrix(Writer& w, const TiledEll<V, Index>& m) {
    for (auto v : {m.rows, m.cols, m.nnz, m.config.block_rows, m.config.buffer_entries}) w.u64(std::uint64_t(v));
    w.array(m.buffdispl);
    w.array(m.mapdispl);
    w.array(m.map);
    w.array(m.warpdispl);
    w.array(m.index);
    w.array(m.values);
    w.array(m.half_values);
}

template <typename V>
TiledEll<V, Index> read_matrix(Reader& r) {
    TiledEll<V, Index> m;
    m.rows = size_type(r.u64());
    m.cols = size_type(r.u64());
    m.nnz = size_type(r.u64());
    m.config.block_rows = size_type(r.u64());
    m.config.buffer_entries = size_type(r.u64());
    r.array(m.buffdispl);
    r.array(m.mapdispl);
    r.array(m.map);
    r.array(m.warpdispl);
    r.array(m.index);
    r.array(m.values);
    r.array(m.half_values);
    // The shapes must agree with each other (the checksum catches changed bytes, not a writer's bug).
    const bool values_ok = m.values.size() == m.index.size() || m.half_values.size() == m.index.size();
    if (m.buffdispl.empty() || m.mapdispl.empty() || m.warpdispl.empty() || !values_ok ||
        m.warpdispl.back() * TiledEll<V, Index>::warp_size != size_type(m.index.size()))
        throw std::runtime_error("inconsistent array sizes");
    return m;
}

}  // namespace

std::string OperatorCacheKey::file_name() const {
    char name[40];
    std::snprintf(name, sizeof(name), "xct-op-%016llx.bin", static_cast<unsigned long long>(fnv(text)));
    return name;
}

OperatorCacheKey operator_cache_key(const Geometry& g, const Ordering& ordering, const ProjectorOptions& o,
                                    int value_bytes) {
    std::string angles;
    for (double t : g.theta) {
        std::uint64_t bits;
        std::memcpy(&bits, &t, 8);
        angles += std::to_string(bits) + ",";
    }
    return {"version=" + std::to_string(operator_cache_version) + ";n=" + std::to_string(g.n) +
            ";channels=" + std::to_string(g.num_rho) + ";order=" + std::string(to_string(ordering.kind)) +
            ";tile=" + std::to_string(ordering.tile) + ";block_rows=" + std::to_string(o.tiles.block_rows) +
            ";buffer_entries=" + std::to_string(o.tiles.buffer_entries) + ";value_bytes=" +
            std::to_string(value_bytes) + ";half=" + std::to_string(o.half_values) +
            ";transpose=" + (o.scatter_transpose ? "scatter" : "stored") + ";data_ranks=1;angles=" + angles};
}

template <typename V>
void save_tiled_operators(const std::string& path, const OperatorCacheKey& key, const TiledEll<V, Index>& a,
                          const TiledEll<V, Index>* at) {
    static std::atomic<int> serial{0};
    const std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++);
    Writer w(temp);
    if (!w.stream()) TESSEL_INVALID_INPUT(path, 0, "operator cache: cannot write " + temp);
    w.stream().write(magic, sizeof(magic));
    w.u64(operator_cache_version);
    w.u64(sizeof(V));
    w.u64(key.text.size());
    w.raw(key.text.data(), key.text.size());
    w.u64(at ? 2 : 1);
    write_matrix(w, a);
    if (at) write_matrix(w, *at);
    std::error_code ec;
    if (!w.finish()) {
        std::filesystem::remove(temp, ec);
        TESSEL_INVALID_INPUT(path, 0, "operator cache: writing " + temp + " failed (disk full?)");
    }
    std::filesystem::rename(temp, path, ec);  // atomic: readers see the old file or the new one
    if (ec) TESSEL_INVALID_INPUT(path, 0, "operator cache: cannot rename " + temp + ": " + ec.message());
}

template <typename V>
std::optional<TiledOperators<V>> load_tiled_operators(const std::string& path, const OperatorCacheKey& key,
                                                      bool with_transpose, std::string& why_not) {
    why_not.clear();
    Reader r(path);
    if (!r.open()) return std::nullopt;
    try {
        char head[sizeof(magic)];
        r.raw(head, sizeof(head));
        if (std::memcmp(head, magic, sizeof(magic)) != 0) throw std::runtime_error("not an operator cache file");
        r.sum() = Checksum{};  // the checksum starts after the magic
        if (r.u64() != operator_cache_version) throw std::runtime_error("another format version");
        if (r.u64() != sizeof(V)) throw std::runtime_error("written for another operator (value type)");
        std::string text(static_cast<std::size_t>(std::min<std::uint64_t>(r.u64(), 1u << 26)), '\0');
        r.raw(text.data(), text.size());
        if (text != key.text) throw std::runtime_error("written for another operator (key differs)");
        const std::uint64_t count = r.u64();
        if (count != (with_transpose ? 2u : 1u)) throw std::runtime_error("written for another operator (transpose)");
        TiledOperators<V> ops;
        ops.a = read_matrix<V>(r);
        if (with_transpose) ops.at = read_matrix<V>(r);
        r.check_end();
        return ops;
    } catch (const std::runtime_error& e) {
        why_not = e.what();
    } catch (const std::bad_alloc&) {
        why_not = "sizes beyond memory (corrupt)";
    }
    return std::nullopt;
}

template <typename V>
std::unique_ptr<LocalProjector<V>> cached_local_projector(const std::string& dir, const Geometry& g,
                                                          const Ordering& ordering, const ProjectorOptions& options,
                                                          PhaseTimes* times, std::ostream& log, bool talk) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) TESSEL_INVALID_INPUT(dir, 0, "operator cache: cannot create folder: " + ec.message());
    const OperatorCacheKey key = operator_cache_key(g, ordering, options, int(sizeof(V)));
    const std::string path = (std::filesystem::path(dir) / key.file_name()).string();
    const bool with_transpose = !options.scatter_transpose;
    std::string why_not;
    Timer timer;
    auto loaded = load_tiled_operators<V>(path, key, with_transpose, why_not);
    if (loaded) {
        if (talk) log << "operator: loaded from " << path << " in " << timer.seconds() << " s\n";
        return std::make_unique<LocalProjector<V>>(std::move(loaded->a), std::move(loaded->at), options, times);
    }
    if (!why_not.empty()) std::fprintf(stderr, "tessel-xct: note: operator cache %s: %s; rebuilt\n", path.c_str(), why_not.c_str());
    TiledOperators<V> built;
    {
        PhaseTimes local;
        auto scope = (times ? *times : local).scope("build");
        built = build_tiled_operators<V>(g, ordering, options.tiles, options.half_values, with_transpose);
    }
    {
        PhaseTimes local;
        auto scope = (times ? *times : local).scope("cache");
        save_tiled_operators<V>(path, key, built.a, with_transpose ? &built.at : nullptr);
    }
    if (talk) log << "operator: stored in " << path << "\n";
    return std::make_unique<LocalProjector<V>>(std::move(built.a), std::move(built.at), options, times);
}

#define TESSEL_XCT_CACHE(V)                                                                                          \
    template void save_tiled_operators<V>(const std::string&, const OperatorCacheKey&, const TiledEll<V, Index>&,   \
                                          const TiledEll<V, Index>*);                                               \
    template std::optional<TiledOperators<V>> load_tiled_operators<V>(const std::string&, const OperatorCacheKey&,   \
                                                                      bool, std::string&);                          \
    template std::unique_ptr<LocalProjector<V>> cached_local_projector<V>(const std::string&, const Geometry&,       \
                                                                          const Ordering&, const ProjectorOptions&, \
                                                                          PhaseTimes*, std::ostream&, bool);
TESSEL_XCT_CACHE(float)
TESSEL_XCT_CACHE(double)
#undef TESSEL_XCT_CACHE

}  // namespace tessel::xct
