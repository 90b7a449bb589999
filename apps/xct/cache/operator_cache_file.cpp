// The operator cache's file: magic, version, the file's length, value size, key, the tiled
// ELL arrays (count, padding to 64 bytes, bytes each), a checksum of everything between the
// magic and itself. The file is mapped, checked whole (checksum, then the arrays' structure),
// and its slot arrays used in place.
#include "apps/xct/cache/operator_cache_file.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/error.hpp"
#include "core/formats/tiled_ell_check.hpp"
#include "io/mapped_file.hpp"

namespace tessel::xct {

namespace {

constexpr char magic[8] = {'T', 'E', 'S', 'S', 'X', 'C', 'T', 'O'};
constexpr std::size_t array_alignment = 64;
constexpr std::size_t length_offset = sizeof(magic) + 8;  // where the file's length is stored

}  // namespace

// XXH3 of 8 MiB chunks in parallel, then of the chunks' hashes: gigabytes in a fraction of a
// second, the same value for any thread count.
std::uint64_t operator_cache_checksum(const unsigned char* data, std::size_t bytes) {
    constexpr std::size_t chunk = std::size_t(8) << 20;
    const auto chunks = static_cast<long long>((bytes + chunk - 1) / chunk);
    std::vector<XXH64_hash_t> hashes(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < chunks; ++c) {
        const std::size_t first = std::size_t(c) * chunk;
        hashes[c] = XXH3_64bits(data + first, std::min(chunk, bytes - first));
    }
    return XXH3_64bits(hashes.data(), hashes.size() * sizeof(XXH64_hash_t));
}

namespace {

constexpr std::size_t checksum_chunk = std::size_t(8) << 20;  // operator_cache_checksum's chunk

// The file's bytes as a list of pieces: the small fields gathered in owned buffers, the arrays
// by pointer, so that the file is written from the operator's own memory, once.
class Writer {
public:
    void raw(const void* data, std::size_t bytes) {
        const auto* p = static_cast<const unsigned char*>(data);
        // A field that would not fit the open buffer's reserve (the key, on scans of thousands
        // of angles) starts one of its own: an owned buffer never grows, so its pointer stays.
        if (!appendable_ || small_.back().size() + bytes > small_.back().capacity()) {
            small_.emplace_back();
            small_.back().reserve(std::max(bytes, small_capacity));
            pieces_.push_back({small_.back().data(), 0, at_});
            appendable_ = true;
        }
        small_.back().insert(small_.back().end(), p, p + bytes);
        pieces_.back().bytes += bytes;
        at_ += bytes;
    }
    void u64(std::uint64_t v) { raw(&v, 8); }
    template <typename Array>
    void array(const Array& v) {
        u64(v.size());
        static const char zeros[array_alignment] = {};
        raw(zeros, (array_alignment - at_ % array_alignment) % array_alignment);
        const std::size_t bytes = v.size() * sizeof(v[0]);
        if (bytes > 0) {
            pieces_.push_back({reinterpret_cast<const unsigned char*>(v.data()), bytes, at_});
            appendable_ = false;
        }
        at_ += bytes;
    }
    /// Writes everything to `path` with the length at length_offset and the checksum at the
    /// end; false when a write failed.
    bool write(const std::string& path);

private:
    struct Piece {
        const unsigned char* data;
        std::size_t bytes, offset;  // offset in the file
    };
    static constexpr std::size_t small_capacity = 4096;
    bool write_range(int fd, std::size_t first, std::size_t last, std::uint64_t* hash) const;

