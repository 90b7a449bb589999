// Checks the device traffic of a tessel-spdnn --metrics file: the layer loop (steady phase) ran
// STEPS layers, and, when bounds are given, copied at most MAX_BYTES and waited at most
// MAX_WAITS times per layer. Prints the phases either way (the CI log shows the data path).
// usage: tessel-spdnn-traffic-check METRICS STEPS [MAX_BYTES MAX_WAITS]
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
    if (argc != 3 && argc != 5) {
        std::fprintf(stderr, "usage: %s METRICS STEPS [MAX_BYTES MAX_WAITS]\n", argv[0]);
        return 2;
    }
    std::ifstream in(argv[1]);
    if (!in) {
        std::fprintf(stderr, "traffic check: cannot read %s\n", argv[1]);
        return 1;
    }
    const auto t = nlohmann::json::parse(in).at("device_traffic");
    for (const char* phase : {"setup", "steady", "finish"})
        std::printf("%s: %s\n", phase, t.at(phase).dump().c_str());
    const long long steps = t.at("steady_steps").get<long long>();
    const auto& s = t.at("steady");
    const long long bytes = s.at("h2d_bytes").get<long long>() + s.at("d2h_bytes").get<long long>();
    const long long waits = s.at("synchronizations").get<long long>();
    std::printf("steady: %lld layers, %.1f bytes and %.2f waits per layer\n", steps,
                steps ? double(bytes) / double(steps) : 0.0, steps ? double(waits) / double(steps) : 0.0);
    bool ok = steps == std::atoll(argv[2]);
    if (!ok) std::printf("FAILED: %lld steady steps, expected %s\n", steps, argv[2]);
    if (argc == 5) {
        const long long max_bytes = std::atoll(argv[3]), max_waits = std::atoll(argv[4]);
        if (bytes > max_bytes * steps) {
            std::printf("FAILED: %lld bytes copied in the layer loop, allowed %lld per layer\n", bytes, max_bytes);
            ok = false;
        }
        if (waits > max_waits * steps) {
            std::printf("FAILED: %lld host waits in the layer loop, allowed %lld per layer\n", waits, max_waits);
            ok = false;
        }
    }
    if (ok) std::printf("traffic check: OK\n");
    return ok ? 0 : 1;
}
