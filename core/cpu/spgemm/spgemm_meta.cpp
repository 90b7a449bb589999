// The SpGEMM meta-algorithm, accumulator names and the plan summary printed by --verbose.
#include "core/cpu/spgemm/spgemm_meta.hpp"

#include <algorithm>
#include <cstdio>

namespace tessel {

std::string_view to_string(SpgemmAccumulator accumulator) {
    switch (accumulator) {
    case SpgemmAccumulator::automatic: return "auto";
    case SpgemmAccumulator::dense: return "dense";
    case SpgemmAccumulator::hash: return "hash";
    case SpgemmAccumulator::ordered_map: return "ordered-map";
    case SpgemmAccumulator::cuda_hash: return "cuda-hash";
    case SpgemmAccumulator::cusparse: return "cusparse";
    }
    return "unknown";
}

std::string SpgemmPlan::describe() const {
    char line[512];
    std::snprintf(line, sizeof line,
                  "spgemm %s: C %lldx%lld nnz %lld flops %lld MAXRF %lld MAXRS %lld | symbolic %s%s "
                  "(CF %.2f) | numeric %s, hash L1 %lld slots, L2 %lld slots, %lld B/thread | %s",
                  std::string(to_string(backend)).c_str(), (long long)rows, (long long)cols,
                  (long long)nnz(), (long long)flops, (long long)max_row_flops,
                  (long long)max_row_nnz, std::string(to_string(symbolic_accumulator)).c_str(),
                  compressed ? " on bit sets" : "", compression_ratio,
                  std::string(to_string(numeric_accumulator)).c_str(), (long long)hash_l1_slots,
                  (long long)hash_l2_slots, (long long)scratch_bytes,
                  sort_columns ? "sorted" : "unsorted");
    std::string text(line);
    if (prefetch_b_rows) text += ", B's rows prefetched";
    if (!reason.empty()) text += " | " + reason;
    return text;
}

namespace cpu {

SpgemmPhaseChoice choose_spgemm_accumulator(const SpgemmPhaseShape& shape,
                                            const SpgemmOptions& options) {
    if (options.accumulator == SpgemmAccumulator::dense ||
        options.accumulator == SpgemmAccumulator::hash)
        return {options.accumulator, "forced by options"};
    if (shape.cols <= options.dense_column_limit)
        return {SpgemmAccumulator::dense,
                "dense: " + std::to_string(shape.cols) + " columns <= " +
                    std::to_string(options.dense_column_limit)};
    const size_type dense_bytes = shape.cols * shape.dense_entry_bytes;
    const size_type hash_bytes =
        next_pow2(2 * std::min(shape.max_row_estimate, shape.cols)) * shape.hash_slot_bytes;
    if (hash_bytes >= dense_bytes)
        return {SpgemmAccumulator::dense,
                "dense: longest row estimate " + std::to_string(shape.max_row_estimate) +
                    " needs a hash as large as " + std::to_string(shape.cols) + " columns"};
    return {SpgemmAccumulator::hash,
            "hash: " + std::to_string(shape.cols) + " columns > " +
                std::to_string(options.dense_column_limit) + ", longest row estimate " +
                std::to_string(shape.max_row_estimate)};
}

}  // namespace cpu

}  // namespace tessel
