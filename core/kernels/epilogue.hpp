// Per-entry epilogue fused into SpMM: c = clamp(z + bias, lower, upper), or c = z when off.
#pragma once

#include <limits>

#if defined(__CUDACC__)
#define TESSEL_HOST_DEVICE __host__ __device__
#else
#define TESSEL_HOST_DEVICE
#endif

namespace tessel {

/// The sparse DNN layer uses bias_relu_cap(bias, 32): Y = min(32, max(0, Z + bias)).
template <typename ValueType>
struct Epilogue {
    bool enabled = false;
    ValueType bias = 0;
    ValueType lower = -std::numeric_limits<ValueType>::infinity();
    ValueType upper = std::numeric_limits<ValueType>::infinity();

    static Epilogue none() { return {}; }
    static Epilogue bias_relu_cap(ValueType bias, ValueType cap) {
        return {true, bias, ValueType{0}, cap};
    }

    TESSEL_HOST_DEVICE ValueType apply(ValueType z) const {
        if (!enabled) return z;
        const ValueType y = z + bias;
        return y < lower ? lower : (y > upper ? upper : y);
    }
};

}  // namespace tessel
