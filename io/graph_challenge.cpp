// Graph Challenge TSV readers (whole file in memory, parallel std::from_chars) and writers.
#include "io/graph_challenge.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <utility>

#include "core/app/memory_check.hpp"
#include "core/error.hpp"
#include "core/instantiate.hpp"
#include "io/detail/line_parser.hpp"
#include "io/detail/text_writer.hpp"
#include "io/file_buffer.hpp"

namespace tessel::io {

namespace {

using detail::LineError;

/// The text without trailing blank lines and whitespace: blank lines are legal only there.
std::string_view without_trailing_blanks(std::string_view text) {
    while (!text.empty() && (detail::is_blank(text.back()) || text.back() == '\n' || text.back() == '\r'))
        text.remove_suffix(1);
    return text;
}

/// A file that does not end with a newline was cut inside its last record (a value such as
/// "0.0625" cut to "0.06" still reads as a number): the Graph Challenge files, and ours, end
/// every line with a newline.
void require_final_newline(const std::string& path, const std::string& text, std::string_view body) {
    if (!text.empty() && text.back() != '\n') {
        std::int64_t lines = 1;
        for (char c : body) lines += c == '\n';
        TESSEL_INVALID_INPUT(path, lines, "file ends inside a record (no newline after the last line): truncated?");
    }
}

template <typename V, typename I>
struct Triplet {
    I row;
    I col;
    V value;
};

/// Throws InvalidInput naming the first line whose (row, column) came before. A Graph
/// Challenge layer lists each connection once; a repeated one is a damaged file (a layer
/// written twice reads as doubled weights), so it is refused, not summed as Matrix Market
/// readers do. Called only when csr_from_coo merged entries, so the normal path stays free.
template <typename V, typename I>
[[noreturn]] void report_duplicate(const std::string& path, const Coo<V, I>& coo) {
    std::map<std::pair<I, I>, std::size_t> first_line;  // lines are records: no blank ones inside
    for (std::size_t e = 0; e < coo.values.size(); ++e) {
        const auto [at, fresh] = first_line.emplace(std::pair<I, I>(coo.row[e], coo.col[e]), e + 1);
        if (!fresh)
            TESSEL_INVALID_INPUT(path, static_cast<std::int64_t>(e + 1),
                                 "entry (" + std::to_string(std::int64_t(coo.row[e]) + 1) + ", " +
                                     std::to_string(std::int64_t(coo.col[e]) + 1) + ") repeats line " +
                                     std::to_string(at->second) + " (duplicates are refused, not summed)");
    }
    TESSEL_INVALID_INPUT(path, 0, "entries were merged while building the matrix");
}

/// Reads 1-based triplets "row col value" of a rows x cols matrix; names the indices in
/// messages as `row_name` and `col_name`.
template <typename V, typename I>
Csr<V, I> read_triplets(const std::string& path, size_type rows, size_type cols,
                        const std::string& row_name, const std::string& col_name) {
    const std::int64_t index_max = std::numeric_limits<I>::max();
    if (rows < 1 || cols < 1 || rows - 1 > index_max || cols - 1 > index_max)
        TESSEL_INVALID_INPUT(path, 0, "matrix size " + std::to_string(rows) + " x " + std::to_string(cols) +
                                          " is empty or does not fit " + std::to_string(8 * sizeof(I)) +
                                          "-bit indices");
    // Row pointers of a declared size (--num-images 1e9) before the file is even read.
    app::require_memory(path, "the row pointers of " + std::to_string(rows) + " " + row_name + "s", 8.0 * double(rows + 1));
    const std::string text = read_whole_file(path);
    const std::string_view body = without_trailing_blanks(text);
    if (body.empty()) TESSEL_INVALID_INPUT(path, 0, "file is empty");
    require_final_newline(path, text, body);

    const std::string row_range = " outside 1.." + std::to_string(rows);
    const std::string col_range = " outside 1.." + std::to_string(cols);
    auto parse = [&](std::string_view line, std::vector<Triplet<V, I>>& out) {
        std::string_view f[3];
        const int n = detail::split_fields(line, f, 3);
        if (n == 0) throw LineError{"empty line"};
        if (n != 3) throw LineError{"expected 3 columns, found " + std::to_string(n)};
        const std::int64_t i = detail::parse_integer(f[0], row_name.c_str());
        if (i < 1 || i > rows) throw LineError{row_name + " " + std::to_string(i) + row_range};
        const std::int64_t j = detail::parse_integer(f[1], col_name.c_str());
        if (j < 1 || j > cols) throw LineError{col_name + " " + std::to_string(j) + col_range};
        out.push_back({static_cast<I>(i - 1), static_cast<I>(j - 1), detail::parse_real<V>(f[2])});
    };
    const auto chunks = detail::parse_lines<Triplet<V, I>>(path, body, 1, parse);
    const auto offsets = detail::chunk_offsets(chunks);

    Coo<V, I> coo;
    coo.rows = rows;
    coo.cols = cols;
    coo.row.resize(offsets.back());
    coo.col.resize(offsets.back());
    coo.values.resize(offsets.back());
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t k = 0; k < chunks.size(); ++k)
        for (std::size_t e = 0; e < chunks[k].size(); ++e) {
            coo.row[offsets[k] + e] = chunks[k][e].row;
            coo.col[offsets[k] + e] = chunks[k][e].col;
            coo.values[offsets[k] + e] = chunks[k][e].value;
        }
    auto csr = csr_from_coo(coo, path);
    if (csr.nnz() != static_cast<size_type>(coo.values.size())) report_duplicate(path, coo);
    return csr;
}

template <typename V, typename I>
void write_triplets(const std::string& path, const Csr<V, I>& a) {
    detail::TextWriter out(path);
    for (size_type i = 0; i < a.rows(); ++i)
        for (size_type e = a.row_ptr()[i]; e < a.row_ptr()[i + 1]; ++e) {
            out.put_number(i + 1);
            out.put('\t');
            out.put_number(static_cast<std::int64_t>(a.col_idx()[e]) + 1);
            out.put('\t');
            out.put_number(a.values()[e]);
            out.put('\n');
        }
    out.commit();
}

}  // namespace

