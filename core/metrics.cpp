// Metrics documents and machine description.
#include "core/metrics.hpp"

#include <unistd.h>

#include <cstdio>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/app/machine.hpp"
#include "core/error.hpp"
#include "core/cpu/isa.hpp"
#include "core/kernels/spmm_kernels.hpp"
#include "core/version.hpp"

namespace tessel {

nlohmann::json machine_description() {
    return {{"host", host_name()},
            {"cpu", cpu_model()},
            {"hardware_threads", std::thread::hardware_concurrency()},
            {"compiler", __VERSION__},
            {"cpu_kernels", cpu::isa_name(cpu::active_isa())},
            {"cpu_kernels_best", cpu::isa_name(cpu::best_isa())},
            {"tessel_version", version},
            {"cuda_device", cuda::device_description()}};
}

Metrics::Metrics(std::string app) {
    doc_["app"] = std::move(app);
    doc_["machine"] = machine_description();
}

void Metrics::set_phases(const PhaseTimes& times) {
    for (const auto& [phase, seconds] : times.all()) doc_["phases"][phase] = seconds;
}

void Metrics::write(const std::string& path) const { write_file_atomically(path, doc_.dump(2) + "\n"); }

void write_file_atomically(const std::string& path, const std::string& text) {
    const std::string tmp = path + ".tmp." + std::to_string(getpid());
    {
        std::ofstream out(tmp, std::ios::binary);
        if (!out) TESSEL_INVALID_INPUT(path, 0, std::string("cannot open for writing: ") + std::strerror(errno));
        out << text;
        if (!out.flush()) {
            const int saved = errno;
            out.close();
            std::filesystem::remove(tmp);
            TESSEL_INVALID_INPUT(path, 0, std::string("write failed: ") + std::strerror(saved));
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        TESSEL_INVALID_INPUT(path, 0, "cannot rename temporary file into place: " + ec.message());
    }
}

}  // namespace tessel
