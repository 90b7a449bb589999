// Per-entry epilogue fused into SpMM: c = clamp(alpha·z + beta·c + bias, lower, upper), where z
// is the entry of A·B and c the entry of C before the call.
#pragma once

#include <limits>

#include "core/host_device.hpp"

namespace tessel {

/// BLAS's alpha and beta, then the sparse DNN layer's bias and clamp: the layer uses
/// bias_relu_cap(bias, 32), Y = min(32, max(0, Z + bias)); a sum of partial products uses
/// scaled(1, 1), C += A·B. With beta = 0 (the default) C is only written, never read, so it may
/// hold anything (NaN included) before the call.
template <typename ValueType>
struct Epilogue {
    bool enabled = false;  // the bias and the clamp
    ValueType bias = 0;
    ValueType lower = -std::numeric_limits<ValueType>::infinity();
    ValueType upper = std::numeric_limits<ValueType>::infinity();
    ValueType alpha = 1;
    ValueType beta = 0;

    static Epilogue none() { return {}; }
    static Epilogue bias_relu_cap(ValueType bias, ValueType cap) {
        return {true, bias, ValueType{0}, cap};
    }
    static Epilogue scaled(ValueType alpha, ValueType beta) {
        Epilogue e;
        e.alpha = alpha;
        e.beta = beta;
        return e;
    }

    /// True when C's old values take part (beta != 0).
    TESSEL_HOST_DEVICE bool reads_output() const { return beta != ValueType(0); }
    /// True when alpha or beta change anything.
    TESSEL_HOST_DEVICE bool scales() const { return alpha != ValueType(1) || beta != ValueType(0); }
    /// True when C = A·B exactly (kernels may then skip the pass that applies it).
    TESSEL_HOST_DEVICE bool is_identity() const { return !enabled && !scales(); }

    /// The new value of an entry of C whose old value is `old` (read only when beta != 0).
    TESSEL_HOST_DEVICE ValueType apply(ValueType z, const ValueType& old) const {
        ValueType y = alpha * z;  // exact when alpha = 1
        if (beta != ValueType(0)) y += beta * old;
        if (!enabled) return y;
        y += bias;
        return y < lower ? lower : (y > upper ? upper : y);
    }
};

}  // namespace tessel
