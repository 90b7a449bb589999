// Block-sparse shapes: which tiles of a tiled matrix are non-zero (a tile-level CSR pattern).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "apps/ccsd_abcd/problem/tiling.hpp"
#include "core/formats/csr.hpp"
#include "core/types.hpp"

namespace tessel::abcd {

/// The non-zero tiles of a rows x cols grid of tiles, row by row with sorted columns. A tile
/// is named by its position in that order (0 .. nnz-1), which is also the key of its data.
class TileShape {
public:
    TileShape() = default;
    /// An empty pattern (no non-zero tile) of rows x cols tiles.
    TileShape(size_type rows, size_type cols);

    /// From (tile row, tile col) pairs in any order. Throws InvalidInput naming `what` when a
    /// pair lies outside the grid or appears twice.
    static TileShape from_pairs(size_type rows, size_type cols,
                                std::vector<std::pair<size_type, size_type>> tiles,
                                const std::string& what = "shape");
    /// Every tile non-zero.
    static TileShape dense(size_type rows, size_type cols);
    /// From a tile-level CSR pattern (columns of each row are sorted here).
    template <typename ValueType, typename IndexType>
    static TileShape from_csr(const Csr<ValueType, IndexType>& pattern);

    size_type rows() const { return rows_; }
    size_type cols() const { return cols_; }
    size_type nnz() const { return static_cast<size_type>(col_idx_.size()); }
    const std::vector<size_type>& row_ptr() const { return row_ptr_; }
    const std::vector<size_type>& col_idx() const { return col_idx_; }
    size_type row_nnz(size_type i) const { return row_ptr_[i + 1] - row_ptr_[i]; }
    /// Tile row of the tile at position `pos` (binary search in row_ptr).
    size_type row_of(size_type pos) const;

    /// Position of tile (i, j), or -1 when it is zero.
    size_type find(size_type i, size_type j) const;
    bool contains(size_type i, size_type j) const { return find(i, j) >= 0; }

    /// The shape of the transpose (used as the columns of a shape). Also returns, through
    /// `positions`, the position in this shape of every tile of the transpose.
    TileShape transpose(std::vector<size_type>* positions = nullptr) const;

    /// Σ_{(i,j) non-zero} m_i n_j: the elements inside non-zero tiles.
    double area(const Tiling& row_tiling, const Tiling& col_tiling) const;
    /// Element-area density area / (M N), in [0, 1].
    double density(const Tiling& row_tiling, const Tiling& col_tiling) const;

    /// The pattern as CSR with int32 tile indices and values value(i, j) (tiles must number
    /// below 2^31 per dimension; throws InvalidInput otherwise).
    template <typename F>
    Csr<double, std::int32_t> to_csr(F value) const;

    bool operator==(const TileShape& other) const {
        return rows_ == other.rows_ && cols_ == other.cols_ && row_ptr_ == other.row_ptr_ &&
               col_idx_ == other.col_idx_;
    }

private:
    size_type rows_ = 0;
    size_type cols_ = 0;
    std::vector<size_type> row_ptr_{0};
    std::vector<size_type> col_idx_;
};

template <typename ValueType, typename IndexType>
TileShape TileShape::from_csr(const Csr<ValueType, IndexType>& pattern) {
    std::vector<std::pair<size_type, size_type>> tiles;
    tiles.reserve(static_cast<std::size_t>(pattern.nnz()));
    for (size_type i = 0; i < pattern.rows(); ++i)
        for (size_type e = pattern.row_ptr()[i]; e < pattern.row_ptr()[i + 1]; ++e)
            tiles.emplace_back(i, static_cast<size_type>(pattern.col_idx()[e]));
    return from_pairs(pattern.rows(), pattern.cols(), std::move(tiles), "tile product");
}

template <typename F>
Csr<double, std::int32_t> TileShape::to_csr(F value) const {
    std::vector<std::int32_t> cols(col_idx_.size());
    std::vector<double> values(col_idx_.size());
    for (size_type i = 0; i < rows_; ++i)
        for (size_type e = row_ptr_[i]; e < row_ptr_[i + 1]; ++e) {
            cols[e] = static_cast<std::int32_t>(col_idx_[e]);
            values[e] = value(i, col_idx_[e]);
        }
    return Csr<double, std::int32_t>(rows_, cols_, row_ptr_, std::move(cols), std::move(values),
                                     "tile shape");
}

}  // namespace tessel::abcd
