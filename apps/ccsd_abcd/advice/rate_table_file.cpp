// The rate table on disk: this machine's key (host, CPU or device, BLAS, precision), the JSON
// file, and the per-machine cache that is measured once and read afterwards.
#include "apps/ccsd_abcd/advice/gemm_rate_table.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/app/machine.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/kernels/gemm_kernels.hpp"
#include "core/metrics.hpp"
#include "core/timer.hpp"

namespace tessel::abcd {

namespace {

std::string cache_dir() {
    if (const char* d = std::getenv("TESSEL_CACHE_DIR"); d && *d) return d;
    if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/tessel";
    if (const char* d = std::getenv("HOME"); d && *d) return std::string(d) + "/.cache/tessel";
    return "/tmp/tessel-cache";
}

}  // namespace

std::string machine_key(bool double_precision) {
    return host_name() + " / " + cpu_model() + " / " + cpu::blas_library() + " / " + (double_precision ? "double" : "float");
}

std::string cuda_machine_key(bool double_precision) {
    if (!cuda::device_available())
        TESSEL_THROW(CudaError, "the cuda rate table needs a CUDA device: " + cuda::device_description());
    return host_name() + " / cuda: " + cuda::device_description() + " / cuBLAS / " + (double_precision ? "double" : "float");
}

std::string rate_table_cache_path(const std::string& machine) {
    std::ostringstream name;
    name << cache_dir() << "/abcd-gemm-rates-" << std::hex << std::hash<std::string>{}(machine) << ".json";
    return name.str();
}

std::string rate_table_json(const GemmRateTable& t) {
    nlohmann::json j;
    j["format"] = "tessel-abcd gemm rates";
    j["backend"] = t.backend;
    j["machine"] = t.machine;
    j["sizes"] = t.sizes;
    j["rates_flops_per_second"] = t.rates;
    j["gemm_overhead_seconds"] = t.gemm_overhead_seconds;
    j["fill_seconds_per_value"] = t.fill_seconds_per_value;
    j["tile_overhead_seconds"] = t.tile_overhead_seconds;
    j["first_touch_seconds_per_value"] = t.first_touch_seconds_per_value;
    j["h2d_seconds_per_byte"] = t.h2d_seconds_per_byte;
    j["d2h_seconds_per_byte"] = t.d2h_seconds_per_byte;
    j["version"] = rate_table_version;
    return j.dump(1) + "\n";
}

GemmRateTable read_rate_table(const std::string& path) {
    std::ifstream in(path);
    if (!in) TESSEL_INVALID_INPUT(path, 0, "cannot be read");
    GemmRateTable t;
    try {
        const auto j = nlohmann::json::parse(in);
        if (j.value("format", "") != "tessel-abcd gemm rates") TESSEL_INVALID_INPUT(path, 0, "not a tessel-abcd rate table");
        t.backend = j.value("backend", std::string("cpu"));
        t.machine = j.at("machine").get<std::string>();
        t.sizes = j.at("sizes").get<std::vector<size_type>>();
        t.rates = j.at("rates_flops_per_second").get<std::vector<double>>();
        t.gemm_overhead_seconds = j.at("gemm_overhead_seconds").get<double>();
        t.fill_seconds_per_value = j.at("fill_seconds_per_value").get<double>();
        t.tile_overhead_seconds = j.value("tile_overhead_seconds", 0.0);
        t.first_touch_seconds_per_value = j.value("first_touch_seconds_per_value", 0.0);
        t.h2d_seconds_per_byte = j.value("h2d_seconds_per_byte", 0.0);
        t.d2h_seconds_per_byte = j.value("d2h_seconds_per_byte", 0.0);
        t.version = j.value("version", 1);
    } catch (const nlohmann::json::exception& e) {
        TESSEL_INVALID_INPUT(path, 0, std::string("not a rate table: ") + e.what());
    }
    t.validate(path);
    return t;
}

GemmRateTable machine_rate_table(bool double_precision, bool recalibrate, std::string* note, bool cuda) {
    const std::string key = cuda ? cuda_machine_key(double_precision) : machine_key(double_precision);
    const std::string path = rate_table_cache_path(key);
    if (!recalibrate && std::filesystem::exists(path)) {
        try {
            GemmRateTable t = read_rate_table(path);
            // Another machine's table, or an older one (other sizes, no first-touch cost): measured again.
            const auto sizes = cuda ? default_cuda_rate_table_sizes() : default_rate_table_sizes();
            if (t.machine == key && t.sizes == sizes && t.version == rate_table_version) {
                if (note) *note = "cached in " + path;
                return t;
            }
        } catch (const Error&) {
            // an unreadable cache is measured again below
        }
    }
    Timer timer;
    // cuda: 1 ms per shape and round (a few seconds for the table): the device's timings are
    // steady, and the cuda executor's line needs the table in an ordinary run (issue 33).
    GemmRateTable t = cuda ? measure_cuda_gemm_rate_table(double_precision, default_cuda_rate_table_sizes(), 0.001)
                           : measure_gemm_rate_table(double_precision, default_rate_table_sizes());
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    std::string saved = "not cached: " + path + " cannot be written";
    try {
        write_file_atomically(path, rate_table_json(t));
        saved = "cached in " + path;
    } catch (const Error&) {
    }
    if (note) {
        char secs[32];
        std::snprintf(secs, sizeof secs, "%.1f", timer.seconds());
        *note = std::string("measured now in ") + secs + " s, " + saved;
    }
    return t;
}

}  // namespace tessel::abcd
