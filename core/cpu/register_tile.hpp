// Splitting the K right-hand sides into register tiles of power-of-two widths (in the kernel
// region of the level being compiled, core/cpu/isa_region.hpp).
#pragma once

#include "core/cpu/isa_region.hpp"
#include "core/types.hpp"

TESSEL_CPU_ISA_BEGIN
namespace detail {

/// Calls f.template operator()<R>(k0) for consecutive tiles covering [0, k): tiles of
/// `max_factor` first, then halving widths (max_factor, ..., 2, 1) for the remainder.
/// max_factor must be one of 32, 16, 8, 4.
template <typename F>
void for_each_register_tile(size_type k, int max_factor, F&& f) {
    size_type k0 = 0;
    auto run = [&]<int R>() {
        if (R > max_factor) return;
        while (k - k0 >= R) {
            f.template operator()<R>(k0);
            k0 += R;
            if (R < max_factor) break;  // smaller widths only cover the remainder once
        }
    };
    run.template operator()<32>();
    run.template operator()<16>();
    run.template operator()<8>();
    run.template operator()<4>();
    run.template operator()<2>();
    run.template operator()<1>();
}

}  // namespace detail
TESSEL_CPU_ISA_END