    std::vector<std::vector<unsigned char>> small_;  // moved on growth: their heap buffers stay put
    std::vector<Piece> pieces_;
    std::size_t at_ = 0;
    bool appendable_ = false;  // the last piece is small_.back()
};

// Bytes [first, last) of the file: written with pwrite from the pieces, and their XXH3 when
// `hash` is given (the same value as XXH3_64bits of the bytes in one piece).
bool Writer::write_range(int fd, std::size_t first, std::size_t last, std::uint64_t* hash) const {
    XXH3_state_t* state = XXH3_createState();
    XXH3_64bits_reset(state);
    auto piece = std::upper_bound(pieces_.begin(), pieces_.end(), first,
                                  [](std::size_t at, const Piece& q) { return at < q.offset; }) - 1;
    bool ok = true;
    for (std::size_t at = first; ok && at < last; ++piece) {
        const std::size_t skip = at - piece->offset, bytes = std::min(piece->bytes - skip, last - at);
        const unsigned char* p = piece->data + skip;
        XXH3_64bits_update(state, p, bytes);
        for (std::size_t done = 0; ok && done < bytes;) {
            const ssize_t n = ::pwrite(fd, p + done, bytes - done, static_cast<off_t>(at + done));
            ok = n > 0;
            done += ok ? std::size_t(n) : 0;
        }
        at += bytes;
    }
    if (hash) *hash = XXH3_64bits_digest(state);
    XXH3_freeState(state);
    return ok;
}

// The body (after the magic) in the checksum's 8 MiB chunks, each hashed as it is written, by
// all threads: the page cache takes the file's fresh pages on both cores, and nothing is read
// back.
bool Writer::write(const std::string& path) {
    const std::uint64_t length = at_ + 8;  // and the checksum
    std::memcpy(small_.front().data() + length_offset, &length, 8);  // the first piece holds the header
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    bool ok = ::ftruncate(fd, static_cast<off_t>(length)) == 0 && write_range(fd, 0, sizeof(magic), nullptr);
    const auto chunks = static_cast<long long>((at_ - sizeof(magic) + checksum_chunk - 1) / checksum_chunk);
    std::vector<XXH64_hash_t> hashes(static_cast<std::size_t>(chunks));
    std::atomic<bool> failed{!ok};
#pragma omp parallel for schedule(dynamic, 1)
    for (long long c = 0; c < chunks; ++c) {
        const std::size_t first = sizeof(magic) + std::size_t(c) * checksum_chunk;
        std::uint64_t h = 0;
        if (!write_range(fd, first, std::min(first + checksum_chunk, at_), &h)) failed = true;
        hashes[std::size_t(c)] = h;
    }
    const std::uint64_t sum = XXH3_64bits(hashes.data(), hashes.size() * sizeof(XXH64_hash_t));
    ok = !failed && ::pwrite(fd, &sum, 8, static_cast<off_t>(at_)) == 8;
    return ::close(fd) == 0 && ok;
}

// Reads a mapped file with bounds: every count is checked against the bytes left first.
class Reader {
public:
    explicit Reader(std::shared_ptr<const io::MappedFile> file) : file_(std::move(file)) {}
    const unsigned char* take(std::uint64_t bytes) {
        if (bytes > file_->size() - at_) throw std::runtime_error("truncated");
        const unsigned char* p = file_->data() + at_;
        at_ += bytes;
        return p;
    }
    std::uint64_t u64() {
        std::uint64_t v;
        std::memcpy(&v, take(8), 8);
        return v;
    }
    template <typename T>
    std::pair<const T*, std::uint64_t> array() {
        const std::uint64_t count = u64();
        take((array_alignment - at_ % array_alignment) % array_alignment);
        if (count > (file_->size() - at_) / sizeof(T)) throw std::runtime_error("truncated");
        return {reinterpret_cast<const T*>(take(count * sizeof(T))), count};
    }
    template <typename T>
    void copy(std::vector<T>& v) {
        const auto [p, n] = array<T>();
        v.assign(p, p + n);
    }
    template <typename T>
    void view(SlotArray<T>& v) {
        const auto [p, n] = array<T>();
        v = SlotArray<T>::view(p, n, file_);
    }
    std::size_t at() const { return at_; }
    const io::MappedFile& file() const { return *file_; }

private:
    std::shared_ptr<const io::MappedFile> file_;
    std::size_t at_ = 0;
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
    r.copy(m.buffdispl);
    r.copy(m.mapdispl);
    r.copy(m.map);
    r.copy(m.warpdispl);
    r.view(m.index);
    r.view(m.values);
    r.view(m.half_values);
    // The shapes must agree with each other (the checksum catches changed bytes, not a writer's bug).
    const bool values_ok = m.values.size() == m.index.size() || m.half_values.size() == m.index.size();
    if (m.buffdispl.empty() || m.mapdispl.empty() || m.warpdispl.empty() || !values_ok)
        throw std::runtime_error("inconsistent array sizes");
    // Written by this program or not, the kernels must never read outside the arrays.
    if (const std::string why = tiled_ell_structure_error(m); !why.empty()) throw std::runtime_error(why);
    return m;
}

// Magic, version, length, value type, key and count; then the checksum of the whole body.
template <typename V>
void check_header(Reader& r, const OperatorCacheKey& key, bool with_transpose) {
    const std::size_t size = r.file().size();
    if (size < sizeof(magic) || std::memcmp(r.take(sizeof(magic)), magic, sizeof(magic)) != 0)
        throw std::runtime_error("not an operator cache file");
    if (r.u64() != operator_cache_version) throw std::runtime_error("another format version");
    const std::uint64_t length = r.u64();
    if (size < length || size < length_offset + 16) throw std::runtime_error("truncated");
    if (size > length) throw std::runtime_error("trailing bytes");
    if (r.u64() != sizeof(V)) throw std::runtime_error("written for another operator (value type)");
    const std::uint64_t key_bytes = r.u64();
    if (key_bytes != key.text.size() || std::memcmp(r.take(key_bytes), key.text.data(), key_bytes) != 0)
        throw std::runtime_error("written for another operator (key differs)");
    if (r.u64() != (with_transpose ? 2u : 1u)) throw std::runtime_error("written for another operator (transpose)");
    std::uint64_t stored;
    std::memcpy(&stored, r.file().data() + size - 8, 8);
    if (operator_cache_checksum(r.file().data() + sizeof(magic), size - sizeof(magic) - 8) != stored)
        throw std::runtime_error("checksum mismatch (corrupt)");
}

}  // namespace

template <typename V>
void save_tiled_operators(const std::string& path, const OperatorCacheKey& key, const TiledEll<V, Index>& a,
                          const TiledEll<V, Index>* at) {
    static std::atomic<int> serial{0};
    const std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++);
    Writer w;
    w.raw(magic, sizeof(magic));
    w.u64(operator_cache_version);
    w.u64(0);  // the file's length, stored by write()
    w.u64(sizeof(V));
    w.u64(key.text.size());
    w.raw(key.text.data(), key.text.size());
    w.u64(at ? 2 : 1);
    write_matrix(w, a);
    if (at) write_matrix(w, *at);
    std::error_code ec;
    if (!w.write(temp)) {
        std::filesystem::remove(temp, ec);
        TESSEL_INVALID_INPUT(path, 0, "operator cache: writing " + temp + " failed (disk full or not writable?)");
    }
    std::filesystem::rename(temp, path, ec);  // atomic: readers see the old file or the new one
    if (ec) TESSEL_INVALID_INPUT(path, 0, "operator cache: cannot rename " + temp + ": " + ec.message());
}

