// Tile sources: the seeded function of coordinates and tiles stored in a problem file.
#include "apps/ccsd_abcd/problem/tile_source.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "io/hdf5_file.hpp"

namespace tessel::abcd {

GeneratedTiles::GeneratedTiles(std::uint64_t seed, Tiling m, Tiling k, Tiling n)
    : seed_(seed), m_(std::move(m)), k_(std::move(k)), n_(std::move(n)) {}

template <typename T>
void GeneratedTiles::fill_any(Operand which, size_type ti, size_type tj, T* out) const {
    const Tiling& rows = which == Operand::a ? m_ : k_;
    const Tiling& cols = which == Operand::a ? k_ : n_;
    fill_tile(seed_, which, rows.offset(ti), rows.size(ti), cols.offset(tj), cols.size(tj), out);
}

void GeneratedTiles::fill(Operand which, size_type ti, size_type tj, double* out) const {
    fill_any(which, ti, tj, out);
}
void GeneratedTiles::fill(Operand which, size_type ti, size_type tj, float* out) const {
    fill_any(which, ti, tj, out);
}

std::string GeneratedTiles::describe() const {
    return "seeded function of the coordinates (seed " + std::to_string(seed_) + ")";
}

namespace {
std::vector<size_type> tile_offsets(const TileShape& s, const Tiling& rows, const Tiling& cols) {
    std::vector<size_type> off(static_cast<std::size_t>(s.nnz() + 1), 0);
    for (size_type i = 0; i < s.rows(); ++i)
        for (size_type e = s.row_ptr()[i]; e < s.row_ptr()[i + 1]; ++e)
            off[e + 1] = off[e] + rows.size(i) * cols.size(s.col_idx()[e]);
    return off;
}

// The first non-finite value of a values dataset, read in slabs (bounded memory): an error
// naming the file, the dataset, the value's index and the tile and entry it belongs to.
void require_finite(const io::File& f, const std::string& path, const char* name, const char* operand,
                    const TileShape& s, const Tiling& rows, const std::vector<size_type>& offsets) {
    constexpr size_type slab = size_type(1) << 20;
    const size_type total = offsets.back();
    for (size_type start = 0; start < total; start += slab) {
        const size_type count = std::min(slab, total - start);
        const auto v = f.read_slab<double>(name, {{start}, {count}});
        for (size_type x = 0; x < count; ++x) {
            if (std::isfinite(v[static_cast<std::size_t>(x)])) continue;
            const size_type at = start + x;
            const size_type pos = static_cast<size_type>(std::upper_bound(offsets.begin(), offsets.end(), at) - offsets.begin()) - 1;
            const size_type i = s.row_of(pos), j = s.col_idx()[pos], local = at - offsets[pos];
            std::ostringstream what;
            what << "value " << at << " is " << v[static_cast<std::size_t>(x)] << " (tile (" << i << ", " << j
                 << ") of " << operand << ", entry (" << local % rows.size(i) << ", " << local / rows.size(i)
                 << ")); tile values must be finite";
            TESSEL_INVALID_INPUT(path + ":" + name, 0, what.str());
        }
    }
}
}  // namespace

StoredTiles::StoredTiles(const std::string& path, Tiling m, Tiling k, Tiling n, TileShape a,
                         TileShape b)
    : path_(path), file_(std::make_unique<io::File>(io::File::open(path))), m_(std::move(m)),
      k_(std::move(k)), n_(std::move(n)), a_(std::move(a)), b_(std::move(b)) {
    a_offsets_ = tile_offsets(a_, m_, k_);
    b_offsets_ = tile_offsets(b_, k_, n_);
    for (auto [name, need] : {std::pair{"/a/values", a_offsets_.back()},
                              std::pair{"/b/values", b_offsets_.back()}}) {
        const auto shape = file_->require(name, 1);
        if (shape[0] != need)
            TESSEL_INVALID_INPUT(path + ":" + name, 0, "holds " + std::to_string(shape[0]) +
                                                           " values, the shape needs " +
                                                           std::to_string(need));
    }
    require_finite(*file_, path_, "/a/values", "A", a_, m_, a_offsets_);
    require_finite(*file_, path_, "/b/values", "B", b_, k_, b_offsets_);
}

StoredTiles::~StoredTiles() = default;

std::vector<double> StoredTiles::read(Operand which, size_type ti, size_type tj) const {
    const TileShape& s = which == Operand::a ? a_ : b_;
    const auto& offsets = which == Operand::a ? a_offsets_ : b_offsets_;
    const size_type pos = s.find(ti, tj);
    if (pos < 0)
        TESSEL_INVALID_INPUT(path_, 0, std::string("tile (") + std::to_string(ti) + ", " +
                                           std::to_string(tj) + ") of " +
                                           (which == Operand::a ? "A" : "B") + " is not stored");
    std::lock_guard<std::mutex> lock(mutex_);
    return file_->read_slab<double>(which == Operand::a ? "/a/values" : "/b/values",
                                    {{offsets[pos]}, {offsets[pos + 1] - offsets[pos]}});
}

void StoredTiles::fill(Operand which, size_type ti, size_type tj, double* out) const {
    const auto v = read(which, ti, tj);
    std::copy(v.begin(), v.end(), out);
}
void StoredTiles::fill(Operand which, size_type ti, size_type tj, float* out) const {
    const auto v = read(which, ti, tj);
    for (std::size_t e = 0; e < v.size(); ++e) out[e] = static_cast<float>(v[e]);
}

std::string StoredTiles::describe() const { return "tiles stored in " + path_; }

}  // namespace tessel::abcd
