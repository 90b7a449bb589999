// What a run tells its user: the summary lines, the check against a truth file, and the
// metrics JSON document.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/spdnn/driver/inference.hpp"

namespace tessel::spdnn {

/// Differences between an answer and the truth, both 1-based ascending ids.
struct CheckResult {
    size_type missing = 0;  // in the truth, not in the answer
    size_type extra = 0;    // in the answer, not in the truth
    /// The first few differences, as "image 17: in the truth, not in the answer".
    std::vector<std::string> first;
    bool ok() const { return missing == 0 && extra == 0; }
};

/// Compares answer and truth; keeps up to `keep` difference lines.
CheckResult compare_categories(const std::vector<std::int64_t>& answer,
                               const std::vector<std::int64_t>& truth, size_type keep = 10);

/// The human summary: rate, time split by phase, live rows and time per layer (grouped
/// where they repeat).
std::string summary_text(const InferenceResult& result, size_type neurons, size_type layers);

/// The metrics of one inference as JSON: sizes, options, seconds, rate, phases, and per layer
/// live rows and seconds.
nlohmann::json result_json(const InferenceResult& result);

}  // namespace tessel::spdnn
