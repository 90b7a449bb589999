// The inspector: from shapes to a plan of blocks and chunks per process.
#include "apps/ccsd_abcd/inspector/inspector.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>

#include "apps/ccsd_abcd/inspector/block_partition.hpp"
#include "apps/ccsd_abcd/inspector/column_assignment.hpp"
#include "core/app/byte_size.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"

namespace tessel::abcd {


size_type ProcessPlan::chunk_count() const {
    size_type n = 0;
    for (const auto& b : blocks) n += static_cast<size_type>(b.chunks.size());
    return n;
}

double Plan::load_balance() const {
    double max = 0, sum = 0;
    for (const auto& pp : processes) {
        max = std::max(max, pp.flops);
        sum += pp.flops;
    }
    return sum > 0 ? max / (sum / double(processes.size())) : 1.0;
}

size_type Plan::total(size_type ProcessPlan::*field) const {
    size_type t = 0;
    for (const auto& pp : processes) t += pp.*field;
    return t;
}

namespace {

// What every step of the inspector reads: the tilings and shapes, the transposes of B and C
// (their rows are the columns of B and C) and the size of a value.
struct Shapes {
    const ProcessGrid& g;
    const TileShape& a;
    const TileShape& c;
    const Tiling& mt;
    const Tiling& kt;
    const Tiling& nt;
    const size_type vb;
    std::vector<size_type> bt_pos;  // position in B of every tile of bt
    const TileShape bt;             // columns of B: bt row c lists k
    std::vector<size_type> ct_pos;  // position in C of every tile of ct
    const TileShape ct;             // columns of C: ct row c lists i

