// Run metrics as one JSON document (phases, rates, sizes, versions, machine).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/timer.hpp"

namespace tessel {

/// Facts about this machine and build: host name, cores, CPU model, compiler, tessel
/// version, CUDA device when present.
nlohmann::json machine_description();

/// A metrics document: {"app":..., "machine":..., "phases": {...}, ...}. Callers add
/// their own keys through json().
class Metrics {
public:
    explicit Metrics(std::string app);
    nlohmann::json& json() { return doc_; }
    void set_phases(const PhaseTimes& times);
    /// Writes the document to `path` under a temporary name, then renames it into place.
    void write(const std::string& path) const;

private:
    nlohmann::json doc_;
};

/// Writes `text` to `path` atomically (temporary file in the same folder, then rename).
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace tessel
