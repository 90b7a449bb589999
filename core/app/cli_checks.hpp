// Command-line number checks with plain messages ("--k: must be at least 1, not 0"), where
// CLI11's own PositiveNumber prints its bound as a 309-digit number. Header-only (CLI11).
#pragma once

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace tessel::app {

/// A number >= least (every value of a comma-separated list is checked).
inline CLI::Validator at_least(long long least) {
    return CLI::Validator(
        [least](std::string& text) -> std::string {
            std::size_t used = 0;
            long double value = 0;
            try {
                value = std::stold(text, &used);
            } catch (...) {
                used = 0;
            }
            if (used == 0 || used != text.size() || std::isnan(value)) return "'" + text + "' is not a number";
            if (value < static_cast<long double>(least))
                return "must be at least " + std::to_string(least) + ", not " + text;
            return {};
        },
        ">= " + std::to_string(least));
}

/// Ends a failed parse: --help and --version print as CLI11 does (exit 0); an error prints one
/// line "PROGRAM: what (see --help)" (when `speak`, rank 0 of an MPI program) and returns 2.
inline int parse_failure(const CLI::App& app, const CLI::ParseError& e, const char* program, bool speak = true) {
    if (e.get_exit_code() == 0) return speak ? app.exit(e) : 0;
    if (speak) std::fprintf(stderr, "%s: %s (see --help)\n", program, e.what());
    return 2;
}

}  // namespace tessel::app
