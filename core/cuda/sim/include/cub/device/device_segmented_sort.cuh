// tessel's CUDA simulator: CUB's segmented sort of (key, value) pairs as tessel calls it. The
// first call (no temporary storage) asks for its size; the second sorts every segment by key.
// A stand-in: it checks its arguments and sorts on the host with std::stable_sort.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include "core/cuda/sim/stand_ins/stand_in_support.hpp"

namespace cub {

struct DeviceSegmentedSort {
    template <typename K, typename V, typename Begin, typename End>
    static cudaError_t SortPairs(void* temp, std::size_t& temp_bytes, const K* keys_in, K* keys_out,
                                 const V* values_in, V* values_out, long long items, long long segments,
                                 Begin begin_offsets, End end_offsets, cudaStream_t stream = nullptr) {
        if (items < 0 || segments < 0) return cudaErrorInvalidValue;
        if (temp == nullptr) {
            temp_bytes = 256 + std::size_t(segments) * sizeof(long long);
            return cudaSuccess;
        }
        using tessel::sim::is_device_range;
        if (temp_bytes < 256 + std::size_t(segments) * sizeof(long long) || !is_device_range(temp, temp_bytes) ||
            !is_device_range(keys_in, items * sizeof(K)) || !is_device_range(keys_out, items * sizeof(K)) ||
            !is_device_range(values_in, items * sizeof(V)) || !is_device_range(values_out, items * sizeof(V)))
            return cudaErrorInvalidValue;
        tessel::sim::note_stand_in("cub::DeviceSegmentedSort::SortPairs", "std::stable_sort per segment");
        tessel::sim::drain_stream(stream);  // the sort runs after the work queued before it
        std::vector<long long> order;
        for (long long s = 0; s < segments; ++s) {
            const long long b = begin_offsets[s], e = end_offsets[s];
            if (b < 0 || e < b || e > items) return cudaErrorInvalidValue;
            order.resize(std::size_t(e - b));
            std::iota(order.begin(), order.end(), b);
            std::stable_sort(order.begin(), order.end(), [&](long long x, long long y) { return keys_in[x] < keys_in[y]; });
            for (long long i = b; i < e; ++i) {
                keys_out[i] = keys_in[order[std::size_t(i - b)]];
                values_out[i] = values_in[order[std::size_t(i - b)]];
            }
        }
        return cudaSuccess;
    }
};

}  // namespace cub
