// Tiled ELL of row groups: a tiled ELL matrix's blocks, stages and staged columns, but each GPU
// thread owns G consecutive rows and walks the union of their columns in a stage, so that one
// read of a staged input value serves G rows. Rows next to each other in xct's Hilbert order
// are neighbouring rays (or pixels) and share most of their columns (512² x 750: 1.81 entries
// per union column for G = 4), so the shared-memory reads per multiply-add fall by that much.
#pragma once

#include <cstdint>
#include <vector>

#include "core/aligned_allocator.hpp"
#include "core/dense.hpp"
#include "core/formats/csr.hpp"
#include "core/formats/half.hpp"
#include "core/formats/tiled_ell.hpp"
#include "core/formats/tiled_ell_bank_order.hpp"
#include "core/kernels/epilogue.hpp"
#include "core/types.hpp"

namespace tessel {

/// Block b covers rows b*block_rows ...; its stages and their staged columns are those of the
/// tiled ELL matrix it was made from (buffdispl, mapdispl, map). Thread t of a block owns rows
/// b*block_rows + t*group + g (g < group); warp w holds threads 32w ... 32w+31. Within stage s,
/// warp w owns slots warpdispl[s*warps_per_block + w] .. warpdispl[s*warps_per_block + w + 1]-1;
/// slot m, lane r has one 16-bit position in the stage's buffer, index[m*32 + r], and the group's
/// values at that column together, values[(m*32 + r)*group + g] (0 for a row without it: the
/// cuda kernel loads them as one 16-byte load for four floats). A lane's slots
/// of a stage are its rows' union of columns (in order of first appearance); padding slots hold
/// index 0 and values 0. Half values stay half (`half_values`, as the tiled ELL matrix had them).
template <typename ValueType, typename IndexType>
struct GroupedEll {
    static constexpr size_type warp_size = 32;

    size_type rows = 0;
    size_type cols = 0;
    size_type nnz = 0;
    size_type block_rows = 0;
    size_type group = 1;

    std::vector<size_type> buffdispl;  // blocks + 1
    std::vector<size_type> mapdispl;   // stages + 1
    std::vector<IndexType> map;        // staged input rows, per stage
    std::vector<size_type> warpdispl;  // stages * warps_per_block + 1, in slots of 32 lanes
    LargeArray<std::uint16_t> index;   // slots * 32
    LargeArray<ValueType> values;      // slots * group * 32 (empty when the values are half)
    LargeArray<std::uint16_t> half_values;  // slots * group * 32 in IEEE half, or empty

    bool stores_half() const { return !half_values.empty(); }
    /// Value e ((m*32 + r)*group + g) in ValueType, whichever way it is stored.
    ValueType value(size_type e) const {
        return stores_half() ? ValueType(half_to_float(half_values[e])) : values[e];
    }

    size_type num_blocks() const { return static_cast<size_type>(buffdispl.size()) - 1; }
    size_type num_stages() const { return static_cast<size_type>(mapdispl.size()) - 1; }
    size_type threads_per_block() const { return block_rows / group; }
    size_type warps_per_block() const { return threads_per_block() / warp_size; }
    size_type slots() const { return warpdispl.empty() ? 0 : warpdispl.back(); }
    size_type max_stage_entries() const;
    /// Stored values beyond the nonzeros, as a fraction of the nonzeros.
    double padding_overhead() const {
        return nnz ? double(static_cast<size_type>(index.size()) * group - nnz) / double(nnz) : 0.0;
    }
    /// Nonzeros per staged-value read (per slot of a lane): how many rows one read serves.
    double entries_per_slot() const { return slots() ? double(nnz) / double(slots() * warp_size) : 0.0; }
};

/// The bank model of the row groups' bank order: the cuda kernel reads a staged entry's values
/// in 16-byte chunks, and eight lanes' 16-byte reads take one wavefront when their entries'
/// positions differ mod 8 (core/cuda/kernels/stage_entries.hpp), whatever the value type.
constexpr int grouped_bank_groups = 8;

/// Threads a block of the cuda row-group kernel may have (block_rows / group): 128 registers each.
constexpr size_type grouped_ell_max_threads = 512;

/// True when the cuda row-group kernel has `factor` columns of B per tile for `group` rows a
/// thread and staged values of `value_bytes`: 32 / group, and for 4-byte values in groups of two
/// or more also 64 / group (32 or 64 accumulators a thread; 64 doubles would spill).
constexpr bool row_group_factor_fits(size_type group, size_type value_bytes, int factor) {
    return factor * group == 32 || (group > 1 && value_bytes == 4 && factor * group == 64);
}

/// Throws InvalidInput unless `group` is 1, 2, 4 or 8 and divides block_rows / 32.
void check_row_groups(size_type group, size_type block_rows);

/// The row-group form of `a` (blocks converted in parallel): `group` rows per thread, 1, 2, 4
/// or 8, dividing a.config.block_rows / 32; half values stay half. Throws
/// InvalidInput for another group or a matrix without slots (a layout), naming the value.
/// With `bank_order`, each (stage, warp)'s slots are then ordered by order_slots_for_banks's sweep
/// for grouped_bank_groups (a slot's group of values moves with its index), and the mean
/// wavefronts per quarter warp of a slot row before and after go there (1: none conflicts).
template <typename ValueType, typename IndexType>
GroupedEll<ValueType, IndexType> group_rows(const TiledEll<ValueType, IndexType>& a, size_type group,
                                            BankOrder* bank_order = nullptr);

/// Back to CSR (columns sorted, explicit zeros dropped), for checks.
template <typename ValueType, typename IndexType>
Csr<ValueType, IndexType> csr_from_grouped_ell(const GroupedEll<ValueType, IndexType>& a);

namespace reference {

/// C := epilogue(A·B) on the format's own arrays: the oracle of the row-group kernels.
template <typename ValueType, typename IndexType>
void spmm(const GroupedEll<ValueType, IndexType>& a, DenseView<const ValueType> b, DenseView<ValueType> c,
          const Epilogue<ValueType>& epilogue = {});

}  // namespace reference

}  // namespace tessel
