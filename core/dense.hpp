// Dense matrices: a non-owning view (any layout, any leading dimension) and an owning matrix.
#pragma once

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "core/aligned_allocator.hpp"
#include "core/error.hpp"
#include "core/types.hpp"

namespace tessel {

/// A rows x cols matrix over borrowed memory. Entry (i, j) lives at
/// data[i*ld + j] (row-major) or data[j*ld + i] (column-major).
template <typename ValueType>
struct DenseView {
    ValueType* data = nullptr;
    size_type rows = 0;
    size_type cols = 0;
    size_type ld = 0;
    Layout layout = Layout::row_major;

    DenseView() = default;
    DenseView(ValueType* data_, size_type rows_, size_type cols_, Layout layout_ = Layout::row_major,
              size_type ld_ = -1)
        : data(data_), rows(rows_), cols(cols_),
          ld(ld_ >= 0 ? ld_ : (layout_ == Layout::row_major ? cols_ : rows_)), layout(layout_) {
        const size_type min_ld = layout == Layout::row_major ? cols : rows;
        TESSEL_ENSURE_DIMS(rows >= 0 && cols >= 0 && ld >= min_ld,
                           "dense view: leading dimension " + std::to_string(ld) +
                               " smaller than " + std::to_string(min_ld));
    }

    /// Views of non-const data convert to views of const data.
    template <typename Other,
              typename = std::enable_if_t<std::is_same_v<const Other, ValueType> &&
                                          !std::is_same_v<Other, ValueType>>>
    DenseView(const DenseView<Other>& other)
        : data(other.data), rows(other.rows), cols(other.cols), ld(other.ld),
          layout(other.layout) {}

    ValueType& operator()(size_type i, size_type j) const {
        return layout == Layout::row_major ? data[i * ld + j] : data[j * ld + i];
    }
    /// True when the entries are one contiguous row-major block (ld == cols).
    bool contiguous_row_major() const { return layout == Layout::row_major && ld == cols; }
};

/// An owning rows x cols dense matrix with 64-byte aligned, contiguous storage.
template <typename ValueType>
class DenseMatrix {
public:
    DenseMatrix() = default;
    DenseMatrix(size_type rows, size_type cols, Layout layout = Layout::row_major,
                ValueType fill = ValueType{0})
        : rows_(rows), cols_(cols), layout_(layout),
          storage_(static_cast<std::size_t>(rows * cols), fill) {
        TESSEL_ENSURE_DIMS(rows >= 0 && cols >= 0, "dense matrix: negative size");
    }

    size_type rows() const { return rows_; }
    size_type cols() const { return cols_; }
    Layout layout() const { return layout_; }
    ValueType* data() { return storage_.data(); }
    const ValueType* data() const { return storage_.data(); }
    size_type size() const { return rows_ * cols_; }

    DenseView<ValueType> view() { return {storage_.data(), rows_, cols_, layout_}; }
    DenseView<const ValueType> view() const { return {storage_.data(), rows_, cols_, layout_}; }
    ValueType& operator()(size_type i, size_type j) { return view()(i, j); }
    const ValueType& operator()(size_type i, size_type j) const { return view()(i, j); }

    void fill(ValueType value) { std::fill(storage_.begin(), storage_.end(), value); }

private:
    size_type rows_ = 0;
    size_type cols_ = 0;
    Layout layout_ = Layout::row_major;
    std::vector<ValueType, AlignedAllocator<ValueType>> storage_;
};

/// Copies src into dst entry by entry (any layouts, same shape). Throws DimensionMismatch.
template <typename ValueType>
void copy(DenseView<const ValueType> src, DenseView<ValueType> dst) {
    TESSEL_ENSURE_DIMS(src.rows == dst.rows && src.cols == dst.cols,
                       "dense copy: shapes differ");
    for (size_type i = 0; i < src.rows; ++i)
        for (size_type j = 0; j < src.cols; ++j) dst(i, j) = src(i, j);
}

}  // namespace tessel
