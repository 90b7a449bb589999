// tessel-bench-bank-order: what the shared-memory bank order (core/formats/tiled_ell_bank_order.hpp)
// does to xct's A and Aᵀ: the mean wavefronts per slot row of the cuda kernels' gather before
// and after, and the host sweep's seconds (on cuda the device runs it). With --row-groups G, the
// same for the row groups made from them (core/formats/grouped_ell.hpp, made and ordered on the
// host) and their nonzeros per staged read. A model of the kernels' shared-memory traffic,
// counted on the host: no GPU needed.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/xct/geometry/geometry.hpp"
#include "apps/xct/operator/ordering.hpp"
#include "apps/xct/operator/tiled_system_matrix.hpp"
#include "bench/common/run_bench.hpp"
#include "bench/xct/operator_fits.hpp"
#include "core/formats/grouped_ell.hpp"
#include "core/formats/tiled_ell_bank_order.hpp"
#include "core/error.hpp"
#include "core/metrics.hpp"
#include "core/timer.hpp"
#include "io/atomic_output.hpp"

using namespace tessel;
using namespace tessel::xct;

namespace {

nlohmann::json order_and_report(const char* name, TiledEll<float, Index>& m) {
    Timer timer;
    const BankOrder order = order_slots_for_banks(m);
    const double seconds = timer.seconds();
    std::printf("%-3s slot rows %12lld  wavefronts per slot row %.3f -> %.3f  (host sweep %.2f s)\n", name,
                static_cast<long long>(m.stored() / 32), order.wavefronts_before, order.wavefronts_after, seconds);
    return {{"slot_rows", m.stored() / 32},
            {"wavefronts_before", order.wavefronts_before},
            {"wavefronts_after", order.wavefronts_after},
            {"host_seconds", seconds}};
}

nlohmann::json group_and_report(const char* name, const TiledEll<float, Index>& m, size_type group) {
    Timer timer;
    BankOrder order;
    const GroupedEll<float, Index> grouped = group_rows(m, group, &order);
    const double seconds = timer.seconds();
    std::printf("%-3s groups of %lld: slot rows %12lld  nonzeros per staged read %.3f  padding %.1f%%  wavefronts per "
                "quarter warp %.3f -> %.3f  (host %.2f s)\n",
                name, static_cast<long long>(group), static_cast<long long>(grouped.slots()),
                grouped.entries_per_slot(), 100.0 * grouped.padding_overhead(), order.wavefronts_before,
                order.wavefronts_after, seconds);
    return {{"group", group},
            {"slot_rows", grouped.slots()},
            {"entries_per_slot", grouped.entries_per_slot()},
            {"padding", grouped.padding_overhead()},
            {"wavefronts_before", order.wavefronts_before},
            {"wavefronts_after", order.wavefronts_after},
            {"host_seconds", seconds}};
}

}  // namespace

int run(int argc, char** argv) {
    CLI::App app{"tessel-bench-bank-order: shared-memory wavefronts of xct's A and Aᵀ before and after the bank order"};
    size_type n = 512, angles = 750, block_rows = 256, buffer_entries = 1024, row_groups = 0;
    std::string json;
    app.add_option("--n", n, "Image size (n x n pixels, n channels)")->check(CLI::PositiveNumber)->capture_default_str();
    app.add_option("--angles", angles, "Angles over 180°")->check(CLI::PositiveNumber)->capture_default_str();
    app.add_option("--block-rows", block_rows, "Tiled ELL rows per block")->capture_default_str();
    app.add_option("--buffer-entries", buffer_entries, "Staged entries per stage (cuda's default 1024)")
        ->capture_default_str();
    app.add_option("--row-groups", row_groups, "Also make row groups of this many rows (1, 2, 4 or 8) and order them")
        ->check(CLI::IsMember({0, 1, 2, 4, 8}));
    app.add_option("--json", json, "Write the figures as JSON");
    CLI11_PARSE(app, argc, argv);
    if (!json.empty()) io::check_writable(json, "--json");
    const Geometry g{n, n, uniform_angles(angles)};
    if (!xct::bench::operator_fits(g, "tessel-bench-bank-order")) return 1;
    const TiledEllConfig config{block_rows, buffer_entries};
    auto ops = build_tiled_operators<float>(g, make_ordering(g, DomainOrder::hilbert), config);
    std::printf("xct %lld^2 x %lld angles, Hilbert order, tiled ELL %lld x %lld\n", static_cast<long long>(n),
                static_cast<long long>(angles), static_cast<long long>(block_rows),
                static_cast<long long>(buffer_entries));
    nlohmann::json out{{"machine", machine_description()}, {"n", n}, {"angles", angles},
                       {"block_rows", block_rows}, {"buffer_entries", buffer_entries}};
    if (row_groups > 0) {
        check_row_groups(row_groups, block_rows);
        out["A_groups"] = group_and_report("A", ops.a, row_groups);
        out["At_groups"] = group_and_report("At", ops.at, row_groups);
    }
    out["A"] = order_and_report("A", ops.a);
    out["At"] = order_and_report("At", ops.at);
    if (!json.empty()) write_file_atomically(json, out.dump(2) + "\n");
    return 0;
}

int main(int argc, char** argv) {
    return tessel::bench::run_bench("tessel-bench-bank-order", [&] { return run(argc, argv); });
}
