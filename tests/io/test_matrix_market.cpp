// Matrix Market: round trips, every supported header, and each bad input's exact message.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "io/matrix_market.hpp"
#include "io_test_helpers.hpp"

using namespace tessel;
using namespace tessel::io;
using tessel::io::test::invalid_input;
using tessel::io::test::TempDir;

namespace {
const std::string general = "%%MatrixMarket matrix coordinate real general\n";

template <typename V, typename I>
Csr<V, I> sample() {
    return Csr<V, I>(3, 4, {0, 2, 2, 4}, {0, 3, 1, 2},
                     {V(1.5), V(-2.25e-7), V(3.0) / V(7.0), V(1e30)});
}
}  // namespace

TEMPLATE_TEST_CASE("matrix market round trip", "[io][matrix_market]", (std::pair<double, std::int32_t>),
                   (std::pair<float, std::int64_t>), (std::pair<double, std::int64_t>),
                   (std::pair<float, std::int32_t>)) {
    using V = typename TestType::first_type;
    using I = typename TestType::second_type;
    TempDir dir;
    const auto a = sample<V, I>();
    write_matrix_market(dir.file("a.mtx"), a);
    CHECK(dir.listing() == std::vector<std::string>{"a.mtx"});
    const auto b = read_matrix_market_csr<V, I>(dir.file("a.mtx"));
    CHECK(b.rows() == 3);
    CHECK(b.cols() == 4);
    CHECK(b.row_ptr() == a.row_ptr());
    CHECK(b.col_idx() == a.col_idx());
    CHECK(b.values() == a.values());
}

TEST_CASE("matrix market reads comments, blank lines, CRLF and integer values", "[io][matrix_market]") {
    TempDir dir;
    const auto path = dir.write("a.mtx",
                                "%%MatrixMarket matrix coordinate integer general\r\n"
                                "% a comment\r\n"
                                "\r\n"
                                "  2 3 3\r\n"
                                "1 1 7\r\n"
                                "% comment between entries\r\n"
                                "2\t3\t-4\r\n"
                                "1 3 +2\r\n"
                                "\r\n");
    const auto coo = read_matrix_market<double, std::int32_t>(path);
    CHECK(coo.rows == 2);
    CHECK(coo.cols == 3);
    CHECK(coo.row == std::vector<std::int32_t>{0, 1, 0});
    CHECK(coo.col == std::vector<std::int32_t>{0, 2, 2});
    CHECK(coo.values == std::vector<double>{7, -4, 2});
}

TEST_CASE("matrix market expands symmetric files and gives pattern entries the value 1",
          "[io][matrix_market]") {
    TempDir dir;
    const auto sym = dir.write("s.mtx",
                               "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n3 1\n3 2\n");
    const auto coo = read_matrix_market<float, std::int64_t>(sym);
    CHECK(coo.row == std::vector<std::int64_t>{0, 2, 0, 2, 1});
    CHECK(coo.col == std::vector<std::int64_t>{0, 0, 2, 1, 2});
    CHECK(coo.values == std::vector<float>{1, 1, 1, 1, 1});

    const auto real = dir.write("r.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 4\n2 1 -0.5\n");
    const auto csr = read_matrix_market_csr<double, std::int32_t>(real);
    CHECK(csr.row_ptr() == std::vector<size_type>{0, 2, 3});
    CHECK(csr.col_idx() == std::vector<std::int32_t>{0, 1, 0});
    CHECK(csr.values() == std::vector<double>{4, -0.5, -0.5});

    const auto skew = dir.write("k.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n");
    const auto k = read_matrix_market<double, std::int32_t>(skew);
    CHECK(k.values == std::vector<double>{3, -3});
    CHECK(k.row == std::vector<std::int32_t>{1, 0});
}

TEST_CASE("matrix market rejects bad headers with file and line", "[io][matrix_market]") {
    TempDir dir;
    auto message = [&](const std::string& text) {
        const auto path = dir.write("m.mtx", text);
        return invalid_input([&] { read_matrix_market<double, std::int32_t>(path); });
    };
    const std::string m = dir.file("m.mtx");
    CHECK(message("") == m + ":1: empty file, expected the %%MatrixMarket banner");
    CHECK(message("%%MatrixMarkt matrix coordinate real general\n1 1 0\n") ==
          m + ":1: bad banner, expected '%%MatrixMarket matrix coordinate {real|integer|pattern} "
              "{general|symmetric}'");
    CHECK(message("%%MatrixMarket matrix coordinate real\n1 1 0\n") ==
          m + ":1: bad banner, expected '%%MatrixMarket matrix coordinate {real|integer|pattern} "
              "{general|symmetric}'");
    CHECK(message("%%MatrixMarket matrix coordinate complex general\n1 1 0\n") ==
          m + ":1: unsupported field 'complex', expected real, integer or pattern");
    CHECK(message("%%MatrixMarket matrix array real general\n1 1\n") ==
          m + ":1: unsupported format 'array', expected 'coordinate'");
    CHECK(message("%%MatrixMarket vector coordinate real general\n1 1\n") ==
          m + ":1: unsupported object 'vector', expected 'matrix'");
    CHECK(message("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n") ==
          m + ":1: unsupported symmetry 'hermitian', expected general, symmetric or skew-symmetric");
    CHECK(message(general + "% only comments\n") == m + ":3: file ends before the size line");
    CHECK(message(general + "% c\n3 3\n") == m + ":3: bad size line, expected 'rows columns entries'");
    CHECK(message(general + "3 x 1\n") == m + ":2: bad size line, expected 'rows columns entries'");
    CHECK(message(general + "3 -3 1\n") == m + ":2: bad size line, expected 'rows columns entries'");
    CHECK(message(general + "3 3 1 1\n") == m + ":2: bad size line, expected 'rows columns entries'");
    CHECK(message(general + "3000000000 2 0\n") == m + ":2: size 3000000000 x 2 does not fit 32-bit indices");
    CHECK(message("%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n") ==
          m + ":2: symmetric matrix must be square, found 3 x 4");
}

