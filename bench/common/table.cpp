// Plain-text table printing.
#include "bench/common/table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace tessel::bench {

namespace {
bool numeric(const std::string& cell) {
    if (cell.empty()) return false;
    const char c = cell[0];
    return std::isdigit(static_cast<unsigned char>(c)) || ((c == '-' || c == '.') && cell.size() > 1);
}
}  // namespace

void TextTable::print(std::ostream& out, const std::string& indent) const {
    std::vector<std::size_t> width(header_.size(), 0);
    for (std::size_t j = 0; j < header_.size(); ++j) width[j] = header_[j].size();
    for (const auto& row : rows_)
        for (std::size_t j = 0; j < row.size() && j < width.size(); ++j)
            width[j] = std::max(width[j], row[j].size());
    auto line = [&](const std::vector<std::string>& row, bool head) {
        out << indent;
        for (std::size_t j = 0; j < width.size(); ++j) {
            const std::string cell = j < row.size() ? row[j] : "";
            const std::string pad(width[j] - cell.size(), ' ');
            const bool right = !head && numeric(cell);
            out << (j ? "  " : "") << (right ? pad + cell : cell + (j + 1 < width.size() ? pad : ""));
        }
        out << '\n';
    };
    std::size_t total = 0;
    for (auto w : width) total += w + 2;
    const std::string rule(total > 2 ? total - 2 : 0, '-');
    line(header_, true);
    out << indent << rule << '\n';
    for (const auto& row : rows_) {
        if (row.empty())
            out << indent << rule << '\n';
        else
            line(row, false);
    }
}

std::string format_number(double value, int digits) {
    if (!std::isfinite(value)) return "-";
    char buf[64];
    const double mag = std::fabs(value);
    if (mag != 0 && (mag >= 1e7 || mag < 1e-3))
        std::snprintf(buf, sizeof buf, "%.*g", digits, value);
    else {
        // Fixed notation with enough decimals for `digits` significant digits.
        int decimals = mag == 0 ? 0 : std::max(0, digits - 1 - int(std::floor(std::log10(mag))));
        std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    }
    return buf;
}

}  // namespace tessel::bench