    Shapes(const Problem& problem, const Plan& plan)
        : g(plan.grid),
          a(problem.a_shape),
          c(plan.product.c_shape),
          mt(problem.m_tiling),
          kt(problem.k_tiling),
          nt(problem.n_tiling),
          vb(value_bytes(plan.options.precision)),
          bt(problem.b_shape.transpose(&bt_pos)),
          ct(plan.product.c_shape.transpose(&ct_pos)) {}
};

// The largest A tile (it must fit in a chunk, a quarter of the budget).
struct LargestATile {
    size_type bytes = 0, position = -1;
};

LargestATile largest_a_tile(const Shapes& s) {
    LargestATile w;
    for (size_type i = 0; i < s.a.rows(); ++i)
        for (size_type e = s.a.row_ptr()[i]; e < s.a.row_ptr()[i + 1]; ++e) {
            const size_type bytes = s.mt.size(i) * s.kt.size(s.a.col_idx()[e]) * s.vb;
            if (bytes > w.bytes) { w.bytes = bytes; w.position = e; }
        }
    return w;
}

// Per grid row: the k its slice of A uses, the bytes of B and C tiles of every column, the
// flops of every column; and the largest column over all rows.
struct GridRows {
    std::vector<std::vector<char>> k_used;
    std::vector<std::vector<size_type>> column_bytes;
    std::vector<std::vector<double>> column_flops;
    size_type worst_col_bytes = 0, worst_col = -1;
    int worst_row = 0;
};

// The k of the tiles A(i, k) with i in grid row `row`'s slice.
std::vector<char> k_used_by_row(const Shapes& s, int row) {
    std::vector<char> used(static_cast<std::size_t>(s.kt.count()), 0);
    for (size_type i = row; i < s.a.rows(); i += s.g.p)
        for (size_type e = s.a.row_ptr()[i]; e < s.a.row_ptr()[i + 1]; ++e) used[s.a.col_idx()[e]] = 1;
    return used;
}

// Bytes of the B tiles (rows `used`) and C tiles (grid row `row`) of every column.
void measure_columns(const Shapes& s, int row, GridRows& r) {
    const auto& used = r.k_used[row];
    auto& bytes = r.column_bytes[row];
    bytes.assign(static_cast<std::size_t>(s.nt.count()), 0);
    for (size_type col = 0; col < s.nt.count(); ++col) {
        size_type sum = 0;
        for (size_type e = s.bt.row_ptr()[col]; e < s.bt.row_ptr()[col + 1]; ++e)
            if (used[s.bt.col_idx()[e]]) sum += s.kt.size(s.bt.col_idx()[e]) * s.nt.size(col) * s.vb;
        for (size_type e = s.ct.row_ptr()[col]; e < s.ct.row_ptr()[col + 1]; ++e)
            if (s.ct.col_idx()[e] % s.g.p == row) sum += s.mt.size(s.ct.col_idx()[e]) * s.nt.size(col) * s.vb;
        bytes[col] = sum;
        if (sum > r.worst_col_bytes) { r.worst_col_bytes = sum; r.worst_col = col; r.worst_row = row; }
    }
}

// Columns to the processes of every grid row (mirrored-cyclic, then refined on request); the
// load balance of the mirrored-cyclic assignment alone goes into the plan.
GridRows assign_columns(const Shapes& s, Plan& plan) {
    const ProcessGrid& g = s.g;
    GridRows r;
    r.k_used.resize(static_cast<std::size_t>(g.p));
    r.column_bytes.resize(static_cast<std::size_t>(g.p));
    r.column_flops.resize(static_cast<std::size_t>(g.p));
    plan.column_owner.resize(static_cast<std::size_t>(g.p));
    std::vector<double> mirrored_loads;
    for (int row = 0; row < g.p; ++row) {
        r.k_used[row] = k_used_by_row(s, row);
        measure_columns(s, row, r);
        r.column_flops[row] = column_flops(plan.product, row, g.p);
        plan.column_owner[row] = assign_columns_mirrored_cyclic(r.column_flops[row], g.q);
        for (double l : process_loads(plan.column_owner[row], r.column_flops[row], g.q)) mirrored_loads.push_back(l);
        if (plan.options.refine_columns) refine_assignment(plan.column_owner[row], r.column_flops[row], g.q);
    }
    double max = 0, sum = 0;
    for (double l : mirrored_loads) {
        max = std::max(max, l);
        sum += l;
    }
    plan.mirrored_load_balance = sum > 0 ? max / (sum / double(g.size())) : 1.0;
    return r;
}

// A block holds half of the budget and a chunk a quarter: the largest column and the largest
// A tile must fit, else OutOfMemoryBudget says which and the budget needed.
void check_budget(const Shapes& s, const GridRows& r, const LargestATile& worst_a, size_type budget) {
    const size_type need = std::max(2 * r.worst_col_bytes, 4 * worst_a.bytes);
    if (need <= budget) return;
    std::string why;
    if (2 * r.worst_col_bytes >= 4 * worst_a.bytes)
        why = "column " + std::to_string(r.worst_col) + " of B" +
              (s.g.p > 1 ? " (grid row " + std::to_string(r.worst_row) + ")" : std::string()) + " needs " +
              app::format_bytes(double(r.worst_col_bytes)) + " of B and C tiles and a block holds half of the budget";
    else
        why = "tile (" + std::to_string(s.a.row_of(worst_a.position)) + ", " +
              std::to_string(s.a.col_idx()[worst_a.position]) + ") of A needs " + app::format_bytes(double(worst_a.bytes)) +
              " and a chunk holds a quarter of the budget";
    TESSEL_THROW(OutOfMemoryBudget, why + "; --device-memory must be at least " + std::to_string(need) + " bytes (" +
                                        app::format_bytes(double(need)) + "), it is " + std::to_string(budget) + " (" +
                                        app::format_bytes(double(budget)) + ")");
}

// The B tiles (rows k its slice of A uses; marked in k_needed) and C tiles (its grid row) of
// the block's columns, with their bytes, flops and GEMMs.
void add_b_and_c_tiles(const Shapes& s, const Plan& plan, const GridRows& r, int row, BlockPlan& bp,
                       std::vector<char>& k_needed) {
    for (auto col : bp.columns) {
        for (size_type e = s.bt.row_ptr()[col]; e < s.bt.row_ptr()[col + 1]; ++e) {
            const size_type k = s.bt.col_idx()[e];
            if (!r.k_used[row][k]) continue;
            k_needed[k] = 1;
            bp.b_tiles.push_back(s.bt_pos[e]);
            bp.b_bytes += s.kt.size(k) * s.nt.size(col) * s.vb;
        }
        for (size_type e = s.ct.row_ptr()[col]; e < s.ct.row_ptr()[col + 1]; ++e) {
            const size_type i = s.ct.col_idx()[e];
            if (i % s.g.p != row) continue;
            const size_type pos = s.ct_pos[e];
            bp.c_tiles.push_back(pos);
            bp.c_bytes += s.mt.size(i) * s.nt.size(col) * s.vb;
            bp.flops += plan.product.tile_flops[pos];
            bp.gemms += plan.product.tile_gemms[pos];
        }
    }
    std::sort(bp.b_tiles.begin(), bp.b_tiles.end());
    std::sort(bp.c_tiles.begin(), bp.c_tiles.end());
}

// The A tiles of the grid row's slice whose k the block needs, row by row, cut into chunks.
void add_chunks(const Shapes& s, const Plan& plan, int row, const std::vector<char>& k_needed, BlockPlan& bp,
                std::vector<char>& a_needed) {
    std::vector<std::vector<ATileRef>> rows;
    for (size_type i = row; i < s.a.rows(); i += s.g.p) {
        std::vector<ATileRef> list;
        for (size_type e = s.a.row_ptr()[i]; e < s.a.row_ptr()[i + 1]; ++e)
            if (k_needed[s.a.col_idx()[e]]) {
                list.push_back({e, s.mt.size(i) * s.kt.size(s.a.col_idx()[e]) * s.vb});
                a_needed[e] = 1;
            }
        if (!list.empty()) rows.push_back(std::move(list));
    }
    for (auto& ch : partition_into_chunks(rows, plan.chunk_capacity()))
        bp.chunks.push_back(ChunkPlan{std::move(ch.tiles), ch.bytes});
}

// The block's work and host<->device bytes on its process, and its C tiles owned elsewhere.
void count_block(const Shapes& s, const BlockPlan& bp, ProcessPlan& pp, Plan& plan) {
    pp.flops += bp.flops;
    pp.gemms += bp.gemms;
    pp.h2d_bytes += bp.b_bytes;
    pp.d2h_bytes += bp.c_bytes;
    for (auto pos : bp.c_tiles) {
        const size_type i = s.c.row_of(pos), col = s.c.col_idx()[pos];
        const int owner = s.g.c_owner(i, col);
        if (owner != pp.rank) {
            const size_type bytes = s.mt.size(i) * s.nt.size(col) * s.vb;
            pp.c_send_bytes += bytes;
            plan.processes[owner].c_recv_bytes += bytes;
        }
    }
}

// The A tiles the process needs, and those it receives from their owners.
void count_a_tiles(const Shapes& s, const std::vector<char>& a_needed, ProcessPlan& pp, Plan& plan) {
    for (size_type e = 0; e < s.a.nnz(); ++e)
        if (a_needed[e]) {
            pp.a_needed.push_back(e);
            const size_type i = s.a.row_of(e), k = s.a.col_idx()[e];
            const int owner = s.g.a_owner(i, k);
            if (owner != pp.rank) {
                const size_type bytes = s.mt.size(i) * s.kt.size(k) * s.vb;
                pp.a_recv_bytes += bytes;
                plan.processes[owner].a_send_bytes += bytes;
            }
        }
}

// A's bytes to the devices: every device's A tiles once when they all fit the resident half of
// the budget, else every chunk of every block.
void count_a_uploads(const Shapes& s, const Plan& plan, ProcessPlan& pp) {
    int devices = 0;
    for (const auto& bp : pp.blocks) devices = std::max(devices, bp.device + 1);
    size_type chunked = 0, resident = 0;
    for (int d = 0; d < devices; ++d) {
        std::vector<char> seen(static_cast<std::size_t>(s.a.nnz()), 0);
        size_type bytes = 0;
        for (const auto& bp : pp.blocks) {
            if (bp.device != d) continue;
            for (const auto& ch : bp.chunks) {
                chunked += ch.bytes;
                for (size_type e : ch.a_tiles)
                    if (!std::exchange(seen[static_cast<std::size_t>(e)], char(1)))
                        bytes += s.mt.size(s.a.row_of(e)) * s.kt.size(s.a.col_idx()[e]) * s.vb;
            }
        }
        pp.a_device_bytes = std::max(pp.a_device_bytes, bytes);
        resident += bytes;
    }
    pp.a_resident = pp.a_device_bytes <= plan.resident_a_capacity();
    pp.a_upload_bytes = pp.a_resident ? resident : chunked;
    pp.h2d_bytes += pp.a_upload_bytes;
}

// One process's columns cut into blocks, each block's tiles and chunks. `k_needed` is all
// zero on entry and on return.
void plan_process(const Shapes& s, const GridRows& r, ProcessPlan& pp, Plan& plan, std::vector<char>& k_needed) {
    const int row = pp.grid_row;
    for (size_type col = 0; col < s.nt.count(); ++col)
        if (plan.column_owner[row][col] == pp.grid_col && r.column_flops[row][col] > 0) pp.columns.push_back(col);
    std::vector<size_type> sizes;
    for (auto col : pp.columns) sizes.push_back(r.column_bytes[row][col]);
    auto blocks = partition_into_blocks(pp.columns, sizes, plan.block_capacity(), plan.options.devices);
    // Execution order: device by device, each device's blocks in opening order.
    std::stable_sort(blocks.begin(), blocks.end(), [](const ColumnBlock& x, const ColumnBlock& y) { return x.device < y.device; });
    std::vector<char> a_needed(static_cast<std::size_t>(s.a.nnz()), 0);
    for (auto& cb : blocks) {
        BlockPlan bp;
        bp.device = cb.device;
        bp.columns = cb.columns;
        std::sort(bp.columns.begin(), bp.columns.end());
        add_b_and_c_tiles(s, plan, r, row, bp, k_needed);
        add_chunks(s, plan, row, k_needed, bp, a_needed);
        for (auto col : bp.columns)
            for (size_type e = s.bt.row_ptr()[col]; e < s.bt.row_ptr()[col + 1]; ++e) k_needed[s.bt.col_idx()[e]] = 0;
        count_block(s, bp, pp, plan);
        pp.blocks.push_back(std::move(bp));
    }
    count_a_tiles(s, a_needed, pp, plan);
    count_a_uploads(s, plan, pp);
}

}  // namespace

Plan inspect(const Problem& problem, const InspectorOptions& options) {
    Timer timer;
    if (options.device_memory <= 0)
        TESSEL_INVALID_INPUT("--device-memory", 0, "must be positive");
    if (options.devices < 1) TESSEL_INVALID_INPUT("devices", 0, "at least one device per process");
    Plan plan;
    plan.grid = options.grid;
    plan.options = options;
    plan.product = symbolic_product(problem);
    const Shapes s(problem, plan);
    const LargestATile worst_a = largest_a_tile(s);
    plan.processes.resize(static_cast<std::size_t>(s.g.size()));
    for (int r = 0; r < s.g.size(); ++r) {
        plan.processes[r].rank = r;
        plan.processes[r].grid_row = s.g.row_of(r);
        plan.processes[r].grid_col = s.g.col_of(r);
    }
    const GridRows rows = assign_columns(s, plan);
    check_budget(s, rows, worst_a, options.device_memory);
    std::vector<char> k_needed(static_cast<std::size_t>(s.kt.count()), 0);
    for (auto& pp : plan.processes) plan_process(s, rows, pp, plan, k_needed);
    plan.seconds = timer.seconds();
    return plan;
}

std::string Plan::describe(bool per_process) const {
    std::ostringstream s;
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "plan: grid %s, %d device(s) per process with %s each (blocks of B and C <= %s, chunks of A <= %s)\n",
                  grid.describe().c_str(), options.devices, app::format_bytes(double(options.device_memory)).c_str(),
                  app::format_bytes(double(block_capacity())).c_str(), app::format_bytes(double(chunk_capacity())).c_str());
    s << buf;
    if (per_process)
        for (const auto& pp : processes) {
            std::snprintf(buf, sizeof buf,
                          "  rank %d (%d,%d): %zu columns, %zu blocks, %lld chunks, %.3f GFLOP in %lld GEMMs, "
                          "A in %s, C out %s; %s A on the device %s\n",
                          pp.rank, pp.grid_row, pp.grid_col, pp.columns.size(), pp.blocks.size(),
                          static_cast<long long>(pp.chunk_count()), pp.flops * 1e-9, static_cast<long long>(pp.gemms),
                          app::format_bytes(double(pp.a_recv_bytes)).c_str(), app::format_bytes(double(pp.c_send_bytes)).c_str(),
                          app::format_bytes(double(pp.a_device_bytes)).c_str(),
                          pp.a_resident ? "kept (up once)" : "by chunks (more than half the budget)");
            s << buf;
        }
    size_type blocks = 0, chunks = 0;
    for (const auto& pp : processes) {
        blocks += static_cast<size_type>(pp.blocks.size());
        chunks += pp.chunk_count();
    }
    std::snprintf(buf, sizeof buf,
                  "  %lld blocks, %lld chunks; load balance (max/mean flops per process) %.3f%s; inspector %.3f s\n"
                  "  predicted bytes: host->device %s, device->host %s, A between ranks %s, C between ranks %s\n",
                  static_cast<long long>(blocks), static_cast<long long>(chunks), load_balance(),
                  options.refine_columns
                      ? (" (mirrored-cyclic alone " + std::to_string(mirrored_load_balance).substr(0, 5) + ")").c_str()
                      : " (mirrored-cyclic)",
                  seconds,
                  app::format_bytes(double(total(&ProcessPlan::h2d_bytes))).c_str(),
                  app::format_bytes(double(total(&ProcessPlan::d2h_bytes))).c_str(),
                  app::format_bytes(double(total(&ProcessPlan::a_recv_bytes))).c_str(),
                  app::format_bytes(double(total(&ProcessPlan::c_send_bytes))).c_str());
    s << buf;
    return s.str();
}

