// Building and ordering the benchmark matrix, and comparing orders by reuse and by the
// inter-node volume of the reduction plans.
#include "bench/dist/bench_matrix.hpp"

#include "core/comm/exchange_plan.hpp"
#include "core/error.hpp"
#include "core/generators.hpp"
#include "core/timer.hpp"
#include "partition/balanced_partition.hpp"
#include "partition/kmeans_reorder.hpp"
#ifdef TESSEL_HAVE_METIS
#include "partition/metis_reorder.hpp"
#endif
#include "partition/permutation.hpp"
#include "partition/reduction_plan.hpp"
#include "partition/tomography.hpp"

#ifdef TESSEL_DIST_HAVE_IO
#include "io/matrix_market.hpp"
#endif

namespace tessel::bench {

BenchMatrix build_matrix(const MatrixSpec& spec) {
    BenchMatrix m;
    if (!spec.file.empty()) {
#ifdef TESSEL_DIST_HAVE_IO
        m.natural = io::read_matrix_market_csr<float, std::int32_t>(spec.file);
        m.label = spec.file;
#else
        TESSEL_INVALID_INPUT(spec.file, 0, "this build has no tessel::io to read Matrix Market");
#endif
    } else if (spec.generator == "tomo") {
        const partition::TomographyGeometry g{spec.n, spec.n, spec.n};
        m.natural = partition::parallel_beam_matrix<float, std::int32_t>(g);
        const auto order = partition::tomography_hilbert_order(g, spec.tile);
        m.hilbert_rows = order.rows;
        m.hilbert_cols = order.columns;
        m.geometric = true;
        m.label = "tomo " + std::to_string(spec.n) + "^2 px, " + std::to_string(spec.n) +
                  " angles x " + std::to_string(spec.n) + " channels";
        if (spec.transpose) {
            m.natural = transpose(m.natural);
            std::swap(m.hilbert_rows, m.hilbert_cols);
            m.label += " (A^T, back-projection)";
        }
    } else if (spec.generator == "stencil") {
        m.natural = generate::stencil_2d<float, std::int32_t>(spec.n);
        m.label = "stencil " + std::to_string(spec.n) + "^2";
    } else if (spec.generator == "random") {
        m.natural = generate::random_uniform<float, std::int32_t>(spec.n, spec.n, 16, spec.seed);
        m.label = "random " + std::to_string(spec.n) + " x 16/row";
    } else if (spec.generator == "powerlaw") {
        m.natural = generate::power_law<float, std::int32_t>(spec.n, spec.n, 16.0, 2.0, spec.seed);
        m.label = "power law " + std::to_string(spec.n) + " x ~16/row";
    } else {
        TESSEL_INVALID_INPUT("--generator", 0,
                             "unknown generator \"" + spec.generator + "\" (tomo, stencil, random, powerlaw)");
    }
    return m;
}

BenchCsr ordered(const BenchMatrix& m, const std::string& order, const MatrixSpec& spec) {
    const std::string o = order == "auto" ? (m.geometric ? "hilbert" : "natural") : order;
    if (o == "natural") return m.natural;
    if (o == "hilbert") {
        if (!m.geometric) TESSEL_INVALID_INPUT("--order", 0, "hilbert needs a matrix with geometry (tomo)");
        return partition::permute(m.natural, m.hilbert_rows, m.hilbert_cols);
    }
    if (o == "random")
        return partition::permute(m.natural, partition::random_permutation(m.natural.rows(), spec.seed),
                                  partition::random_permutation(m.natural.cols(), spec.seed + 1));
    if (o == "kmeans") {
        // Rows clustered by pattern; columns (no geometry to follow) clustered as rows of Aᵀ.
        const auto rows = partition::kmeans_row_order(m.natural, {}).order;
        const auto cols = partition::kmeans_row_order(transpose(m.natural), {}).order;
        return partition::permute(m.natural, rows, cols);
    }
    if (o == "metis") {
#ifdef TESSEL_HAVE_METIS
        // As k-means: rows partitioned by shared columns, columns as the rows of Aᵀ.
        const auto rows = partition::metis_row_order(m.natural, {}).order;
        const auto cols = partition::metis_row_order(transpose(m.natural), {}).order;
        return partition::permute(m.natural, rows, cols);
#else
        TESSEL_INVALID_INPUT("--order", 0, "metis is not in this build (METIS was not found when configuring)");
#endif
    }
    TESSEL_INVALID_INPUT("--order", 0,
                         "unknown order \"" + order + "\" (auto, natural, hilbert, kmeans, metis, random)");
}

nlohmann::json reorder_table(const BenchMatrix& m, const MatrixSpec& spec,
                             const comm::Topology& topology) {
    nlohmann::json rows = nlohmann::json::array();
    std::vector<std::string> orders = {"natural", "random"};
    if (m.geometric) orders.push_back("hilbert");
    orders.push_back("kmeans");
#ifdef TESSEL_HAVE_METIS
    orders.push_back("metis");
#endif
    const int p = topology.ranks();
    for (const auto& o : orders) {
        Timer timer;
        const auto a = ordered(m, o, spec);
        const double seconds = timer.seconds();
        const auto fp = partition::footprints(a, partition::col_offsets_by_nnz(a, p));
        const auto ro = partition::row_offsets_by_nnz(a, p);
        auto inter = [&](const std::vector<comm::ExchangePlan>& plans) {
            size_type total = 0;
            for (int q = 0; q < p; ++q) {
                const auto bytes = comm::planned_bytes_per_level(plans[q], topology, q, 4);
                for (int l = 0; l < topology.num_levels(); ++l)
                    if (topology.is_inter_node(l)) total += bytes[l];
            }
            return total;
        };
        const size_type direct = inter(partition::direct_reduction_plans(fp, ro, topology));
        const size_type hier = inter(partition::hierarchical_reduction_plans(fp, ro, topology));
        rows.push_back({{"order", o},
                        {"order_seconds", seconds},
                        {"reuse_block32", partition::tiled_ell_reuse(a, 32)},
                        {"reuse_block256", partition::tiled_ell_reuse(a, 256)},
                        {"inter_node_bytes_per_column_direct", direct},
                        {"inter_node_bytes_per_column_hierarchical", hier}});
    }
    return rows;
}

}  // namespace tessel::bench
