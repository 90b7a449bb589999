// CSR construction, validation and conversions.
#include "core/formats/csr.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/error.hpp"
#include "core/instantiate.hpp"

namespace tessel {

template <typename V, typename I>
void Coo<V, I>::validate(const std::string& name) const {
    if (rows < 0 || cols < 0) TESSEL_INVALID_INPUT(name, 0, "negative matrix size");
    if (row.size() != values.size() || col.size() != values.size())
        TESSEL_INVALID_INPUT(name, 0, "row, column and value arrays differ in length");
    for (size_type e = 0; e < nnz(); ++e) {
        if (row[e] < 0 || row[e] >= rows)
            TESSEL_INVALID_INPUT(name, e + 1, "row index " + std::to_string(row[e]) +
                                                  " outside 0.." + std::to_string(rows - 1));
        if (col[e] < 0 || col[e] >= cols)
            TESSEL_INVALID_INPUT(name, e + 1, "column index " + std::to_string(col[e]) +
                                                  " outside 0.." + std::to_string(cols - 1));
        if (!std::isfinite(values[e]))
            TESSEL_INVALID_INPUT(name, e + 1, "value is not finite");
    }
}

template <typename V, typename I>
Csr<V, I>::Csr(size_type rows, size_type cols, std::vector<size_type> row_ptr,
               std::vector<I> col_idx, std::vector<V> values, const std::string& name)
    : rows_(rows), cols_(cols), row_ptr_(std::move(row_ptr)), col_idx_(std::move(col_idx)),
      values_(std::move(values)) {
    if (rows_ < 0 || cols_ < 0) TESSEL_INVALID_INPUT(name, 0, "negative matrix size");
    if (cols_ > 0 && static_cast<unsigned long long>(cols_ - 1) >
                         static_cast<unsigned long long>(std::numeric_limits<I>::max()))
        TESSEL_INVALID_INPUT(name, 0, "column count does not fit the index type");
    if (static_cast<size_type>(row_ptr_.size()) != rows_ + 1)
        TESSEL_INVALID_INPUT(name, 0, "row_ptr has " + std::to_string(row_ptr_.size()) +
                                          " entries, expected " + std::to_string(rows_ + 1));
    if (row_ptr_.front() != 0) TESSEL_INVALID_INPUT(name, 0, "row_ptr[0] is not 0");
    for (size_type i = 0; i < rows_; ++i)
        if (row_ptr_[i + 1] < row_ptr_[i])
            TESSEL_INVALID_INPUT(name, i + 1, "row_ptr decreases at row " + std::to_string(i));
    if (col_idx_.size() != values_.size() ||
        static_cast<size_type>(values_.size()) != row_ptr_.back())
        TESSEL_INVALID_INPUT(name, 0, "row_ptr, col_idx and values disagree on nnz");
    for (size_type e = 0; e < nnz(); ++e) {
        if (col_idx_[e] < 0 || col_idx_[e] >= cols_)
            TESSEL_INVALID_INPUT(name, e + 1, "column index " + std::to_string(col_idx_[e]) +
                                                  " outside 0.." + std::to_string(cols_ - 1));
        if (!std::isfinite(values_[e])) TESSEL_INVALID_INPUT(name, e + 1, "value is not finite");
    }
}

template <typename V, typename I>
size_type Csr<V, I>::max_row_length() const {
    size_type longest = 0;
    for (size_type i = 0; i < rows_; ++i) longest = std::max(longest, row_nnz(i));
    return longest;
}

template <typename V, typename I>
bool Csr<V, I>::sorted() const {
    for (size_type i = 0; i < rows_; ++i)
        if (!std::is_sorted(col_idx_.begin() + row_ptr_[i], col_idx_.begin() + row_ptr_[i + 1]))
            return false;
    return true;
}

template <typename V, typename I>
void Csr<V, I>::sort_columns() {
#pragma omp parallel
    {
        std::vector<std::pair<I, V>> row;
#pragma omp for schedule(dynamic, 256)
        for (size_type i = 0; i < rows_; ++i) {
            const size_type begin = row_ptr_[i], end = row_ptr_[i + 1];
            if (std::is_sorted(col_idx_.begin() + begin, col_idx_.begin() + end)) continue;
            row.clear();
            for (size_type e = begin; e < end; ++e) row.emplace_back(col_idx_[e], values_[e]);
            std::sort(row.begin(), row.end(),
                      [](const auto& x, const auto& y) { return x.first < y.first; });
            for (size_type e = begin; e < end; ++e) {
                col_idx_[e] = row[e - begin].first;
                values_[e] = row[e - begin].second;
            }
        }
    }
}

template <typename V, typename I>
Csr<V, I> csr_from_coo(const Coo<V, I>& coo, const std::string& name) {
    coo.validate(name);
    // Counting sort by row, then sort and merge duplicates inside each row.
    std::vector<size_type> count(coo.rows + 1, 0);
    for (size_type e = 0; e < coo.nnz(); ++e) ++count[coo.row[e] + 1];
    std::partial_sum(count.begin(), count.end(), count.begin());
    std::vector<size_type> next(count.begin(), count.end() - 1);
    std::vector<std::pair<I, V>> entries(coo.nnz());
    for (size_type e = 0; e < coo.nnz(); ++e)
        entries[next[coo.row[e]]++] = {coo.col[e], coo.values[e]};

    std::vector<size_type> row_ptr(coo.rows + 1, 0);
#pragma omp parallel for schedule(dynamic, 256)
    for (size_type i = 0; i < coo.rows; ++i) {
        auto first = entries.begin() + count[i], last = entries.begin() + count[i + 1];
        std::sort(first, last, [](const auto& x, const auto& y) { return x.first < y.first; });
        size_type unique = 0;
        for (auto it = first; it != last; ++it) {
            if (unique > 0 && (first + unique - 1)->first == it->first)
                (first + unique - 1)->second += it->second;
            else
                *(first + unique++) = *it;
        }
        row_ptr[i + 1] = unique;
    }
    std::partial_sum(row_ptr.begin(), row_ptr.end(), row_ptr.begin());
    std::vector<I> col_idx(row_ptr.back());
    std::vector<V> values(row_ptr.back());
#pragma omp parallel for schedule(dynamic, 256)
    for (size_type i = 0; i < coo.rows; ++i)
        for (size_type e = 0; e < row_ptr[i + 1] - row_ptr[i]; ++e) {
            col_idx[row_ptr[i] + e] = entries[count[i] + e].first;
            values[row_ptr[i] + e] = entries[count[i] + e].second;
        }
    return Csr<V, I>(coo.rows, coo.cols, std::move(row_ptr), std::move(col_idx),
                     std::move(values), name);
}

template <typename V, typename I>
Coo<V, I> coo_from_csr(const Csr<V, I>& csr) {
    Coo<V, I> coo;
    coo.rows = csr.rows();
    coo.cols = csr.cols();
    coo.row.resize(csr.nnz());
    for (size_type i = 0; i < csr.rows(); ++i)
        for (size_type e = csr.row_ptr()[i]; e < csr.row_ptr()[i + 1]; ++e)
            coo.row[e] = static_cast<I>(i);
    coo.col = csr.col_idx();
    coo.values = csr.values();
    return coo;
}

template <typename V, typename I>
Csr<V, I> transpose(const Csr<V, I>& a) {
    std::vector<size_type> row_ptr(a.cols() + 1, 0);
    for (auto c : a.col_idx()) ++row_ptr[c + 1];
    std::partial_sum(row_ptr.begin(), row_ptr.end(), row_ptr.begin());
    std::vector<size_type> next(row_ptr.begin(), row_ptr.end() - 1);
    std::vector<I> col_idx(a.nnz());
    std::vector<V> values(a.nnz());
    // Walking rows in order leaves every transposed row sorted.
    for (size_type i = 0; i < a.rows(); ++i)
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e) {
            const size_type pos = next[a.col_idx()[e]]++;
            col_idx[pos] = static_cast<I>(i);
            values[pos] = a.values()[e];
        }
    return Csr<V, I>(a.cols(), a.rows(), std::move(row_ptr), std::move(col_idx),
                     std::move(values), "transpose");
}