nlohmann::json Plan::to_json() const {
    nlohmann::json j;
    j["grid"] = {{"p", grid.p}, {"q", grid.q}};
    j["device_memory_bytes"] = options.device_memory;
    j["devices_per_process"] = options.devices;
    j["flops"] = product.flops;
    j["gemms"] = product.gemms;
    j["c_tiles"] = product.c_shape.nnz();
    j["load_balance_max_over_mean"] = load_balance();
    j["load_balance_mirrored_cyclic"] = mirrored_load_balance;
    j["columns_refined"] = options.refine_columns;
    j["seconds"] = seconds;
    j["predicted_bytes"] = {{"host_to_device", total(&ProcessPlan::h2d_bytes)},
                            {"device_to_host", total(&ProcessPlan::d2h_bytes)},
                            {"a_between_ranks", total(&ProcessPlan::a_recv_bytes)},
                            {"c_between_ranks", total(&ProcessPlan::c_send_bytes)}};
    auto& procs = j["processes"] = nlohmann::json::array();
    for (const auto& pp : processes)
        procs.push_back({{"rank", pp.rank},
                         {"grid_row", pp.grid_row},
                         {"grid_col", pp.grid_col},
                         {"columns", pp.columns.size()},
                         {"blocks", pp.blocks.size()},
                         {"chunks", pp.chunk_count()},
                         {"flops", pp.flops},
                         {"gemms", pp.gemms},
                         {"a_resident", pp.a_resident},
                         {"a_device_bytes", pp.a_device_bytes},
                         {"host_to_device_bytes", pp.h2d_bytes},
                         {"device_to_host_bytes", pp.d2h_bytes},
                         {"a_recv_bytes", pp.a_recv_bytes},
                         {"a_send_bytes", pp.a_send_bytes},
                         {"c_send_bytes", pp.c_send_bytes},
                         {"c_recv_bytes", pp.c_recv_bytes}});
    return j;
}

}  // namespace tessel::abcd
