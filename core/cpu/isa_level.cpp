// The name of the level a variant object was compiled for: what the dispatch reached, for the
// tests that check every level's kernels (core/cpu/isa_dispatch.hpp).
#include "core/cpu/isa_region.hpp"

TESSEL_CPU_ISA_BEGIN

/// "generic", "avx2" or "avx512": this object's level.
const char* compiled_level() {
#if TESSEL_CPU_ISA_LEVEL == 4
    return "avx512";
#elif TESSEL_CPU_ISA_LEVEL == 3
    return "avx2";
#else
    return "generic";
#endif
}

TESSEL_CPU_ISA_END
