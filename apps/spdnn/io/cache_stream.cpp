// The network cache one layer at a time (see cache_stream.hpp); the layout is cache.cpp's.
#include "apps/spdnn/io/cache_stream.hpp"

#include <algorithm>

#include "apps/spdnn/io/cache.hpp"
#include "apps/spdnn/io/tiled_cache.hpp"
#include "core/error.hpp"

namespace tessel::spdnn {

void ChecksumStream::add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    bytes_ += bytes;
    while (bytes > 0) {
        if (pending_.empty() && bytes >= checksum_block_bytes) {  // a whole block: no copy
            blocks_.push_back(checksum_block(p, checksum_block_bytes, blocks_.size()));
            p += checksum_block_bytes;
            bytes -= checksum_block_bytes;
            continue;
        }
        const std::size_t take = std::min(bytes, checksum_block_bytes - pending_.size());
        pending_.insert(pending_.end(), p, p + take);
        p += take;
        bytes -= take;
        if (pending_.size() == checksum_block_bytes) {
            blocks_.push_back(checksum_block(pending_.data(), pending_.size(), blocks_.size()));
            pending_.clear();
        }
    }
}

std::uint64_t ChecksumStream::value(std::uint64_t seed) const {
    auto blocks = blocks_;
    if (!pending_.empty()) blocks.push_back(checksum_block(pending_.data(), pending_.size(), blocks.size()));
    return checksum_fold(blocks, bytes_, seed);
}

NetworkCacheWriter::NetworkCacheWriter(const std::string& path, size_type neurons,
                                       const std::vector<size_type>& layer_nnz, std::string signature,
                                       std::optional<WeightLayout> tiled)
    : file_(io::File::create(path)), neurons_(neurons), offsets_(layer_nnz.size() + 1, 0),
      signature_(std::move(signature)) {
    if (tiled) {
        check_tiled_ell_config(tiled->ell);
        tiled_.emplace(*tiled);
    }
    const size_type layers = static_cast<size_type>(layer_nnz.size());
    if (neurons < 1 || layers < 1) TESSEL_INVALID_INPUT(path, 0, "a network cache needs N >= 1 and L >= 1");
    for (size_type k = 0; k < layers; ++k) {
        if (layer_nnz[k] < 0) TESSEL_INVALID_INPUT(path, 0, "negative nonzero count");
        offsets_[k + 1] = offsets_[k] + layer_nnz[k];
    }
    file_.write<std::int64_t>("/layers/offsets", {layers + 1}, offsets_.data());
    file_.create_dataset<std::int64_t>("/layers/row_ptr", {layers, neurons + 1});
    file_.create_dataset<std::int32_t>("/layers/col", {offsets_.back()});
    file_.create_dataset<float>("/layers/val", {offsets_.back()});
}

void NetworkCacheWriter::write_layer(size_type k, const Layer& w) {
    const size_type layers = static_cast<size_type>(offsets_.size()) - 1;
    TESSEL_ENSURE_DIMS(k == next_ && k < layers, "network cache: layer " + std::to_string(k + 1) +
                                                     " written out of order (expected " +
                                                     std::to_string(next_ + 1) + ")");
    const size_type nnz = offsets_[k + 1] - offsets_[k];
    TESSEL_ENSURE_DIMS(w.rows() == neurons_ && w.cols() == neurons_ && w.nnz() == nnz,
                       "network cache: layer " + std::to_string(k + 1) + " does not have the announced size");
    std::vector<std::int64_t> rp(w.row_ptr().begin(), w.row_ptr().end());
    file_.write_slab<std::int64_t>("/layers/row_ptr", {{k, 0}, {1, neurons_ + 1}}, rp.data());
    if (nnz > 0) {
        file_.write_slab<std::int32_t>("/layers/col", {{offsets_[k]}, {nnz}}, w.col_idx().data());
        file_.write_slab<float>("/layers/val", {{offsets_[k]}, {nnz}}, w.values().data());
    }
    row_ptr_sum_.add(rp.data(), rp.size() * sizeof(std::int64_t));
    col_sum_.add(w.col_idx().data(), w.col_idx().size() * sizeof(Index));
    val_sum_.add(w.values().data(), w.values().size() * sizeof(Value));
    // In order: the converter keeps layer k's output order for layer k + 1's inputs.
    if (tiled_) write_tiled_layer(file_, k, tiled_->convert(k, w));
    ++next_;
}

void NetworkCacheWriter::commit() {
    const size_type layers = static_cast<size_type>(offsets_.size()) - 1;
    TESSEL_ENSURE_DIMS(next_ == layers, "network cache: " + std::to_string(next_) + " of " +
                                            std::to_string(layers) + " layers written");
    // The same chain of seeds as write_network_cache: offsets, row_ptr, col, val.
    std::uint64_t h = checksum(offsets_.data(), offsets_.size() * sizeof(std::int64_t), 1);
    h = row_ptr_sum_.value(h);
    h = col_sum_.value(h);
    h = val_sum_.value(h);
    if (tiled_) write_tiled_header(file_, neurons_, layers, tiled_->layout());
    write_network_cache_header(file_, neurons_, layers, h, signature_);
    file_.commit();
}

NetworkShape read_network_cache_shape(const std::string& path, size_type neurons, size_type layers, Value bias) {
    auto unusable = [&](const char* why) { TESSEL_INVALID_INPUT(path, 0, std::string("not a usable network cache: ") + why); };
    auto file = io::File::open(path);
    if (!file.has_attribute("/", "format") || file.read_string_attribute("/", "format") != network_cache_format)
        unusable("not a tessel-spdnn network cache");
    if (file.read_attribute<std::int64_t>("/", "version") != cache_version) unusable("older cache version");
    if (file.read_attribute<std::int64_t>("/", "neurons") != neurons) unusable("made for another N");
    if (file.read_attribute<std::int64_t>("/", "layers") != layers) unusable("made for another L");
    const auto offsets = file.read<std::int64_t>("/layers/offsets");
    const auto rp_shape = file.require("/layers/row_ptr", 2);
    const auto col_shape = file.require("/layers/col", 1);
    const auto val_shape = file.require("/layers/val", 1);
    bool ok = static_cast<size_type>(offsets.size()) == layers + 1 && offsets.front() == 0 &&
              rp_shape[0] == layers && rp_shape[1] == neurons + 1 && col_shape[0] == offsets.back() &&
              val_shape[0] == offsets.back();
    for (std::size_t k = 0; ok && k + 1 < offsets.size(); ++k) ok = offsets[k] <= offsets[k + 1];
    if (!ok) unusable("sizes do not agree");
    NetworkShape shape;
    shape.neurons = neurons;
    shape.layers = layers;
    shape.bias = bias;
    shape.edges = offsets.back();
    return shape;
}

}  // namespace tessel::spdnn
