// Matrix Market coordinate reader (parallel std::from_chars over the whole file) and writer.
#include "io/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include "core/app/memory_check.hpp"
#include "core/error.hpp"
#include "core/instantiate.hpp"
#include "io/detail/line_parser.hpp"
#include "io/detail/text_writer.hpp"
#include "io/file_buffer.hpp"

namespace tessel::io {

namespace {

using detail::LineError;

enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew_symmetric };

struct Banner {
    Field field = Field::real;
    Symmetry symmetry = Symmetry::general;
};

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

Banner parse_banner(const std::string& path, std::string_view line) {
    std::string_view f[5];
    const int n = detail::split_fields(line, f, 5);
    if (n < 1 || !iequals(f[0], "%%MatrixMarket") || n != 5)
        TESSEL_INVALID_INPUT(path, 1,
                             "bad banner, expected '%%MatrixMarket matrix coordinate "
                             "{real|integer|pattern} {general|symmetric}'");
    if (!iequals(f[1], "matrix"))
        TESSEL_INVALID_INPUT(path, 1, "unsupported object '" + lower(f[1]) + "', expected 'matrix'");
    if (!iequals(f[2], "coordinate"))
        TESSEL_INVALID_INPUT(path, 1, "unsupported format '" + lower(f[2]) + "', expected 'coordinate'");
    Banner banner;
    if (iequals(f[3], "real") || iequals(f[3], "double"))
        banner.field = Field::real;
    else if (iequals(f[3], "integer"))
        banner.field = Field::integer;
    else if (iequals(f[3], "pattern"))
        banner.field = Field::pattern;
    else
        TESSEL_INVALID_INPUT(path, 1, "unsupported field '" + lower(f[3]) +
                                          "', expected real, integer or pattern");
    if (iequals(f[4], "general"))
        banner.symmetry = Symmetry::general;
    else if (iequals(f[4], "symmetric"))
        banner.symmetry = Symmetry::symmetric;
    else if (iequals(f[4], "skew-symmetric"))
        banner.symmetry = Symmetry::skew_symmetric;
    else
        TESSEL_INVALID_INPUT(path, 1, "unsupported symmetry '" + lower(f[4]) +
                                          "', expected general, symmetric or skew-symmetric");
    return banner;
}

/// Cuts the next line (without '\n' and '\r') off `rest`; false at the end of the text.
bool next_line(std::string_view& rest, std::string_view& line) {
    if (rest.empty()) return false;
    const auto nl = rest.find('\n');
    line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return true;
}

bool skipped(std::string_view line) {
    for (char c : line) {
        if (c == '%') return true;
        if (!detail::is_blank(c) && c != '\r') return false;
    }
    return true;
}

template <typename V, typename I>
struct Entry {
    I row;
    I col;
    V value;
};

// The size line after the banner and comments: rows, columns and declared entries, checked
// against the index type and the symmetry. `line_no` ends on the size line.
struct SizeLine {
    std::int64_t rows = -1, cols = -1, declared = -1;
};

template <typename I>
SizeLine read_size_line(const std::string& path, std::string_view& rest, const Banner& banner, std::int64_t& line_no) {
    std::string_view line;
    bool have_size = false;
    while (next_line(rest, line)) {
        ++line_no;
        if (!skipped(line)) {
            have_size = true;
            break;
        }
    }
    if (!have_size) TESSEL_INVALID_INPUT(path, line_no + 1, "file ends before the size line");
    std::string_view f[3];
    SizeLine size;
    try {
        if (detail::split_fields(line, f, 3) != 3) throw LineError{};
        size.rows = detail::parse_integer(f[0], "rows");
        size.cols = detail::parse_integer(f[1], "columns");
        size.declared = detail::parse_integer(f[2], "entries");
    } catch (const LineError&) {
    }
    if (size.rows < 0 || size.cols < 0 || size.declared < 0)
        TESSEL_INVALID_INPUT(path, line_no, "bad size line, expected 'rows columns entries'");
    const std::int64_t index_max = std::numeric_limits<I>::max();
    if (size.rows - 1 > index_max || size.cols - 1 > index_max)
        TESSEL_INVALID_INPUT(path, line_no, "size " + std::to_string(size.rows) + " x " + std::to_string(size.cols) +
                                                " does not fit " + std::to_string(8 * sizeof(I)) +
                                                "-bit indices");
    if (banner.symmetry != Symmetry::general && size.rows != size.cols)
        TESSEL_INVALID_INPUT(path, line_no, "symmetric matrix must be square, found " +
                                                std::to_string(size.rows) + " x " + std::to_string(size.cols));
    return size;
}

// The entries found against the declared count: too few (the file ends early) or too many
// (the first surplus line named).
void check_entry_count(const std::string& path, std::string_view body, std::int64_t line_no, std::int64_t found,
                       std::int64_t declared) {
    if (found < declared)
        TESSEL_INVALID_INPUT(path, line_no + detail::count_lines(body) + 1,
                             "file ends after " + std::to_string(found) + " of the " +
                                 std::to_string(declared) + " declared entries");
    if (found > declared) {
        // Rare error path: walk the lines again to name the first surplus one.
        std::string_view scan = body, entry;
        std::int64_t seen = 0, at = line_no;
        while (next_line(scan, entry)) {
            ++at;
            if (!skipped(entry) && ++seen > declared) break;
        }
        TESSEL_INVALID_INPUT(path, at, "more entries than the " + std::to_string(declared) + " declared");
    }
}

// The chunks' entries in file order into one COO, a mirrored entry right after its original.
template <typename V, typename I>
Coo<V, I> gather_entries(const std::vector<std::vector<Entry<V, I>>>& chunks, const Banner& banner, const SizeLine& size) {
    const bool mirror = banner.symmetry != Symmetry::general;
    const V mirror_sign = banner.symmetry == Symmetry::skew_symmetric ? V{-1} : V{1};
    std::vector<std::size_t> out_offsets(chunks.size() + 1, 0);
    for (std::size_t k = 0; k < chunks.size(); ++k) {
        std::size_t count = chunks[k].size();
        if (mirror)
            for (const auto& e : chunks[k]) count += e.row != e.col;
        out_offsets[k + 1] = out_offsets[k] + count;
    }
    Coo<V, I> coo;
    coo.rows = size.rows;
    coo.cols = size.cols;
    coo.row.resize(out_offsets.back());
    coo.col.resize(out_offsets.back());
    coo.values.resize(out_offsets.back());
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t k = 0; k < chunks.size(); ++k) {
        std::size_t pos = out_offsets[k];
        for (const auto& e : chunks[k]) {
            coo.row[pos] = e.row;
            coo.col[pos] = e.col;
            coo.values[pos++] = e.value;
            if (mirror && e.row != e.col) {
                coo.row[pos] = e.col;
                coo.col[pos] = e.row;
                coo.values[pos++] = mirror_sign * e.value;
            }
        }
    }
    return coo;
}

}  // namespace

