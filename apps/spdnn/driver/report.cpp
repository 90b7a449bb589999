// Summary text, category checks and metrics JSON.
#include "apps/spdnn/driver/report.hpp"

#include <algorithm>
#include <cstdio>

namespace tessel::spdnn {

CheckResult compare_categories(const std::vector<std::int64_t>& answer,
                               const std::vector<std::int64_t>& truth, size_type keep) {
    CheckResult r;
    std::size_t i = 0, j = 0;
    auto note = [&](std::int64_t id, const char* what) {
        if (static_cast<size_type>(r.first.size()) < keep)
            r.first.push_back("image " + std::to_string(id) + ": " + what);
    };
    while (i < answer.size() || j < truth.size()) {
        if (j == truth.size() || (i < answer.size() && answer[i] < truth[j])) {
            ++r.extra;
            note(answer[i++], "in the answer, not in the truth");
        } else if (i == answer.size() || truth[j] < answer[i]) {
            ++r.missing;
            note(truth[j++], "in the truth, not in the answer");
        } else {
            ++i;
            ++j;
        }
    }
    return r;
}

namespace {

std::string format(const char* fmt, double a = 0, double b = 0, double c = 0, double d = 0) {
    char buf[256];
    std::snprintf(buf, sizeof buf, fmt, a, b, c, d);
    return buf;
}

}  // namespace

std::string summary_text(const InferenceResult& r, size_type neurons, size_type layers) {
    std::string s;
    s += "inference: " + format("%.4f s, %.4g edges/s", r.seconds, r.edges_per_second()) +
         " (official formula: " + std::to_string(r.images) + " images x " + std::to_string(r.edges) +
         " edges / T)\n";
    s += "kernel: " + r.kernel + ", R = " + std::to_string(r.register_factor) + ", backend " + r.backend +
         ", weights " + r.weights + ", compaction " + (r.compaction ? "on" : "off") + ", " +
         std::to_string(r.ranks) + " rank(s), " + std::to_string(r.batches) + " batch(es) of " +
         std::to_string(r.batch_images) + " images";
    if (r.ranks > 1)
        s += ", " + std::to_string(r.rebalances) + " rebalance(s) moving " + std::to_string(r.rows_moved) + " rows";
    s += "\nphases:";
    for (const auto& [phase, sec] : r.phases.all())
        if (sec > 0) s += " " + phase + format(" %.4f s", sec);
    s += "\n";
    // Live rows and time per layer; consecutive layers with the same live count are grouped.
    s += "layer: live rows after it, seconds (slowest rank)\n";
    size_type k = 0;
    while (k < layers) {
        size_type e = k;
        double t = r.layers[k].seconds;
        while (e + 1 < layers && r.layers[e + 1].live_rows == r.layers[k].live_rows) t += r.layers[++e].seconds;
        if (e == k)
            s += "  " + std::to_string(k + 1) + ": " + std::to_string(r.layers[k].live_rows) +
                 format(", %.5f s\n", t);
        else
            s += "  " + std::to_string(k + 1) + "-" + std::to_string(e + 1) + ": " +
                 std::to_string(r.layers[k].live_rows) + format(" each, %.5f s in all (%.5f s per layer)\n", t, t / double(e - k + 1));
        k = e + 1;
    }
    (void)neurons;
    return s;
}

nlohmann::json result_json(const InferenceResult& r) {
    nlohmann::json j;
    j["seconds"] = r.seconds;
    j["edges_per_second"] = r.edges_per_second();
    j["images"] = r.images;
    j["edges"] = r.edges;
    j["categories"] = r.categories.size();
    j["kernel"] = r.kernel;
    j["backend"] = r.backend;
    j["weights"] = r.weights;
    j["register_factor"] = r.register_factor;
    j["compaction"] = r.compaction;
    j["ranks"] = r.ranks;
    j["batches"] = r.batches;
    j["batch_images"] = r.batch_images;
    j["rebalances"] = r.rebalances;
    j["rows_moved"] = r.rows_moved;
    for (const auto& [phase, sec] : r.phases.all()) j["inference_phases"][phase] = sec;
    auto& layers = j["layers"];
    layers = nlohmann::json::object();
    std::vector<size_type> live;
    std::vector<double> sec, kernel, compaction, rebalance, wait;
    for (const auto& l : r.layers) {
        live.push_back(l.live_rows);
        sec.push_back(l.seconds);
        kernel.push_back(l.kernel_seconds);
        compaction.push_back(l.compaction_seconds);
        rebalance.push_back(l.rebalance_seconds);
        wait.push_back(l.weight_wait_seconds);
    }
    layers["live_rows"] = live;
    layers["seconds"] = sec;
    layers["kernel_seconds"] = kernel;
    layers["compaction_seconds"] = compaction;
    layers["rebalance_seconds"] = rebalance;
    layers["weight_wait_seconds"] = wait;
    return j;
}

}  // namespace tessel::spdnn
