// Graph Challenge sparse DNN files: layer and image TSV triplets (row, column, value; 1-based)
// and the categories (truth) file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/formats/csr.hpp"
#include "core/types.hpp"

namespace tessel::io {

/// Reads layer W_k, lines "i<TAB>j<TAB>value" (1-based; i = input neuron = row, j = output
/// neuron = column), as a neurons x neurons CSR (columns sorted, duplicates summed).
/// Spaces are accepted as separators; blank lines only at the end. Parses in parallel.
/// Throws InvalidInput "file:line: what": wrong column count, non-numbers, indices zero or
/// above `neurons` ("output neuron 1025 outside 1..1024"), NaN/Inf values, a blank line
/// before the end, an empty file, an unreadable file ("file: cannot open: reason").
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> read_layer_tsv(const std::string& path, size_type neurons);

/// Reads the input features Y0, lines "image<TAB>neuron<TAB>value" (1-based), as a
/// num_images x neurons CSR. Throws InvalidInput as read_layer_tsv ("image 0 outside 1..60000").
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> read_images_tsv(const std::string& path, size_type num_images,
                                          size_type neurons);

/// Reads the categories file: 1-based image ids, one per line, strictly ascending (an empty
/// file is an empty answer). With num_images > 0 every id must be at most num_images.
/// Throws InvalidInput "file:line: what": not one column, not an integer, not positive,
/// above num_images, not ascending ("category 5 after 7, expected strictly ascending ids").
std::vector<std::int64_t> read_categories(const std::string& path, size_type num_images = 0);

/// Writes a layer as 1-based "i<TAB>j<TAB>value" lines in row order (values in the shortest
/// form that reads back exactly), atomically. Throws InvalidInput when it cannot write.
template <typename ValueType, typename IndexType>
void write_layer_tsv(const std::string& path, const Csr<ValueType, IndexType>& layer);

/// Writes images x neurons features like write_layer_tsv.
template <typename ValueType, typename IndexType>
void write_images_tsv(const std::string& path, const Csr<ValueType, IndexType>& images);

/// Writes 1-based ids, one per line, atomically. Throws InvalidInput naming `path` when an id
/// is not positive or the ids are not strictly ascending (so the reader would refuse them).
void write_categories(const std::string& path, const std::vector<std::int64_t>& categories);

}  // namespace tessel::io