template <typename V, typename I>
Csr<V, I> read_layer_tsv(const std::string& path, size_type neurons) {
    return read_triplets<V, I>(path, neurons, neurons, "input neuron", "output neuron");
}

template <typename V, typename I>
Csr<V, I> read_images_tsv(const std::string& path, size_type num_images, size_type neurons) {
    return read_triplets<V, I>(path, num_images, neurons, "image", "neuron");
}

std::vector<std::int64_t> read_categories(const std::string& path, size_type num_images) {
    const std::string text = read_whole_file(path);
    const std::string_view body = without_trailing_blanks(text);
    if (body.empty()) return {};
    const std::string range = " outside 1.." + std::to_string(num_images);
    auto parse = [&](std::string_view line, std::vector<std::int64_t>& out) {
        std::string_view f[1];
        const int n = detail::split_fields(line, f, 1);
        if (n == 0) throw LineError{"empty line"};
        if (n != 1) throw LineError{"expected 1 column, found " + std::to_string(n)};
        const std::int64_t id = detail::parse_integer(f[0], "category");
        if (id < 1) throw LineError{"category " + std::to_string(id) + " is not a positive image id"};
        if (num_images > 0 && id > num_images) throw LineError{"category " + std::to_string(id) + range};
        out.push_back(id);
    };
    const auto chunks = detail::parse_lines<std::int64_t>(path, body, 1, parse);
    std::vector<std::int64_t> ids;
    ids.reserve(detail::chunk_offsets(chunks).back());
    for (const auto& chunk : chunks) ids.insert(ids.end(), chunk.begin(), chunk.end());
    // Every line before the trailing blanks holds one id, so id k sits on line k + 1.
    for (std::size_t k = 1; k < ids.size(); ++k)
        if (ids[k] <= ids[k - 1])
            TESSEL_INVALID_INPUT(path, static_cast<std::int64_t>(k) + 1,
                                 "category " + std::to_string(ids[k]) + " after " + std::to_string(ids[k - 1]) +
                                     ", expected strictly ascending ids");
    return ids;
}

template <typename V, typename I>
void write_layer_tsv(const std::string& path, const Csr<V, I>& layer) {
    write_triplets(path, layer);
}

template <typename V, typename I>
void write_images_tsv(const std::string& path, const Csr<V, I>& images) {
    write_triplets(path, images);
}

void write_categories(const std::string& path, const std::vector<std::int64_t>& categories) {
    for (std::size_t k = 0; k < categories.size(); ++k) {
        if (categories[k] < 1)
            TESSEL_INVALID_INPUT(path, static_cast<std::int64_t>(k) + 1,
                                 "category " + std::to_string(categories[k]) + " is not a positive image id");
        if (k > 0 && categories[k] <= categories[k - 1])
            TESSEL_INVALID_INPUT(path, static_cast<std::int64_t>(k) + 1,
                                 "category " + std::to_string(categories[k]) + " after " +
                                     std::to_string(categories[k - 1]) + ", expected strictly ascending ids");
    }
    detail::TextWriter out(path);
    for (const auto id : categories) {
        out.put_number(id);
        out.put('\n');
    }
    out.commit();
}

#define TESSEL_INSTANTIATE(V, I)                                                           \
    template Csr<V, I> read_layer_tsv<V, I>(const std::string&, size_type);                \
    template Csr<V, I> read_images_tsv<V, I>(const std::string&, size_type, size_type);    \
    template void write_layer_tsv<V, I>(const std::string&, const Csr<V, I>&);             \
    template void write_images_tsv<V, I>(const std::string&, const Csr<V, I>&);
TESSEL_FOR_EACH_VALUE_AND_INDEX(TESSEL_INSTANTIATE)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::io
