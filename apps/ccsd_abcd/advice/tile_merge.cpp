// Merged tilings and the tile source that assembles a merged tile from the original ones.
#include "apps/ccsd_abcd/advice/tile_merge.hpp"

#include <algorithm>
#include <vector>

#include "core/error.hpp"

namespace tessel::abcd {

namespace {

// A merged tile assembled from the original tiles inside it; zero where the original shape
// has no tile.
class MergedTiles final : public TileSource {
public:
    MergedTiles(const Problem& original, size_type factor)
        : inner_(original.values), m_(original.m_tiling), k_(original.k_tiling), n_(original.n_tiling),
          a_(original.a_shape), b_(original.b_shape), factor_(factor) {}
    void fill(Operand which, size_type ti, size_type tj, double* out) const override { fill_any(which, ti, tj, out); }
    void fill(Operand which, size_type ti, size_type tj, float* out) const override { fill_any(which, ti, tj, out); }
    std::string describe() const override {
        return inner_->describe() + ", tiles merged by " + std::to_string(factor_);
    }

private:
    template <typename T>
    void fill_any(Operand which, size_type ti, size_type tj, T* out) const {
        const Tiling& rows = which == Operand::a ? m_ : k_;
        const Tiling& cols = which == Operand::a ? k_ : n_;
        const TileShape& s = which == Operand::a ? a_ : b_;
        const size_type r0 = ti * factor_, r1 = std::min(rows.count(), r0 + factor_);
        const size_type c0 = tj * factor_, c1 = std::min(cols.count(), c0 + factor_);
        const size_type ld = rows.offset(r1 - 1) + rows.size(r1 - 1) - rows.offset(r0);
        const size_type width = cols.offset(c1 - 1) + cols.size(c1 - 1) - cols.offset(c0);
        std::fill(out, out + ld * width, T(0));
        std::vector<T> tile;
        for (size_type r = r0; r < r1; ++r)
            for (size_type e = s.row_ptr()[r]; e < s.row_ptr()[r + 1]; ++e) {
                const size_type c = s.col_idx()[e];
                if (c < c0 || c >= c1) continue;
                const size_type m = rows.size(r), n = cols.size(c);
                tile.resize(static_cast<std::size_t>(m * n));
                inner_->fill(which, r, c, tile.data());
                const size_type dr = rows.offset(r) - rows.offset(r0), dc = cols.offset(c) - cols.offset(c0);
                for (size_type j = 0; j < n; ++j)
                    std::copy(tile.begin() + j * m, tile.begin() + (j + 1) * m, out + (dc + j) * ld + dr);
            }
    }

    std::shared_ptr<const TileSource> inner_;
    Tiling m_, k_, n_;
    TileShape a_, b_;
    size_type factor_;
};

}  // namespace

Tiling merge_tiling(const Tiling& t, size_type factor) {
    if (factor < 1) TESSEL_INVALID_INPUT("--tiling", 0, "the merge factor must be at least 1, not " + std::to_string(factor));
    std::vector<size_type> sizes;
    for (size_type first = 0; first < t.count(); first += factor) {
        size_type s = 0;
        for (size_type x = first; x < std::min(t.count(), first + factor); ++x) s += t.size(x);
        sizes.push_back(s);
    }
    return Tiling::from_sizes(std::move(sizes), "merged tiling");
}

TileShape merge_shape(const TileShape& s, size_type factor, const std::string& what) {
    const size_type rows = (s.rows() + factor - 1) / factor, cols = (s.cols() + factor - 1) / factor;
    std::vector<std::pair<size_type, size_type>> tiles;
    for (size_type i = 0; i < s.rows(); ++i)
        for (size_type e = s.row_ptr()[i]; e < s.row_ptr()[i + 1]; ++e) tiles.emplace_back(i / factor, s.col_idx()[e] / factor);
    std::sort(tiles.begin(), tiles.end());
    tiles.erase(std::unique(tiles.begin(), tiles.end()), tiles.end());
    return TileShape::from_pairs(rows, cols, std::move(tiles), what);
}

Problem merge_tiles(const Problem& p, size_type factor) {
    if (factor == 1) return p;
    Problem q = make_problem(merge_tiling(p.m_tiling, factor), merge_tiling(p.k_tiling, factor),
                             merge_shape(p.a_shape, factor, "merged A"), merge_tiling(p.k_tiling, factor),
                             merge_tiling(p.n_tiling, factor), merge_shape(p.b_shape, factor, "merged B"));
    q.values = std::make_shared<MergedTiles>(p, factor);
    q.precision = p.precision;
    q.seed = p.seed;
    q.description = p.description + ", tiles merged by " + std::to_string(factor);
    return q;
}

}  // namespace tessel::abcd
