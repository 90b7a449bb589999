// The per-level kernel region of a core/cpu source compiled once per x86-64 level (CMake
// compiles the variant sources with TESSEL_CPU_ISA_LEVEL = 1, 3 or 4; core/cpu/isa.hpp
// chooses among them at run time).
//
// Why a region and not -march flags: an inline function or template (ours or the standard
// library's) instantiated in an AVX-512 object and in a baseline one is one COMDAT symbol, and
// the linker keeps either copy, so a baseline CPU could meet AVX-512 code outside the kernels.
// So every variant source is compiled with the baseline flags; its kernel code, written after
// all its #includes, sits between TESSEL_CPU_ISA_BEGIN and TESSEL_CPU_ISA_END, which
//  - puts it in a namespace of its own level (tessel::cpu::isa_generic, isa_avx2, isa_avx512),
//    so no symbol of one level can stand in for another's, and
//  - compiles it for the level (#pragma GCC target): templates and inline functions defined
//    before the region (the standard library, core's formats) stay baseline code wherever they
//    are instantiated, and the compiler may still inline them into the kernels.
// scripts/check_isa_confinement.sh (a ctest) disassembles the binaries and fails when code
// outside isa_avx2 / isa_avx512 uses an instruction above the baseline.
#pragma once

#if !defined(TESSEL_CPU_ISA_LEVEL)
#error "core/cpu/isa_region.hpp: this source is compiled once per level (TESSEL_CPU_ISA_LEVEL from core/CMakeLists.txt)"
#endif

// The helpers of the baseline code that the kernels share (tessel::cpu::detail) are seen from
// each level's own detail namespace.
namespace tessel::cpu::detail {}

#define TESSEL_CPU_PRAGMA_TEXT(x) _Pragma(#x)
#define TESSEL_CPU_PRAGMA(x) TESSEL_CPU_PRAGMA_TEXT(x)

#if TESSEL_CPU_ISA_LEVEL == 4
#define TESSEL_CPU_ISA_NS isa_avx512
#define TESSEL_CPU_ISA_TARGET \
    "sse3,ssse3,sse4.1,sse4.2,popcnt,avx,avx2,fma,f16c,bmi,bmi2,lzcnt,movbe,avx512f,avx512vl,avx512bw,avx512dq,avx512cd"
#elif TESSEL_CPU_ISA_LEVEL == 3
#define TESSEL_CPU_ISA_NS isa_avx2
#define TESSEL_CPU_ISA_TARGET "sse3,ssse3,sse4.1,sse4.2,popcnt,avx,avx2,fma,f16c,bmi,bmi2,lzcnt,movbe"
#elif TESSEL_CPU_ISA_LEVEL == 1
#define TESSEL_CPU_ISA_NS isa_generic
#else
#error "core/cpu/isa_region.hpp: TESSEL_CPU_ISA_LEVEL must be 1 (generic), 3 (avx2) or 4 (avx512)"
#endif

#if defined(TESSEL_CPU_ISA_TARGET) && defined(__clang__)
#define TESSEL_CPU_ISA_TARGET_PUSH \
    TESSEL_CPU_PRAGMA(clang attribute push(__attribute__((target(TESSEL_CPU_ISA_TARGET))), apply_to = function))
#define TESSEL_CPU_ISA_TARGET_POP TESSEL_CPU_PRAGMA(clang attribute pop)
#elif defined(TESSEL_CPU_ISA_TARGET)
#define TESSEL_CPU_ISA_TARGET_PUSH TESSEL_CPU_PRAGMA(GCC push_options) TESSEL_CPU_PRAGMA(GCC target(TESSEL_CPU_ISA_TARGET))
#define TESSEL_CPU_ISA_TARGET_POP TESSEL_CPU_PRAGMA(GCC pop_options)
#else
#define TESSEL_CPU_ISA_TARGET_PUSH
#define TESSEL_CPU_ISA_TARGET_POP
#endif

#define TESSEL_CPU_ISA_BEGIN                                     \
    TESSEL_CPU_ISA_TARGET_PUSH                                   \
    namespace tessel::cpu::TESSEL_CPU_ISA_NS {                   \
    namespace detail {                                           \
    using namespace ::tessel::cpu::detail;                       \
    }
#define TESSEL_CPU_ISA_END \
    }                      \
    TESSEL_CPU_ISA_TARGET_POP

namespace tessel::cpu::TESSEL_CPU_ISA_NS::detail {

/// This level's vector register: bytes, and how many the register file has.
inline constexpr int vector_bytes = TESSEL_CPU_ISA_LEVEL == 4 ? 64 : TESSEL_CPU_ISA_LEVEL == 3 ? 32 : 16;
inline constexpr int vector_registers = TESSEL_CPU_ISA_LEVEL == 4 ? 32 : 16;

}  // namespace tessel::cpu::TESSEL_CPU_ISA_NS::detail