TEST_CASE("matrix market rejects bad entries with file and line", "[io][matrix_market]") {
    TempDir dir;
    auto message = [&](const std::string& entries, const std::string& banner = general) {
        const auto path = dir.write("m.mtx", banner + "% comment\n3 3 2\n" + entries);
        return invalid_input([&] { read_matrix_market<float, std::int32_t>(path); });
    };
    const std::string m = dir.file("m.mtx");
    CHECK(message("1 1 1\n2 2\n") == m + ":5: expected 3 columns (row column value), found 2");
    CHECK(message("1 1 1 9\n2 2 1\n") == m + ":4: expected 3 columns (row column value), found 4");
    CHECK(message("1 1\n2 2 1\n", "%%MatrixMarket matrix coordinate pattern general\n") ==
          m + ":5: expected 2 columns (row column), found 3");
    CHECK(message("1 1 abc\n2 2 1\n") == m + ":4: value 'abc' is not a number");
    CHECK(message("1 1 1.5x\n2 2 1\n") == m + ":4: value '1.5x' is not a number");
    CHECK(message("1 1 1\nx 2 1\n") == m + ":5: row index 'x' is not an integer");
    CHECK(message("1 2.0 1\n2 2 1\n") == m + ":4: column index '2.0' is not an integer");
    CHECK(message("1 1 2.5\n2 2 1\n", "%%MatrixMarket matrix coordinate integer general\n") ==
          m + ":4: value '2.5' is not an integer");
    CHECK(message("0 1 1\n2 2 1\n") == m + ":4: row index 0 outside 1..3");
    CHECK(message("1 1 1\n2 4 1\n") == m + ":5: column index 4 outside 1..3");
    CHECK(message("1 1 1\n2 0 1\n") == m + ":5: column index 0 outside 1..3");
    CHECK(message("1 1 nan\n2 2 1\n") == m + ":4: value 'nan' is not finite");
    CHECK(message("1 1 1\n2 2 -inf\n") == m + ":5: value '-inf' is not finite");
    CHECK(message("1 1 1e39\n2 2 1\n") == m + ":4: value '1e39' does not fit in float");
    CHECK(message("1 1 1\n") == m + ":5: file ends after 1 of the 2 declared entries");
    CHECK(message("1 1 1\n2 2 1\n% c\n3 3 1\n") == m + ":7: more entries than the 2 declared");
    CHECK(invalid_input([&] { read_matrix_market<float, std::int32_t>(dir.file("missing.mtx")); }) ==
          dir.file("missing.mtx") + ": cannot open: No such file or directory");
}

TEST_CASE("matrix market accepts underflow and tiny values", "[io][matrix_market]") {
    TempDir dir;
    const auto path = dir.write("u.mtx", general + "1 1 2\n1 1 1e-50\n1 1 -3.5E-3\n");
    const auto coo = read_matrix_market<float, std::int32_t>(path);
    CHECK(coo.values[0] == 0.0f);
    CHECK(coo.values[1] == -3.5e-3f);
}

TEST_CASE("matrix market parses a large file in parallel chunks with exact line numbers",
          "[io][matrix_market]") {
    TempDir dir;
    const std::int64_t n = 1000, entries = 400000;
    std::ostringstream text;
    text << general << n << ' ' << n << ' ' << entries << '\n';
    for (std::int64_t e = 0; e < entries; ++e)
        text << (e * 7 % n) + 1 << ' ' << (e * 13 % n) + 1 << ' ' << double(e % 1000) * 0.5 << '\n';
    const std::string good = text.str();
    REQUIRE(good.size() > std::size_t{4} << 20);  // several 1 MiB chunks
    const auto path = dir.write("big.mtx", good);
    const auto coo = read_matrix_market<double, std::int64_t>(path);
    REQUIRE(coo.nnz() == entries);
    bool all_equal = true;
    for (std::int64_t e = 0; e < entries; ++e)
        all_equal = all_equal && coo.row[e] == e * 7 % n && coo.col[e] == e * 13 % n && coo.values[e] == double(e % 1000) * 0.5;
    CHECK(all_equal);

    // Two bad lines far apart: the first one in the file is reported.
    std::string bad = good;
    auto break_line = [&](std::int64_t line) {
        std::size_t pos = 0;
        for (std::int64_t l = 1; l < line; ++l) pos = bad.find('\n', pos) + 1;
        bad[pos] = 'x';
    };
    break_line(250000);
    break_line(390001);
    const auto bad_path = dir.write("bad.mtx", bad);
    CHECK_THAT(invalid_input([&] { read_matrix_market<double, std::int64_t>(bad_path); }),
               Catch::StartsWith(bad_path + ":250000: row index 'x"));
}

TEST_CASE("matrix market writer reports an unwritable path", "[io][matrix_market]") {
    TempDir dir;
    const auto path = dir.file("no/such/dir/a.mtx");
    CHECK(invalid_input([&] { write_matrix_market(path, sample<double, std::int32_t>()); }) ==
          path + ": cannot open for writing: No such file or directory");
}