template <typename V, typename I>
Coo<V, I> read_matrix_market(const std::string& path) {
    const std::string text = read_whole_file(path);
    std::string_view rest(text), line;
    if (!next_line(rest, line)) TESSEL_INVALID_INPUT(path, 1, "empty file, expected the %%MatrixMarket banner");
    const Banner banner = parse_banner(path, line);
    std::int64_t line_no = 1;
    const SizeLine size = read_size_line<I>(path, rest, banner, line_no);
    const std::int64_t rows = size.rows, cols = size.cols;

    const int expected_columns = banner.field == Field::pattern ? 2 : 3;
    const std::string column_names = banner.field == Field::pattern ? " (row column)" : " (row column value)";
    const std::string row_range = " outside 1.." + std::to_string(rows);
    const std::string col_range = " outside 1.." + std::to_string(cols);
    auto parse = [&](std::string_view entry, std::vector<Entry<V, I>>& out) {
        if (skipped(entry)) return;
        std::string_view fields[3];
        const int n = detail::split_fields(entry, fields, 3);
        if (n != expected_columns)
            throw LineError{"expected " + std::to_string(expected_columns) + " columns" + column_names +
                            ", found " + std::to_string(n)};
        const std::int64_t i = detail::parse_integer(fields[0], "row index");
        if (i < 1 || i > rows) throw LineError{"row index " + std::to_string(i) + row_range};
        const std::int64_t j = detail::parse_integer(fields[1], "column index");
        if (j < 1 || j > cols) throw LineError{"column index " + std::to_string(j) + col_range};
        V value{1};
        if (banner.field == Field::real)
            value = detail::parse_real<V>(fields[2]);
        else if (banner.field == Field::integer)
            value = static_cast<V>(detail::parse_integer(fields[2], "value"));
        out.push_back({static_cast<I>(i - 1), static_cast<I>(j - 1), value});
    };
    const std::string_view body = rest;
    const auto chunks = detail::parse_lines<Entry<V, I>>(path, body, line_no + 1, parse);
    const auto offsets = detail::chunk_offsets(chunks);
    check_entry_count(path, body, line_no, static_cast<std::int64_t>(offsets.back()), size.declared);
    return gather_entries(chunks, banner, size);
}

template <typename V, typename I>
Csr<V, I> read_matrix_market_csr(const std::string& path) {
    const auto coo = read_matrix_market<V, I>(path);
    // A 3-line file may declare 2e9 x 2e9: csr_from_coo's row counts, insertion points and row
    // pointers (3 x 8 bytes a row) are 48 GB, beside the COO and the CSR's entries.
    app::require_memory(path, "the CSR matrix of " + std::to_string(coo.rows) + " x " + std::to_string(coo.cols),
                        24.0 * double(coo.rows + 1) + 2.0 * double(coo.values.size()) * double(sizeof(V) + 2 * sizeof(I)));
    return csr_from_coo(coo, path);
}

template <typename V, typename I>
void write_matrix_market(const std::string& path, const Csr<V, I>& a) {
    detail::TextWriter out(path);
    out.put("%%MatrixMarket matrix coordinate real general\n% written by tessel\n");
    out.put_number(a.rows());
    out.put(' ');
    out.put_number(a.cols());
    out.put(' ');
    out.put_number(a.nnz());
    out.put('\n');
    for (size_type i = 0; i < a.rows(); ++i)
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e) {
            out.put_number(i + 1);
            out.put(' ');
            out.put_number(static_cast<std::int64_t>(a.col_idx()[e]) + 1);
            out.put(' ');
            out.put_number(a.values()[e]);
            out.put('\n');
        }
    out.commit();
}

#define TESSEL_INSTANTIATE(V, I)                                                 \
    template Coo<V, I> read_matrix_market<V, I>(const std::string&);             \
    template Csr<V, I> read_matrix_market_csr<V, I>(const std::string&);         \
    template void write_matrix_market<V, I>(const std::string&, const Csr<V, I>&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::io
