// The inspector: from shapes to a plan of blocks and chunks per process.
#include "apps/ccsd_abcd/inspector.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "apps/ccsd_abcd/block_partition.hpp"
#include "apps/ccsd_abcd/column_assignment.hpp"
#include "core/app/byte_size.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"

namespace tessel::abcd {

std::string format_bytes(double bytes) { return app::format_bytes(bytes); }

size_type parse_bytes(const std::string& text, const std::string& what) {
    return static_cast<size_type>(app::parse_bytes(text, what));
}

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

struct SliceInfo {
    std::vector<char> k_used;  // some A(i, k) with i in the slice
};

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
    const ProcessGrid& g = options.grid;
    const size_type vb = value_bytes(options.precision);
    const TileShape& a = problem.a_shape;
    const TileShape& b = problem.b_shape;
    const TileShape& c = plan.product.c_shape;
    const Tiling& mt = problem.m_tiling;
    const Tiling& kt = problem.k_tiling;
    const Tiling& nt = problem.n_tiling;
    std::vector<size_type> bt_pos;
    const TileShape bt = b.transpose(&bt_pos);  // columns of B: bt row c lists k, bt_pos its position in B
    std::vector<size_type> ct_pos;
    const TileShape ct = c.transpose(&ct_pos);

    // The largest A tile must fit in a chunk (a quarter of the budget).
    size_type worst_a = 0, worst_a_pos = -1;
    for (size_type i = 0; i < a.rows(); ++i)
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e) {
            const size_type bytes = mt.size(i) * kt.size(a.col_idx()[e]) * vb;
            if (bytes > worst_a) { worst_a = bytes; worst_a_pos = e; }
        }

    plan.column_owner.resize(static_cast<std::size_t>(g.p));
    plan.processes.resize(static_cast<std::size_t>(g.size()));
    for (int r = 0; r < g.size(); ++r) {
        plan.processes[r].rank = r;
        plan.processes[r].grid_row = g.row_of(r);
        plan.processes[r].grid_col = g.col_of(r);
    }

    // Per grid row: k used by the slice, column memory, and the assignment.
    std::vector<std::vector<size_type>> column_bytes(static_cast<std::size_t>(g.p));
    size_type worst_col_bytes = 0, worst_col = -1;
    int worst_row = 0;
    std::vector<std::vector<char>> k_used(static_cast<std::size_t>(g.p));
    std::vector<std::vector<double>> row_col_flops(static_cast<std::size_t>(g.p));
    std::vector<double> mirrored_loads;
    for (int row = 0; row < g.p; ++row) {
        auto& used = k_used[row];
        used.assign(static_cast<std::size_t>(kt.count()), 0);
        for (size_type i = row; i < a.rows(); i += g.p)
            for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e) used[a.col_idx()[e]] = 1;
        auto& bytes = column_bytes[row];
        bytes.assign(static_cast<std::size_t>(nt.count()), 0);
        for (size_type col = 0; col < nt.count(); ++col) {
            size_type sum = 0;
            for (size_type e = bt.row_ptr()[col]; e < bt.row_ptr()[col + 1]; ++e)
                if (used[bt.col_idx()[e]]) sum += kt.size(bt.col_idx()[e]) * nt.size(col) * vb;
            for (size_type e = ct.row_ptr()[col]; e < ct.row_ptr()[col + 1]; ++e)
                if (ct.col_idx()[e] % g.p == row) sum += mt.size(ct.col_idx()[e]) * nt.size(col) * vb;
            bytes[col] = sum;
            if (sum > worst_col_bytes) { worst_col_bytes = sum; worst_col = col; worst_row = row; }
        }
        row_col_flops[row] = column_flops(plan.product, row, g.p);
        plan.column_owner[row] = assign_columns_mirrored_cyclic(row_col_flops[row], g.q);
        for (double l : process_loads(plan.column_owner[row], row_col_flops[row], g.q)) mirrored_loads.push_back(l);
        if (options.refine_columns) refine_assignment(plan.column_owner[row], row_col_flops[row], g.q);
    }
    {
        double max = 0, sum = 0;
        for (double l : mirrored_loads) {
            max = std::max(max, l);
            sum += l;
        }
        plan.mirrored_load_balance = sum > 0 ? max / (sum / double(g.size())) : 1.0;
    }
    const size_type need = std::max(2 * worst_col_bytes, 4 * worst_a);
    if (need > options.device_memory) {
        std::string why;
        if (2 * worst_col_bytes >= 4 * worst_a)
            why = "column " + std::to_string(worst_col) + " of B" +
                  (g.p > 1 ? " (grid row " + std::to_string(worst_row) + ")" : std::string()) + " needs " +
                  format_bytes(double(worst_col_bytes)) + " of B and C tiles and a block holds half of the budget";
        else
            why = "tile (" + std::to_string(a.row_of(worst_a_pos)) + ", " + std::to_string(a.col_idx()[worst_a_pos]) +
                  ") of A needs " + format_bytes(double(worst_a)) + " and a chunk holds a quarter of the budget";
        TESSEL_THROW(OutOfMemoryBudget, why + "; --device-memory must be at least " + std::to_string(need) + " bytes (" +
                                            format_bytes(double(need)) + "), it is " +
                                            std::to_string(options.device_memory) + " (" +
                                            format_bytes(double(options.device_memory)) + ")");
    }

    std::vector<char> in_block(static_cast<std::size_t>(nt.count()), 0);
    std::vector<char> k_needed(static_cast<std::size_t>(kt.count()), 0);
    for (auto& pp : plan.processes) {
        const int row = pp.grid_row;
        for (size_type col = 0; col < nt.count(); ++col)
            if (plan.column_owner[row][col] == pp.grid_col && row_col_flops[row][col] > 0) pp.columns.push_back(col);
        std::vector<size_type> sizes;
        for (auto col : pp.columns) sizes.push_back(column_bytes[row][col]);
        auto blocks = partition_into_blocks(pp.columns, sizes, plan.block_capacity(), options.devices);
        // Execution order: device by device, each device's blocks in opening order.
        std::stable_sort(blocks.begin(), blocks.end(), [](const ColumnBlock& x, const ColumnBlock& y) { return x.device < y.device; });
        std::vector<char> a_needed(static_cast<std::size_t>(a.nnz()), 0);
        for (auto& cb : blocks) {
            BlockPlan bp;
            bp.device = cb.device;
            bp.columns = cb.columns;
            std::sort(bp.columns.begin(), bp.columns.end());
            for (auto col : bp.columns) {
                in_block[col] = 1;
                for (size_type e = bt.row_ptr()[col]; e < bt.row_ptr()[col + 1]; ++e) {
                    const size_type k = bt.col_idx()[e];
                    if (!k_used[row][k]) continue;
                    k_needed[k] = 1;
                    bp.b_tiles.push_back(bt_pos[e]);
                    bp.b_bytes += kt.size(k) * nt.size(col) * vb;
                }
                for (size_type e = ct.row_ptr()[col]; e < ct.row_ptr()[col + 1]; ++e) {
                    const size_type i = ct.col_idx()[e];
                    if (i % g.p != row) continue;
                    const size_type pos = ct_pos[e];
                    bp.c_tiles.push_back(pos);
                    bp.c_bytes += mt.size(i) * nt.size(col) * vb;
                    bp.flops += plan.product.tile_flops[pos];
                    bp.gemms += plan.product.tile_gemms[pos];
                }
            }
            std::sort(bp.b_tiles.begin(), bp.b_tiles.end());
            std::sort(bp.c_tiles.begin(), bp.c_tiles.end());
            std::vector<std::vector<ATileRef>> rows;
            for (size_type i = row; i < a.rows(); i += g.p) {
                std::vector<ATileRef> list;
                for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e)
                    if (k_needed[a.col_idx()[e]]) {
                        list.push_back({e, mt.size(i) * kt.size(a.col_idx()[e]) * vb});
                        a_needed[e] = 1;
                    }
                if (!list.empty()) rows.push_back(std::move(list));
            }
            for (auto& ch : partition_into_chunks(rows, plan.chunk_capacity()))
                bp.chunks.push_back(ChunkPlan{std::move(ch.tiles), ch.bytes});
            for (auto col : bp.columns) {
                in_block[col] = 0;
                for (size_type e = bt.row_ptr()[col]; e < bt.row_ptr()[col + 1]; ++e) k_needed[bt.col_idx()[e]] = 0;
            }
            pp.flops += bp.flops;
            pp.gemms += bp.gemms;
            pp.h2d_bytes += bp.b_bytes;
            for (const auto& ch : bp.chunks) pp.h2d_bytes += ch.bytes;
            pp.d2h_bytes += bp.c_bytes;
            for (auto pos : bp.c_tiles) {
                const size_type i = c.row_of(pos), col = c.col_idx()[pos];
                const int owner = g.c_owner(i, col);
                if (owner != pp.rank) {
                    const size_type bytes = mt.size(i) * nt.size(col) * vb;
                    pp.c_send_bytes += bytes;
                    plan.processes[owner].c_recv_bytes += bytes;
                }
            }
            pp.blocks.push_back(std::move(bp));
        }
        for (size_type e = 0; e < a.nnz(); ++e)
            if (a_needed[e]) {
                pp.a_needed.push_back(e);
                const size_type i = a.row_of(e), k = a.col_idx()[e];
                const int owner = g.a_owner(i, k);
                if (owner != pp.rank) {
                    const size_type bytes = mt.size(i) * kt.size(k) * vb;
                    pp.a_recv_bytes += bytes;
                    plan.processes[owner].a_send_bytes += bytes;
                }
            }
    }
    plan.seconds = timer.seconds();
    return plan;
}