template <typename V, typename To, typename From>
Csr<V, To> convert_index(const Csr<V, From>& a) {
    std::vector<To> col_idx(a.nnz());
    for (size_type e = 0; e < a.nnz(); ++e) {
        const From c = a.col_idx()[e];
        if (static_cast<long double>(c) > static_cast<long double>(std::numeric_limits<To>::max()))
            TESSEL_INVALID_INPUT("csr", e + 1, "column index does not fit the index type");
        col_idx[e] = static_cast<To>(c);
    }
    return Csr<V, To>(a.rows(), a.cols(), a.row_ptr(), std::move(col_idx), a.values());
}

#define TESSEL_INSTANTIATE(V, I)                                                       \
    template struct Coo<V, I>;                                                         \
    template class Csr<V, I>;                                                          \
    template Csr<V, I> csr_from_coo(const Coo<V, I>&, const std::string&);            \
    template Coo<V, I> coo_from_csr(const Csr<V, I>&);                                 \
    template Csr<V, I> transpose(const Csr<V, I>&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

template Csr<float, std::int64_t> convert_index<float, std::int64_t>(const Csr<float, std::int32_t>&);
template Csr<double, std::int64_t> convert_index<double, std::int64_t>(const Csr<double, std::int32_t>&);
template Csr<float, std::int32_t> convert_index<float, std::int32_t>(const Csr<float, std::int64_t>&);
template Csr<double, std::int32_t> convert_index<double, std::int32_t>(const Csr<double, std::int64_t>&);

}  // namespace tessel
