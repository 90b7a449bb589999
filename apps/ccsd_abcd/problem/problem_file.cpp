// Problem files: HDF5 layout of tilings, shapes and optional tile values.
#include "apps/ccsd_abcd/problem/problem_file.hpp"

#include "core/error.hpp"
#include "io/hdf5_file.hpp"

namespace tessel::abcd {

namespace {

constexpr const char* format_name = "tessel-abcd problem";

void write_shape(io::File& f, const std::string& name, const TileShape& s) {
    std::vector<std::int64_t> pairs;
    pairs.reserve(static_cast<std::size_t>(2 * s.nnz()));
    for (size_type i = 0; i < s.rows(); ++i)
        for (size_type e = s.row_ptr()[i]; e < s.row_ptr()[i + 1]; ++e) {
            pairs.push_back(i);
            pairs.push_back(s.col_idx()[e]);
        }
    f.write<std::int64_t>(name, {s.nnz(), 2}, pairs.data());
}

template <typename F>
void write_values(io::File& f, const std::string& name, const TileShape& s, const Tiling& rows,
                  const Tiling& cols, F fill) {
    std::vector<double> all;
    for (size_type i = 0; i < s.rows(); ++i)
        for (size_type e = s.row_ptr()[i]; e < s.row_ptr()[i + 1]; ++e) {
            const size_type j = s.col_idx()[e];
            const std::size_t at = all.size();
            all.resize(at + static_cast<std::size_t>(rows.size(i) * cols.size(j)));
            fill(i, j, all.data() + at);
        }
    f.write<double>(name, {static_cast<size_type>(all.size())}, all.data());
}

Tiling read_tiling(const io::File& f, const std::string& name, size_type extent) {
    f.require(name, 1);
    auto sizes = f.read<std::int64_t>(name);
    return Tiling::covering(std::vector<size_type>(sizes.begin(), sizes.end()), extent, f.path() + ":" + name);
}

TileShape read_shape(const io::File& f, const std::string& name, size_type rows, size_type cols) {
    const auto dims = f.require(name, 2);
    if (dims[1] != 2)
        TESSEL_INVALID_INPUT(f.path() + ":" + name, 0, "expected [nnz, 2] tile coordinates, found second dimension " +
                                                           std::to_string(dims[1]));
    const auto v = f.read<std::int64_t>(name);
    std::vector<std::pair<size_type, size_type>> tiles;
    for (std::size_t e = 0; e + 1 < v.size(); e += 2) tiles.emplace_back(v[e], v[e + 1]);
    return TileShape::from_pairs(rows, cols, std::move(tiles), f.path() + ":" + name);
}

}  // namespace

void save_problem(const Problem& p, const std::string& path, bool with_values) {
    io::File f = io::File::create(path);
    f.write_attribute("/", "format", format_name);
    f.write_attribute<std::int64_t>("/", "version", 1);
    f.write_attribute("/", "description", p.description);
    f.write_attribute<std::uint64_t>("/", "seed", p.seed);
    auto tiling = [&](const std::string& name, const Tiling& t) {
        std::vector<std::int64_t> s(t.sizes().begin(), t.sizes().end());
        f.write<std::int64_t>(name, {t.count()}, s.data());
    };
    tiling("/a/row_tiling", p.m_tiling);
    tiling("/a/col_tiling", p.k_tiling);
    tiling("/b/row_tiling", p.k_tiling);
    tiling("/b/col_tiling", p.n_tiling);
    f.write_attribute<std::int64_t>("/a", "rows", p.m());
    f.write_attribute<std::int64_t>("/a", "cols", p.k());
    f.write_attribute<std::int64_t>("/b", "rows", p.k());
    f.write_attribute<std::int64_t>("/b", "cols", p.n());
    write_shape(f, "/a/tiles", p.a_shape);
    write_shape(f, "/b/tiles", p.b_shape);
    if (with_values) {
        write_values(f, "/a/values", p.a_shape, p.m_tiling, p.k_tiling,
                     [&](size_type i, size_type j, double* out) { p.values->fill(Operand::a, i, j, out); });
        write_values(f, "/b/values", p.b_shape, p.k_tiling, p.n_tiling,
                     [&](size_type i, size_type j, double* out) { p.values->fill(Operand::b, i, j, out); });
    }
    f.commit();
}

Problem load_problem(const std::string& path) {
    const io::File f = io::File::open(path);
    if (!f.has_attribute("/", "format") || f.read_string_attribute("/", "format") != format_name)
        TESSEL_INVALID_INPUT(path, 0, "not a tessel-abcd problem file (no attribute format = \"" +
                                          std::string(format_name) + "\")");
    const size_type m = f.read_attribute<std::int64_t>("/a", "rows");
    const size_type ka = f.read_attribute<std::int64_t>("/a", "cols");
    const size_type kb = f.read_attribute<std::int64_t>("/b", "rows");
    const size_type n = f.read_attribute<std::int64_t>("/b", "cols");
    Tiling a_rows = read_tiling(f, "/a/row_tiling", m);
    Tiling a_cols = read_tiling(f, "/a/col_tiling", ka);
    Tiling b_rows = read_tiling(f, "/b/row_tiling", kb);
    Tiling b_cols = read_tiling(f, "/b/col_tiling", n);
    TileShape a = read_shape(f, "/a/tiles", a_rows.count(), a_cols.count());
    TileShape b = read_shape(f, "/b/tiles", b_rows.count(), b_cols.count());
    Problem p = make_problem(std::move(a_rows), std::move(a_cols), std::move(a), std::move(b_rows),
                             std::move(b_cols), std::move(b));
    p.seed = f.has_attribute("/", "seed") ? f.read_attribute<std::uint64_t>("/", "seed") : 1;
    const std::string origin = f.has_attribute("/", "description") ? f.read_string_attribute("/", "description") : "";
    const bool stored = f.exists("/a/values") && f.exists("/b/values");
    if (stored)
        p.values = std::make_shared<StoredTiles>(path, p.m_tiling, p.k_tiling, p.n_tiling, p.a_shape, p.b_shape);
    else
        p.values = std::make_shared<GeneratedTiles>(p.seed, p.m_tiling, p.k_tiling, p.n_tiling);
    p.description = "file " + path + (origin.empty() ? "" : " (" + origin + ")") +
                    (stored ? ", stored tiles" : ", tiles from the seed");
    return p;
}

}  // namespace tessel::abcd
