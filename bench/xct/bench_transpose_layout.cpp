// tessel-bench-transpose-layout: the host's share of Aᵀ on cuda, tiled_ell_transpose_layout
// (core/formats/tiled_ell_transpose.hpp) of xct's A: the passes that size Aᵀ's stages and slots
// and fill its maps while the device makes the slots. Best of --repeat runs, after one trace.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/xct/geometry/geometry.hpp"
#include "apps/xct/operator/ordering.hpp"
#include "apps/xct/operator/tiled_system_matrix.hpp"
#include "bench/common/run_bench.hpp"
#include "bench/xct/operator_fits.hpp"
#include "core/error.hpp"
#include "core/formats/tiled_ell_transpose.hpp"
#include "core/metrics.hpp"
#include "core/timer.hpp"
#include "io/atomic_output.hpp"

using namespace tessel;
using namespace tessel::xct;

int run(int argc, char** argv) {
    CLI::App app{"tessel-bench-transpose-layout: the host's layout of xct's Aᵀ (tiled_ell_transpose_layout)"};
    size_type n = 512, angles = 375, block_rows = 256, buffer_entries = 768;
    int repeat = 3;
    std::string json;
    app.add_option("--n", n, "Image size (n x n pixels, n channels)")->check(CLI::PositiveNumber)->capture_default_str();
    app.add_option("--angles", angles, "Angles over 180° (375: the half A of xct's 750-angle turn)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--block-rows", block_rows, "Tiled ELL rows per block")->capture_default_str();
    app.add_option("--buffer-entries", buffer_entries, "Staged entries per stage (cuda's default 768)")
        ->capture_default_str();
    app.add_option("--repeat", repeat, "Layouts timed (the best reported)")->check(CLI::PositiveNumber)->capture_default_str();
    app.add_option("--json", json, "Write the figures as JSON");
    CLI11_PARSE(app, argc, argv);
    if (!json.empty()) io::check_writable(json, "--json");
    const Geometry g{n, n, uniform_angles(angles)};
    if (!xct::bench::operator_fits(g, "tessel-bench-transpose-layout")) return 1;
    const TiledEllConfig config{block_rows, buffer_entries};
    Timer trace_timer;
    const auto a = trace_tiled<float>(g, make_ordering(g, DomainOrder::hilbert), 0, g.num_rays(), config);
    const double trace_seconds = trace_timer.seconds();
    double best = std::numeric_limits<double>::infinity();
    size_type stages = 0;
    for (int r = 0; r < repeat; ++r) {
        Timer timer;
        const auto layout = tiled_ell_transpose_layout(a, config);
        best = std::min(best, timer.seconds());
        stages = layout.num_stages();
    }
    std::printf("xct %lld^2 x %lld angles, tiled ELL %lld x %lld: nnz %lld, trace %.3f s, Aᵀ layout %.3f s (best of %d), "
                "%lld stages\n",
                static_cast<long long>(n), static_cast<long long>(angles), static_cast<long long>(block_rows),
                static_cast<long long>(buffer_entries), static_cast<long long>(a.nnz), trace_seconds, best, repeat,
                static_cast<long long>(stages));
    const nlohmann::json out{{"machine", machine_description()}, {"n", n}, {"angles", angles},
                             {"block_rows", block_rows}, {"buffer_entries", buffer_entries}, {"nnz", a.nnz},
                             {"trace_seconds", trace_seconds}, {"layout_seconds", best}, {"stages", stages}};
    if (!json.empty()) write_file_atomically(json, out.dump(2) + "\n");
    return 0;
}

int main(int argc, char** argv) {
    return tessel::bench::run_bench("tessel-bench-transpose-layout", [&] { return run(argc, argv); });
}
