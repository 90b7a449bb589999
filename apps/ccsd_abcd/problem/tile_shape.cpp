// Block-sparse shapes: construction, lookup, transpose and element-area density.
#include "apps/ccsd_abcd/problem/tile_shape.hpp"

#include <algorithm>
#include <limits>

#include "core/error.hpp"

namespace tessel::abcd {

TileShape::TileShape(size_type rows, size_type cols)
    : rows_(rows), cols_(cols), row_ptr_(static_cast<std::size_t>(rows + 1), 0) {}

TileShape TileShape::from_pairs(size_type rows, size_type cols,
                                std::vector<std::pair<size_type, size_type>> tiles,
                                const std::string& what) {
    if (rows < 0 || cols < 0) TESSEL_INVALID_INPUT(what, 0, "negative number of tiles");
    if (rows > std::numeric_limits<std::int32_t>::max() || cols > std::numeric_limits<std::int32_t>::max())
        TESSEL_INVALID_INPUT(what, 0, "more than 2^31 tiles in one dimension");
    std::sort(tiles.begin(), tiles.end());
    TileShape s(rows, cols);
    s.col_idx_.reserve(tiles.size());
    for (std::size_t e = 0; e < tiles.size(); ++e) {
        const auto [i, j] = tiles[e];
        if (i < 0 || i >= rows || j < 0 || j >= cols)
            TESSEL_INVALID_INPUT(what, 0, "tile (" + std::to_string(i) + ", " + std::to_string(j) +
                                              ") outside the " + std::to_string(rows) + " x " +
                                              std::to_string(cols) + " grid of tiles");
        if (e > 0 && tiles[e - 1] == tiles[e])
            TESSEL_INVALID_INPUT(what, 0, "tile (" + std::to_string(i) + ", " + std::to_string(j) +
                                              ") listed twice");
        ++s.row_ptr_[static_cast<std::size_t>(i + 1)];
        s.col_idx_.push_back(j);
    }
    for (size_type i = 0; i < rows; ++i) s.row_ptr_[i + 1] += s.row_ptr_[i];
    return s;
}

TileShape TileShape::dense(size_type rows, size_type cols) {
    TileShape s(rows, cols);
    s.col_idx_.reserve(static_cast<std::size_t>(rows * cols));
    for (size_type i = 0; i < rows; ++i) {
        for (size_type j = 0; j < cols; ++j) s.col_idx_.push_back(j);
        s.row_ptr_[i + 1] = s.row_ptr_[i] + cols;
    }
    return s;
}

size_type TileShape::row_of(size_type pos) const {
    auto it = std::upper_bound(row_ptr_.begin(), row_ptr_.end(), pos);
    return static_cast<size_type>(it - row_ptr_.begin()) - 1;
}

size_type TileShape::find(size_type i, size_type j) const {
    if (i < 0 || i >= rows_) return -1;
    auto first = col_idx_.begin() + row_ptr_[i];
    auto last = col_idx_.begin() + row_ptr_[i + 1];
    auto it = std::lower_bound(first, last, j);
    return (it != last && *it == j) ? static_cast<size_type>(it - col_idx_.begin()) : -1;
}

TileShape TileShape::transpose(std::vector<size_type>* positions) const {
    TileShape t(cols_, rows_);
    t.col_idx_.resize(col_idx_.size());
    for (auto j : col_idx_) ++t.row_ptr_[static_cast<std::size_t>(j + 1)];
    for (size_type j = 0; j < cols_; ++j) t.row_ptr_[j + 1] += t.row_ptr_[j];
    std::vector<size_type> next(t.row_ptr_.begin(), t.row_ptr_.end() - 1);
    if (positions) positions->assign(col_idx_.size(), 0);
    for (size_type i = 0; i < rows_; ++i)
        for (size_type e = row_ptr_[i]; e < row_ptr_[i + 1]; ++e) {
            const size_type dst = next[static_cast<std::size_t>(col_idx_[e])]++;
            t.col_idx_[dst] = i;
            if (positions) (*positions)[dst] = e;
        }
    return t;
}

double TileShape::area(const Tiling& row_tiling, const Tiling& col_tiling) const {
    double total = 0;
    for (size_type i = 0; i < rows_; ++i)
        for (size_type e = row_ptr_[i]; e < row_ptr_[i + 1]; ++e)
            total += double(row_tiling.size(i)) * double(col_tiling.size(col_idx_[e]));
    return total;
}

double TileShape::density(const Tiling& row_tiling, const Tiling& col_tiling) const {
    const double all = double(row_tiling.extent()) * double(col_tiling.extent());
    return all > 0 ? area(row_tiling, col_tiling) / all : 0.0;
}

}  // namespace tessel::abcd
