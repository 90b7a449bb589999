// Calling a kernel at the level chosen at start-up (core/cpu/isa.hpp): the entry points in
// namespace tessel::cpu check their arguments once, then hand over to the same kernel compiled
// for that level (core/cpu/variant_kernels.hpp declares them).
#pragma once

#include "core/cpu/isa.hpp"
#include "core/cpu/variant_kernels.hpp"

/// `return` the call (a function of the variant namespaces, with its arguments) made at the
/// active level.
#define TESSEL_CPU_DISPATCH(...)                                           \
    switch (::tessel::cpu::active_isa()) {                                 \
    case ::tessel::cpu::Isa::avx512: return ::tessel::cpu::isa_avx512::__VA_ARGS__; \
    case ::tessel::cpu::Isa::avx2: return ::tessel::cpu::isa_avx2::__VA_ARGS__;     \
    case ::tessel::cpu::Isa::generic: break;                               \
    }                                                                      \
    return ::tessel::cpu::isa_generic::__VA_ARGS__
