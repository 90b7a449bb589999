// The weights as the kernels want them: Wᵀ_k in tiled ELL, either all built up front
// (resident) or built one layer ahead by a background thread (streamed, double buffered).
// Optionally the output neurons of every layer are reordered so that neurons with the same
// inputs sit next to each other (the thesis's row reordering, §2.5.1): a row block then reads a
// small part of the input tile, which its stage copies into a buffer that stays in cache.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apps/spdnn/network/network.hpp"
#include "core/formats/tiled_ell.hpp"

namespace tessel::spdnn {

/// How the layers are laid out for the kernels.
struct WeightLayout {
    TiledEllConfig ell;
    /// Reorder the output neurons of every layer for locality (see above).
    bool reorder = false;
};

/// The layout used for N neurons: blocks of block_rows rows, one stage per block while
/// N <= 65536; reorder: 1 yes, 0 no, -1 when the input tile of 32 images (N·32 values)
/// exceeds 256 KiB, i.e. N >= 4096, where gathers from the whole tile leave the L2 cache.
WeightLayout weight_layout(size_type neurons, size_type block_rows = 256, int reorder = -1);

/// --reorder's value: "auto" -1, "on" 1, "off" 0. Throws InvalidInput for anything else.
int parse_reorder(const std::string& value);

/// The old name kept for the configuration alone: weight_layout(neurons, block_rows, 0).ell.
TiledEllConfig layer_ell_config(size_type neurons, size_type block_rows = 256);

/// The output neurons of W (columns) ordered so that neurons with equal input sets are
/// adjacent (sorted by their sorted input lists): order[p] is the neuron at position p.
std::vector<Index> locality_order(const Layer& w);

/// One layer as the kernels take it.
struct PreparedLayer {
    /// Wᵀ in tiled ELL: row p is output neuron order[p]; column q is the input at position q
    /// of the previous layer's order. Each row keeps its entries in ascending input-neuron
    /// order, so every kernel sums in the order of reference::spmm on sorted CSR.
    TiledEll<Value, Index> ell;
    /// Output positions: order[p] = neuron at position p; empty = the natural order.
    std::vector<Index> order;
};

/// Wᵀ of W laid out with output order `order` and inputs taken from positions
/// input_order (input_order[q] = neuron at position q of the input; empty = natural).
PreparedLayer prepare_layer(const Layer& w, const TiledEllConfig& config, std::vector<Index> order = {},
                            const std::vector<Index>& input_order = {});

/// Converts the layers of a network in order (0, 1, ...), as streaming and the generator's
/// stored tiled layers do: with reordering, layer k's inputs follow layer k - 1's output order,
/// which the converter keeps from the previous call or, out of order, gets by reading layer
/// k - 1 again with `source` (then required).
class LayerConverter {
public:
    explicit LayerConverter(WeightLayout layout, std::function<Layer(size_type)> source = {});
    /// Layer k read by source(k) and converted.
    PreparedLayer operator()(size_type k);
    /// Layer k, W_k given. Throws InvalidInput when layer k - 1's order is needed and unknown.
    PreparedLayer convert(size_type k, const Layer& w);
    const WeightLayout& layout() const { return layout_; }

private:
    WeightLayout layout_;
    std::function<Layer(size_type)> source_;
    std::vector<Index> previous_order_;  // the order of layer previous_layer_
    size_type previous_layer_ = -1;
};

/// Hands out the layers one by one. get(k) may block until layer k is ready; a caller uses
/// the layers in order (0, 1, ..., L-1, then 0 again for the next batch of images).
class LayerWeights {
public:
    virtual ~LayerWeights() = default;
    virtual size_type layers() const = 0;
    /// Layer k (0-based), valid until get(k + 2) (streamed) or for ever (resident).
    virtual const PreparedLayer& get(size_type k) = 0;
    /// "resident", "streamed from host memory", "streamed from disk, stored tiled ELL (file)" or
    /// "streamed from disk, converted while streaming (file)"; ", rows reordered for locality".
    virtual std::string description() const = 0;
    /// Seconds the caller spent waiting in get() for layers that were not ready.
    virtual double wait_seconds() const { return 0.0; }
    /// True when get(k) always returns the same matrix object (resident weights).
    virtual bool stable() const = 0;
    /// Bytes of tiled ELL held at once.
    virtual size_type bytes_held() const = 0;
};

/// Every layer converted now (in parallel).
std::unique_ptr<LayerWeights> resident_weights(const Network& network, const WeightLayout& layout);

/// Layer k is read by source(k) (W_k as CSR: from host memory, or from the cache file on
/// disk) and converted by a background thread while the caller computes layer k - 1; two
/// buffers. With reordering the thread also needs layer k - 1's order, which it keeps from
/// the layer before or, out of order, reads that layer again. Errors in the background
/// thread are rethrown by get().
std::unique_ptr<LayerWeights> streamed_weights(size_type layers, std::function<Layer(size_type)> source,
                                               const WeightLayout& layout, std::string description);

/// The same double buffering with layers that need no conversion: prepare(k) hands out layer k
/// as the kernels take it (read from the stored tiled ELL of the cache). `layout` is what the
/// layers were made with (for the description). prepare runs on the background thread only.
std::unique_ptr<LayerWeights> streamed_prepared_weights(size_type layers,
                                                        std::function<PreparedLayer(size_type)> prepare,
                                                        const WeightLayout& layout, std::string description);

}  // namespace tessel::spdnn
