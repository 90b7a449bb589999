#include "apps/ccsd_abcd/driver/results.hpp"

#include <cstdio>

#include "apps/ccsd_abcd/driver/mpi.hpp"
#include "apps/ccsd_abcd/results/result_file.hpp"
#include "apps/ccsd_abcd/results/result_gather.hpp"

namespace tessel::abcd::driver {

namespace {

// R's shape and tile norms (and `tiles` when given) written by rank 0. Collective.
template <typename T>
void write_output(const Args& a, const Problem& problem, const Plan& plan, const TileStore<T>& c_owned, double flops,
                  const TileStore<T>* tiles, MPI_Comm comm) {
    const int rank = rank_of(comm), ranks = size_of(comm);
    const auto norms = c_tile_norms(c_owned, ranks > 1 ? comm : MPI_COMM_NULL);
    collective(comm, [&] {
        if (rank == 0) write_result<T>(a.output, problem, plan.product.c_shape, norms, flops, tiles);
    });
}

}  // namespace

template <typename T>
CheckedResult verify_and_write(const Args& a, const Problem& problem, const Plan& plan, const TileStore<T>& c_owned,
                               double flops, MPI_Comm comm, bool say) {
    const int rank = rank_of(comm), ranks = size_of(comm);
    CheckedResult checked;
    if (a.verify || (a.output_tiles && !a.output.empty())) {
        TileStore<T> all = gather_c_tiles(problem, plan, c_owned, rank, ranks > 1 ? comm : MPI_COMM_NULL);
        if (a.verify) {
            Verification& v = checked.verification;
            v = collective(comm, [&] {
                return rank == 0 ? verify_dense(problem, plan.product.c_shape, all) : Verification{};
            });
            checked.verified = true;
            if (say || (rank == 0 && !v.passed))
                std::printf("verify: relative error %.3g against the dense reference (<= %.0e): %s (%.2f s)\n",
                            v.relative_error, v.tolerance, v.passed ? "OK" : "FAILED", v.seconds);
            // A failed verification is an error: its line on stderr and a non-zero exit.
            if (rank == 0 && !v.passed) std::fprintf(stderr, "tessel-abcd: %s\n", verification_failure(v).c_str());
        }
        if (!a.output.empty()) write_output(a, problem, plan, c_owned, flops, a.output_tiles ? &all : nullptr, comm);
    } else if (!a.output.empty()) {
        write_output<T>(a, problem, plan, c_owned, flops, nullptr, comm);
    }
    if (say && !a.output.empty()) std::printf("result written to %s\n", a.output.c_str());
    return checked;
}

template CheckedResult verify_and_write<double>(const Args&, const Problem&, const Plan&, const TileStore<double>&,
                                                double, MPI_Comm, bool);
template CheckedResult verify_and_write<float>(const Args&, const Problem&, const Plan&, const TileStore<float>&,
                                               double, MPI_Comm, bool);

void record_results(nlohmann::json& doc, const Args& a, const ExecutorTiming& run, const ExecutorTotals& s,
                    const Plan& plan, const DgemmReference& dgemm, Backend backend, const CheckedResult& checked) {
    const ExecutionResult& er = run.result;
    doc["backend"] = er.backend;
    doc["executor_seconds"] = run.seconds;
    doc["repeats"] = nlohmann::json::array();
    for (const RepeatRecord& r : run.repeats)
        doc["repeats"].push_back({{"seconds", r.seconds},
                                  {"registered_bytes", r.registered_bytes},
                                  {"register_seconds", r.register_seconds}});
    doc["useful_flops"] = s.flops;
    doc["inspector_flops"] = plan.product.flops;
    doc["gemms"] = s.gemms;
    doc["flops_agree"] = s.flops_agree;
    doc["gflops_per_second"] = s.rate * 1e-9;
    if (dgemm.cublas) {
        doc["dgemm_reference"] = {{"kind", "cuBLAS rate table"},
                                  {"table", dgemm.table},
                                  {"devices", dgemm.devices},
                                  {"gflops_per_second", dgemm.rate * 1e-9},
                                  {"n", dgemm.square},
                                  {"square_gflops_per_second", dgemm.square_rate * 1e-9}};
        doc["fraction_of_cublas_square"] = dgemm.square_rate > 0 ? s.rate / dgemm.square_rate : 0.0;
    } else {
        doc["dgemm_reference"] = {{"kind", "host DGEMM"},
                                  {"n", a.dgemm_size},
                                  {"gflops_per_second", dgemm.rate * 1e-9},
                                  {"threaded_call_gflops", dgemm.one_call * 1e-9},
                                  {"per_core_calls_gflops", dgemm.concurrent * 1e-9}};
    }
    doc["fraction_of_dgemm"] = dgemm.rate > 0 ? s.rate / dgemm.rate : 0.0;
    doc["gemm_calls"] = er.calls;
    doc["device_setup_seconds"] = er.device_setup_seconds;
    doc["device_setup_parts"] = {{"schedule", er.device_setup_parts.schedule},
                                 {"streams", er.device_setup_parts.streams},
                                 {"buffers", er.device_setup_parts.buffers},
                                 {"upload", er.device_setup_parts.upload}};
    const auto& t = er.device_timeline;
    doc["device_timeline"] = {{"b_made", t.b_made},           {"first_a_part_up", t.first_a_part_up},
                              {"last_a_part_up", t.last_a_part_up}, {"first_c_down", t.first_c_down},
                              {"gemms_done", t.gemms_done},   {"c_down_done", t.c_down_done}};
    // This process's host-device copies, waits and launches in that run; steady = its blocks.
    doc["device_traffic"] = run.device_traffic;
    // This process's host copies into and out of pinned memory (cuda; zero on cpu).
    doc["host_copy"] = {{"a_packed_bytes", er.a_packed_bytes},
                        {"c_unpacked_bytes", er.c_unpacked_bytes},
                        {"seconds", er.host_copy_seconds},
                        {"registered_bytes", er.registered_bytes},
                        {"register_seconds", er.register_seconds}};
    doc["b_generation_core_seconds"] = s.b_generation_seconds;
    doc["a_wait_seconds_max"] = s.a_wait_seconds;
    doc["bytes_moved"] = {{"a_between_ranks", s.a_sent},
                          {"c_between_ranks", s.c_sent},
                          {"host_to_device", s.host_to_device},
                          {"device_to_host", s.device_to_host},
                          {"host_device_modelled", backend == Backend::cpu}};
    if (checked.verified) {
        const Verification& v = checked.verification;
        doc["verify"] = {{"relative_error", v.relative_error}, {"tolerance", v.tolerance}, {"passed", v.passed}};
    }
}

}  // namespace tessel::abcd::driver
