// Plain-text tables for benchmark output: columns sized to their widest cell.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tessel::bench {

/// A table of strings printed with aligned columns (numbers right-aligned, text left).
class TextTable {
public:
    explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
    void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
    /// A horizontal rule between groups of rows.
    void add_rule() { rows_.emplace_back(); }
    bool empty() const { return rows_.empty(); }
    void print(std::ostream& out, const std::string& indent = "  ") const;

private:
    std::vector<std::string> header_;
    std::vector<std::vector<std::string>> rows_;
};

/// `value` with `digits` significant digits, without exponent for everyday magnitudes.
std::string format_number(double value, int digits = 3);

}  // namespace tessel::bench
