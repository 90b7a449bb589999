// The inspector (planning, no arithmetic): symbolic product, p x q grid, column assignment,
// blocks and chunks per process, and the predicted work and data movement of the executor.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/ccsd_abcd/inspector/chunk_partition.hpp"
#include "apps/ccsd_abcd/inspector/process_grid.hpp"
#include "apps/ccsd_abcd/inspector/symbolic_product.hpp"
#include "apps/ccsd_abcd/problem/problem.hpp"

namespace tessel::abcd {

struct InspectorOptions {
    ProcessGrid grid;
    /// Memory of one device in bytes: a block's B and C tiles get half, A the other half: all
    /// the A tiles of the device's blocks when they fit (uploaded once, kept for every block),
    /// else a chunk of A in a quarter and the prefetched next chunk in the last quarter.
    size_type device_memory = 0;
    int devices = 1;  ///< devices per process (GPUs; 1 on cpu)
    /// After the paper's mirrored-cyclic assignment, refine it by moves and swaps of columns
    /// between the most and least loaded processes of a grid row (refine_assignment).
    bool refine_columns = true;
    Precision precision = Precision::float64;
};

/// A chunk of A tiles inside a block (section 3.2.3).
struct ChunkPlan {
    std::vector<size_type> a_tiles;  ///< positions in A's shape, in the order they were added
    size_type bytes = 0;
};

/// A block of columns on one device (section 3.2.2): its B and C tiles move to the device once.
struct BlockPlan {
    int device = 0;
    std::vector<size_type> columns;  ///< columns of B / C
    std::vector<size_type> b_tiles;  ///< positions in B's shape of the tiles this grid row uses
    std::vector<size_type> c_tiles;  ///< positions in C's shape (tile rows of this grid row)
    size_type b_bytes = 0, c_bytes = 0;
    std::vector<ChunkPlan> chunks;
    double flops = 0;
    size_type gemms = 0;
};

/// Everything one process does.
struct ProcessPlan {
    int rank = 0, grid_row = 0, grid_col = 0;
    std::vector<size_type> columns;   ///< columns of B assigned to it (those with work)
    std::vector<BlockPlan> blocks;    ///< in execution order (device by device)
    std::vector<size_type> a_needed;  ///< positions of every A tile its chunks use (sorted)
    double flops = 0;
    size_type gemms = 0;
    /// Every device's A tiles (the union of its chunks) fit in half of the budget: each goes up
    /// once and stays for all the device's blocks (else A goes up chunk by chunk, per block).
    bool a_resident = false;
    size_type a_device_bytes = 0;  ///< the A tiles of the device that needs the most
    size_type a_upload_bytes = 0;  ///< A's part of h2d_bytes
    size_type h2d_bytes = 0;     ///< host -> device: B of every block, A once per device or of every chunk
    size_type d2h_bytes = 0;     ///< device -> host: C of every block
    size_type a_recv_bytes = 0;  ///< A tiles received from other ranks
    size_type a_send_bytes = 0;  ///< A tiles this rank owns, sent to others
    size_type c_send_bytes = 0;  ///< C tiles computed here, returned to their owners
    size_type c_recv_bytes = 0;  ///< C tiles owned here, computed elsewhere
    size_type chunk_count() const;
};

struct Plan {
    ProcessGrid grid;
    InspectorOptions options;
    SymbolicProduct product;
    /// column_owner[row][c]: the grid column whose process computes column c for grid row `row`.
    std::vector<std::vector<int>> column_owner;
    std::vector<ProcessPlan> processes;  ///< one per rank of the grid (rank order)
    double seconds = 0;                  ///< time the inspector took
    /// max/mean flops per process with the mirrored-cyclic assignment alone (before refinement).
    double mirrored_load_balance = 1;

    size_type block_capacity() const { return options.device_memory / 2; }
    size_type chunk_capacity() const { return options.device_memory / 4; }
    /// The device's A tiles are kept on it when they fit here (the room of the two chunks).
    size_type resident_a_capacity() const { return options.device_memory - block_capacity(); }
    /// max over processes of the flops / mean over processes (1 = perfect balance).
    double load_balance() const;
    size_type total(size_type ProcessPlan::*field) const;
    /// The human report: grid, budget, per-process blocks, chunks, flops, bytes; totals.
    std::string describe(bool per_process) const;
    nlohmann::json to_json() const;
};

/// Plans C = A·B on options.grid. Per grid row `row`, the slice of A is its tile rows
/// i ≡ row (mod p); the flops of every column of B for that slice are sorted and assigned
/// mirrored-cyclically to the q processes of the row (then refined unless
/// options.refine_columns is off); each process groups its columns into
/// blocks by worst-fit over its devices (a column needs its B tiles that meet the slice and
/// its C tiles in the slice: Σ k_k n_c + Σ m_i n_c values), and per block the A tiles it needs
/// into chunks. Throws OutOfMemoryBudget when a column does not fit in half of device_memory or
/// an A tile in a quarter ("column 17 of B needs 24.6 MiB of B and C tiles; --device-memory
/// must be at least 49.2 MiB (it is 1.0 MiB)"), InvalidInput when device_memory <= 0.
Plan inspect(const Problem& problem, const InspectorOptions& options);

}  // namespace tessel::abcd