std::string Plan::describe(bool per_process) const {
    std::ostringstream s;
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "plan: grid %s, %d device(s) per process with %s each (blocks of B and C <= %s, chunks of A <= %s)\n",
                  grid.describe().c_str(), options.devices, format_bytes(double(options.device_memory)).c_str(),
                  format_bytes(double(block_capacity())).c_str(), format_bytes(double(chunk_capacity())).c_str());
    s << buf;
    if (per_process)
        for (const auto& pp : processes) {
            std::snprintf(buf, sizeof buf,
                          "  rank %d (%d,%d): %zu columns, %zu blocks, %lld chunks, %.3f GFLOP in %lld GEMMs, "
                          "A in %s, C out %s\n",
                          pp.rank, pp.grid_row, pp.grid_col, pp.columns.size(), pp.blocks.size(),
                          static_cast<long long>(pp.chunk_count()), pp.flops * 1e-9, static_cast<long long>(pp.gemms),
                          format_bytes(double(pp.a_recv_bytes)).c_str(), format_bytes(double(pp.c_send_bytes)).c_str());
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
                  format_bytes(double(total(&ProcessPlan::h2d_bytes))).c_str(),
                  format_bytes(double(total(&ProcessPlan::d2h_bytes))).c_str(),
                  format_bytes(double(total(&ProcessPlan::a_recv_bytes))).c_str(),
                  format_bytes(double(total(&ProcessPlan::c_send_bytes))).c_str());
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
                         {"host_to_device_bytes", pp.h2d_bytes},
                         {"device_to_host_bytes", pp.d2h_bytes},
                         {"a_recv_bytes", pp.a_recv_bytes},
                         {"a_send_bytes", pp.a_send_bytes},
                         {"c_send_bytes", pp.c_send_bytes},
                         {"c_recv_bytes", pp.c_recv_bytes}});
    return j;
}

}  // namespace tessel::abcd
