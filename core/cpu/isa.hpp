// The x86-64 level the cpu kernels run at, chosen once at start-up from what the CPU reports
// (or forced by TESSEL_CPU_ISA): the hot kernels are compiled once per level into the same
// binary (core/cpu/isa_region.hpp), each with register tiles sized for its own register file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessel::cpu {

/// The compiled kernel levels: generic (baseline x86-64, SSE2, 16 xmm registers), avx2
/// (x86-64-v3: AVX2, FMA, F16C, BMI2; 16 ymm) and avx512 (x86-64-v4: AVX-512 F/VL/BW/DQ/CD;
/// 32 zmm). Ordered: a CPU that runs a level runs every level below it.
enum class Isa { generic = 0, avx2 = 1, avx512 = 2 };

/// Every level, lowest first.
inline constexpr Isa all_isas[] = {Isa::generic, Isa::avx2, Isa::avx512};

/// "generic", "avx2" or "avx512" (the values TESSEL_CPU_ISA takes).
const char* isa_name(Isa isa);

/// The level named `name`, or nothing for an unknown name.
std::optional<Isa> parse_isa(std::string_view name);

/// The highest level this CPU (and its operating system, for the wider registers' state) runs.
Isa best_isa();

/// True when this CPU runs `isa`.
bool isa_supported(Isa isa);

/// The levels this CPU runs, lowest first.
std::vector<Isa> supported_isas();

/// The level for a TESSEL_CPU_ISA value `request` (null or empty: `best`) on a CPU whose best
/// level is `best`. Throws InvalidInput ("TESSEL_CPU_ISA: ...") for an unknown name or a level
/// above `best`.
Isa choose_isa(const char* request, Isa best);

/// The level the kernels run at: choose_isa(getenv("TESSEL_CPU_ISA"), best_isa()), decided on
/// the first call, unless force_isa changed it since. Throws as choose_isa does.
Isa active_isa();

/// Makes the kernels run at `isa` from now on (tests and benchmarks compare the levels).
/// Throws InvalidInput when this CPU does not run it.
void force_isa(Isa isa);

/// Forces a level for the lifetime of the object, then restores the one before.
class ScopedIsa {
public:
    explicit ScopedIsa(Isa isa);
    ~ScopedIsa();
    ScopedIsa(const ScopedIsa&) = delete;
    ScopedIsa& operator=(const ScopedIsa&) = delete;

private:
    Isa previous_;
};

/// The level of the kernels that the dispatch reaches now (the name of the variant object it
/// calls): isa_name(active_isa()) unless the dispatch is broken.
const char* dispatched_isa_name();

/// One line for --verbose: "cpu kernels: avx512 (best on this CPU: avx512)", with
/// "(TESSEL_CPU_ISA)" when the level was forced.
std::string isa_description();

}  // namespace tessel::cpu
