// Layer-outer reference inference: dense live rows, reference::spmm, dead rows dropped.
#include "apps/spdnn/reference/reference_streamed.hpp"

#include <algorithm>

#include "core/dense.hpp"
#include "core/error.hpp"
#include "core/kernels/spmm_kernels.hpp"

namespace tessel::spdnn {

namespace {

// Rows [first, first + count) of `y` (rows x N, row-major) through Wᵀ into the same rows of `z`.
void layer_rows(const Layer& wt, const Epilogue<Value>& ep, const std::vector<Value>& y, std::vector<Value>& z,
                size_type n, size_type first, size_type count) {
    DenseView<const Value> yt(y.data() + first * n, n, count, Layout::col_major, n);
    DenseView<Value> zt(z.data() + first * n, n, count, Layout::col_major, n);
    reference::spmm<Value, Index>(wt, yt, zt, ep);
}

bool row_is_zero(const Value* row, size_type n) {
    return std::all_of(row, row + n, [](Value v) { return v == Value(0); });
}

}  // namespace

std::vector<std::int64_t> reference_categories_streamed(const NetworkShape& shape,
                                                        const std::function<Layer(size_type)>& source,
                                                        const Images& images, size_type batch_images) {
    const size_type n = shape.neurons;
    TESSEL_ENSURE_DIMS(images.cols() == n, "images have " + std::to_string(images.cols()) +
                                               " features, network has " + std::to_string(n) + " neurons");
    const bool drop_dead = shape.bias <= 0;
    std::vector<std::int64_t> ids(images.rows());
    std::vector<Value> y(static_cast<std::size_t>(images.rows() * n), Value(0));
    for (size_type i = 0; i < images.rows(); ++i) {
        ids[i] = i;
        for (size_type e = images.row_ptr()[i]; e < images.row_ptr()[i + 1]; ++e)
            y[i * n + images.col_idx()[e]] = images.values()[e];
    }
    const auto ep = Epilogue<Value>::bias_relu_cap(shape.bias, activation_cap);
    const size_type batch = std::max<size_type>(1, batch_images);
    std::vector<Value> z;
    for (size_type k = 0; k < shape.layers && !ids.empty(); ++k) {
        const Layer wt = transpose(source(k));
        TESSEL_ENSURE_DIMS(wt.rows() == n && wt.cols() == n, "layer " + std::to_string(k + 1) + " is not N x N");
        const size_type rows = static_cast<size_type>(ids.size());
        z.assign(static_cast<std::size_t>(rows * n), Value(0));
        const size_type batches = (rows + batch - 1) / batch;
#pragma omp parallel for schedule(dynamic, 1)
        for (size_type b = 0; b < batches; ++b)
            layer_rows(wt, ep, y, z, n, b * batch, std::min(batch, rows - b * batch));
        std::swap(y, z);
        if (!drop_dead) continue;
        size_type kept = 0;
        for (size_type i = 0; i < rows; ++i) {
            if (row_is_zero(y.data() + i * n, n)) continue;
            if (kept != i) std::copy(y.begin() + i * n, y.begin() + (i + 1) * n, y.begin() + kept * n);
            ids[kept++] = ids[i];
        }
        ids.resize(kept);
        y.resize(static_cast<std::size_t>(kept * n));
    }
    std::vector<std::int64_t> categories;
    for (size_type i = 0; i < static_cast<size_type>(ids.size()); ++i)
        if (!row_is_zero(y.data() + i * n, n)) categories.push_back(ids[i] + 1);
    return categories;
}

}  // namespace tessel::spdnn
