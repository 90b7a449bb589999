// Tiled ELL (thesis 2.3): row blocks, staged input buffers and warp-interleaved ELL.
#pragma once

#include <cstdint>
#include <vector>

#include "core/aligned_allocator.hpp"
#include "core/formats/csr.hpp"
#include "core/formats/half.hpp"
#include "core/formats/slot_array.hpp"
#include "core/types.hpp"

namespace tessel {

/// How a tiled ELL matrix is cut.
struct TiledEllConfig {
    /// Rows per block (one GPU thread block, or one CPU task). Multiple of 32.
    size_type block_rows = 256;
    /// Input rows (entries of B per right-hand side) that fit in one staging buffer. <= 65536
    /// so that buffer-local indices fit in 16 bits.
    size_type buffer_entries = 4096;
};

/// y = A·x with A cut for staging. Block b covers rows b*block_rows ...; its stages are
/// buffdispl[b] .. buffdispl[b+1]-1. Stage s stages the input entries
/// map[mapdispl[s] .. mapdispl[s+1]-1] (global column indices, ascending) into a buffer.
/// Within stage s, warp w of the block (rows b*block_rows + 32w + lane) owns the ELL slots
/// warpdispl[s*warps_per_block + w] .. warpdispl[s*warps_per_block + w + 1]-1; slot m, lane
/// r is entry m*32 + r of `index` (16-bit position in the stage's buffer) and `values`.
/// Padding slots hold value 0 and index 0. Values are stored either as ValueType (`values`) or,
/// for mixed precision, as IEEE half bits (`half_values`, store_values_in_half); products and
/// sums are always in ValueType.
template <typename ValueType, typename IndexType>
struct TiledEll {
    static constexpr size_type warp_size = 32;

    size_type rows = 0;
    size_type cols = 0;
    size_type nnz = 0;
    TiledEllConfig config;

    std::vector<size_type> buffdispl;   // blocks + 1
    std::vector<size_type> mapdispl;    // stages + 1
    std::vector<IndexType> map;         // staged input rows, per stage
    std::vector<size_type> warpdispl;   // stages * warps_per_block + 1, in slots of 32
    // The slot arrays are the matrix's bulk: huge pages (LargeArray) spare the first-touch
    // faults of building it and the TLB misses of streaming it; or views of a mapped file.
    SlotArray<std::uint16_t> index;   // slots * 32
    SlotArray<ValueType> values;      // slots * 32 (empty when the values are half)
    SlotArray<std::uint16_t> half_values;  // slots * 32 in IEEE half, or empty

    bool stores_half() const { return !half_values.empty(); }
    /// Entry e of the slots in ValueType, whichever way it is stored.
    ValueType value(size_type e) const {
        return stores_half() ? ValueType(half_to_float(half_values[e])) : values[e];
    }
    /// Bytes of one stored value.
    size_type value_bytes() const { return stores_half() ? 2 : size_type(sizeof(ValueType)); }

    size_type num_blocks() const { return static_cast<size_type>(buffdispl.size()) - 1; }
    size_type num_stages() const { return static_cast<size_type>(mapdispl.size()) - 1; }
    size_type warps_per_block() const { return config.block_rows / warp_size; }
    size_type stored() const { return static_cast<size_type>(index.size()); }
    size_type max_stage_entries() const;
    /// Padded slots as a fraction of the nonzeros.
    double padding_overhead() const { return nnz ? double(stored() - nnz) / double(nnz) : 0.0; }
    /// Average number of uses of each staged input entry: nnz / map.size() (thesis 2.5.1).
    double average_reuse() const {
        return map.empty() ? 0.0 : double(nnz) / double(map.size());
    }
};

/// Checks a tiled ELL configuration: block_rows a positive multiple of 32, buffer_entries in
/// 1..65536. Throws InvalidInput (every builder calls it first).
void check_tiled_ell_config(const TiledEllConfig& config);

/// Builds the tiled ELL form of `a` (blocks built in parallel). Throws InvalidInput when
/// the configuration is invalid (block_rows not a positive multiple of 32, buffer_entries
/// outside 1..65536).
template <typename ValueType, typename IndexType>
TiledEll<ValueType, IndexType> tiled_ell_from_csr(const Csr<ValueType, IndexType>& a,
                                                  const TiledEllConfig& config = {});

/// Mixed precision: the values move to IEEE half (`half_values`, half the bytes of float values;
/// `values` is freed). Throws InvalidInput naming the slot of the first value that is not
/// finite or exceeds 65504 in magnitude (the matrix is then unchanged).
template <typename ValueType, typename IndexType>
void store_values_in_half(TiledEll<ValueType, IndexType>& a);

/// Back to CSR (columns sorted), for checks and round trips.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> csr_from_tiled_ell(const TiledEll<ValueType, IndexType>& a);

}  // namespace tessel
