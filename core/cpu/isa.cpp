// Choosing the cpu kernels' level: what the CPU reports (cpuid through GCC's
// __builtin_cpu_supports, which also checks that the OS saves the wide registers), or
// TESSEL_CPU_ISA.
#include "core/cpu/isa.hpp"

#include <atomic>
#include <cstdlib>

#include "core/error.hpp"

namespace tessel::cpu {

namespace {

bool cpu_runs_avx2() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2") &&
           __builtin_cpu_supports("f16c") && __builtin_cpu_supports("popcnt");
#else
    return false;
#endif
}

bool cpu_runs_avx512() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return cpu_runs_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512cd");
#else
    return false;
#endif
}

std::string known_names() { return "generic, avx2 or avx512"; }

// -1: not decided yet; else the chosen Isa.
std::atomic<int> chosen{-1};

}  // namespace

const char* isa_name(Isa isa) {
    switch (isa) {
    case Isa::avx2: return "avx2";
    case Isa::avx512: return "avx512";
    case Isa::generic: break;
    }
    return "generic";
}

std::optional<Isa> parse_isa(std::string_view name) {
    for (Isa isa : all_isas)
        if (name == isa_name(isa)) return isa;
    return std::nullopt;
}

Isa best_isa() {
    static const Isa best = cpu_runs_avx512() ? Isa::avx512 : cpu_runs_avx2() ? Isa::avx2 : Isa::generic;
    return best;
}

bool isa_supported(Isa isa) { return int(isa) <= int(best_isa()); }

std::vector<Isa> supported_isas() {
    std::vector<Isa> out;
    for (Isa isa : all_isas)
        if (isa_supported(isa)) out.push_back(isa);
    return out;
}

Isa choose_isa(const char* request, Isa best) {
    if (!request || !*request) return best;
    const std::optional<Isa> isa = parse_isa(request);
    if (!isa)
        TESSEL_INVALID_INPUT("TESSEL_CPU_ISA", 0,
                             "'" + std::string(request) + "' is not a kernel level (" + known_names() + ")");
    if (int(*isa) > int(best))
        TESSEL_INVALID_INPUT("TESSEL_CPU_ISA", 0,
                             std::string(request) + " is not supported by this CPU (its best level is " +
                                 isa_name(best) + ")");
    return *isa;
}

Isa active_isa() {
    int isa = chosen.load(std::memory_order_acquire);
    if (isa < 0) {
        isa = int(choose_isa(std::getenv("TESSEL_CPU_ISA"), best_isa()));
        int expected = -1;
        if (!chosen.compare_exchange_strong(expected, isa, std::memory_order_acq_rel)) isa = expected;
    }
    return Isa(isa);
}

void force_isa(Isa isa) {
    if (!isa_supported(isa))
        TESSEL_INVALID_INPUT("cpu kernel level", 0,
                             std::string(isa_name(isa)) + " is not supported by this CPU (its best level is " +
                                 isa_name(best_isa()) + ")");
    chosen.store(int(isa), std::memory_order_release);
}

ScopedIsa::ScopedIsa(Isa isa) : previous_(active_isa()) { force_isa(isa); }

ScopedIsa::~ScopedIsa() { chosen.store(int(previous_), std::memory_order_release); }

std::string isa_description() {
    const Isa isa = active_isa();
    const char* env = std::getenv("TESSEL_CPU_ISA");
    const bool requested = env && *env;
    return std::string("cpu kernels: ") + isa_name(isa) + " (best on this CPU: " + isa_name(best_isa()) +
           (requested ? "; TESSEL_CPU_ISA" : "") + ")";
}

}  // namespace tessel::cpu
