// Reference inference: dense Yᵀ batches, reference::spmm with the fused epilogue per layer.
#include "apps/spdnn/reference/reference_inference.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/kernels/spmm_kernels.hpp"

namespace tessel::spdnn {

std::vector<Layer> transposed_layers(const Network& network) {
    std::vector<Layer> wt(network.layers.size());
#pragma omp parallel for schedule(dynamic, 1)
    for (size_type k = 0; k < network.layer_count(); ++k) wt[k] = transpose(network.layers[k]);
    return wt;
}

namespace {

// Y (rows [first, first+count) of the images) densified: count x N row-major.
DenseMatrix<Value> dense_rows(const Images& images, size_type first, size_type count) {
    DenseMatrix<Value> y(count, images.cols());
    for (size_type i = 0; i < count; ++i)
        for (size_type e = images.row_ptr()[first + i]; e < images.row_ptr()[first + i + 1]; ++e)
            y(i, images.col_idx()[e]) = images.values()[e];
    return y;
}

// Runs layers [from, to) on y (count x N row-major) in place of y; adds live rows per layer.
void forward(const std::vector<Layer>& wt, Value bias, size_type from, size_type to, DenseMatrix<Value>& y,
             bool stop_when_all_zero, std::vector<size_type>* live) {
    const size_type n = y.cols(), count = y.rows();
    DenseMatrix<Value> next(count, n);
    const auto ep = Epilogue<Value>::bias_relu_cap(bias, activation_cap);
    for (size_type k = from; k < to; ++k) {
        // Row-major Y (count x N) is column-major Yᵀ (N x count); the same for Y_k.
        DenseView<const Value> yt(y.data(), n, count, Layout::col_major, n);
        DenseView<Value> zt(next.data(), n, count, Layout::col_major, n);
        reference::spmm<Value, Index>(wt[k], yt, zt, ep);
        std::swap(y, next);
        size_type alive = 0;
        for (size_type i = 0; i < count; ++i) {
            bool any = false;
            for (size_type j = 0; j < n && !any; ++j) any = y(i, j) != Value(0);
            alive += any;
        }
        if (live) (*live)[k] += alive;
        if (alive == 0 && stop_when_all_zero) return;
    }
}

}  // namespace

DenseMatrix<Value> reference_activations(const Network& network, const Images& images,
                                         size_type layers) {
    check_network(network);
    TESSEL_ENSURE_DIMS(images.cols() == network.neurons,
                       "images have " + std::to_string(images.cols()) + " features, network has " +
                           std::to_string(network.neurons) + " neurons");
    if (layers < 0 || layers > network.layer_count()) layers = network.layer_count();
    const auto wt = transposed_layers(network);
    auto y = dense_rows(images, 0, images.rows());
    forward(wt, network.bias, 0, layers, y, false, nullptr);
    return y;
}

std::vector<DenseMatrix<Value>> reference_activations_per_layer(const Network& network, const Images& images) {
    check_network(network);
    TESSEL_ENSURE_DIMS(images.cols() == network.neurons,
                       "images have " + std::to_string(images.cols()) + " features, network has " +
                           std::to_string(network.neurons) + " neurons");
    const auto wt = transposed_layers(network);
    auto y = dense_rows(images, 0, images.rows());
    std::vector<DenseMatrix<Value>> out;
    for (size_type k = 0; k < network.layer_count(); ++k) {
        forward(wt, network.bias, k, k + 1, y, false, nullptr);
        out.push_back(y);
    }
    return out;
}

std::vector<std::int64_t> reference_categories(const Network& network, const Images& images,
                                               const ReferenceOptions& options,
                                               std::vector<size_type>* live_per_layer) {
    check_network(network);
    TESSEL_ENSURE_DIMS(images.cols() == network.neurons,
                       "images have " + std::to_string(images.cols()) + " features, network has " +
                           std::to_string(network.neurons) + " neurons");
    const auto wt = transposed_layers(network);
    const size_type batch = std::max<size_type>(1, options.batch_images);
    const size_type batches = (images.rows() + batch - 1) / batch;
    const size_type layers = network.layer_count();
    std::vector<std::vector<std::int64_t>> found(batches);
    std::vector<std::vector<size_type>> live(batches);
#pragma omp parallel for schedule(dynamic, 1) if (options.parallel_batches)
    for (size_type b = 0; b < batches; ++b) {
        const size_type first = b * batch, count = std::min(batch, images.rows() - first);
        auto y = dense_rows(images, first, count);
        if (live_per_layer) live[b].assign(layers, 0);
        forward(wt, network.bias, 0, layers, y, options.stop_when_all_zero && network.bias <= 0,
                live_per_layer ? &live[b] : nullptr);
        for (size_type i = 0; i < count; ++i)
            for (size_type j = 0; j < y.cols(); ++j)
                if (y(i, j) != Value(0)) {
                    found[b].push_back(first + i + 1);
                    break;
                }
    }
    std::vector<std::int64_t> categories;
    for (const auto& f : found) categories.insert(categories.end(), f.begin(), f.end());
    if (live_per_layer) {
        live_per_layer->assign(layers, 0);
        for (const auto& l : live)
            for (size_type k = 0; k < layers; ++k) (*live_per_layer)[k] += l[k];
    }
    return categories;
}

}  // namespace tessel::spdnn