template <typename V>
std::optional<TiledOperators<V>> load_tiled_operators(const std::string& path, const OperatorCacheKey& key,
                                                      bool with_transpose, std::string& why_not) {
    why_not.clear();
    auto file = io::MappedFile::open(path);
    if (!file) return std::nullopt;
    try {
        Reader r(std::move(file));
        check_header<V>(r, key, with_transpose);
        TiledOperators<V> ops;
        ops.a = read_matrix<V>(r);
        if (with_transpose) ops.at = read_matrix<V>(r);
        if (r.at() + 8 != r.file().size()) throw std::runtime_error("inconsistent array sizes");
        return ops;
    } catch (const std::runtime_error& e) {
        why_not = e.what();
    } catch (const std::bad_alloc&) {
        why_not = "sizes beyond memory (corrupt)";
    }
    return std::nullopt;
}

#define TESSEL_XCT_CACHE_FILE(V)                                                                                   \
    template void save_tiled_operators<V>(const std::string&, const OperatorCacheKey&, const TiledEll<V, Index>&,   \
                                          const TiledEll<V, Index>*);                                               \
    template std::optional<TiledOperators<V>> load_tiled_operators<V>(const std::string&, const OperatorCacheKey&,   \
                                                                      bool, std::string&);
TESSEL_XCT_CACHE_FILE(float)
TESSEL_XCT_CACHE_FILE(double)
#undef TESSEL_XCT_CACHE_FILE

}  // namespace tessel::xct
