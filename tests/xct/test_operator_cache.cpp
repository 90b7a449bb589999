// The operator cache's file: a round trip gives the same arrays; missing, truncated, corrupt,
// foreign and other-key files are refused with a reason (the driver then rebuilds).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "apps/xct/cache/operator_cache.hpp"
#include "tests/common/temp_dir.hpp"

using namespace tessel;
using namespace tessel::xct;

namespace {

template <typename V>
void check_same(const TiledEll<V, Index>& a, const TiledEll<V, Index>& b) {
    CHECK(a.rows == b.rows);
    CHECK(a.cols == b.cols);
    CHECK(a.nnz == b.nnz);
    CHECK(a.buffdispl == b.buffdispl);
    CHECK(a.mapdispl == b.mapdispl);
    CHECK(a.map == b.map);
    CHECK(a.warpdispl == b.warpdispl);
    CHECK(a.index == b.index);
    CHECK(a.values == b.values);
    CHECK(a.half_values == b.half_values);
}

std::string bytes_of(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

TEST_CASE("the operator cache returns the arrays it stored and refuses damaged files", "[xct][cache]") {
    test::TempDir dir;
    const Geometry g{40, 44, uniform_angles(60)};
    const Ordering ordering = make_ordering(g, DomainOrder::hilbert, 8);
    ProjectorOptions options;
    options.tiles = {64, 512};
    const auto built = build_tiled_operators<float>(g, ordering, options.tiles, false, true);
    const OperatorCacheKey key = operator_cache_key(g, ordering, options, 4);
    const std::string path = dir.file(key.file_name());
    std::string why;
    CHECK_FALSE(load_tiled_operators<float>(path, key, true, why));
    CHECK(why.empty());  // missing: built without a note

    save_tiled_operators<float>(path, key, built.a, &built.at);
    auto loaded = load_tiled_operators<float>(path, key, true, why);
    REQUIRE(loaded);
    check_same(built.a, loaded->a);
    check_same(built.at, loaded->at);
    // Used in place: the slot arrays view the mapped file; a copy owns its own.
    CHECK(loaded->a.index.is_view());
    CHECK(loaded->at.values.is_view());
    const TiledEll<float, Index> copy = loaded->a;
    CHECK_FALSE(copy.values.is_view());
    CHECK(copy.values == built.a.values);
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
        CHECK(entry.path().filename().string() == key.file_name());  // no temporary left behind

    const std::string whole = bytes_of(path);
    write_bytes(path, whole.substr(0, whole.size() / 2));
    CHECK_FALSE(load_tiled_operators<float>(path, key, true, why));
    CHECK(why == "truncated");
    std::string flipped = whole;
    flipped[whole.size() * 3 / 4] ^= 0x10;
    write_bytes(path, flipped);
    CHECK_FALSE(load_tiled_operators<float>(path, key, true, why));
    CHECK(why.find("checksum") != std::string::npos);
    write_bytes(path, "P6 not an operator at all, just some other file of sufficient length");
    CHECK_FALSE(load_tiled_operators<float>(path, key, true, why));
    CHECK(why == "not an operator cache file");

    write_bytes(path, whole);
    ProjectorOptions other = options;
    other.tiles.buffer_entries = 1024;
    const OperatorCacheKey other_key = operator_cache_key(g, ordering, other, 4);
    CHECK(other_key.file_name() != key.file_name());
    CHECK_FALSE(load_tiled_operators<float>(path, other_key, true, why));
    CHECK(why == "written for another operator (key differs)");
    CHECK_FALSE(load_tiled_operators<double>(path, key, true, why));
    CHECK(why == "written for another operator (value type)");
    CHECK_FALSE(load_tiled_operators<float>(path, key, false, why));
    CHECK(why == "written for another operator (transpose)");
    // A whole file (its checksum right) whose arrays would send the kernels out of bounds.
    auto out_of_bounds = built.a;
    out_of_bounds.index[0] = 65535;
    save_tiled_operators<float>(path, key, out_of_bounds, &built.at);
    CHECK_FALSE(load_tiled_operators<float>(path, key, true, why));
    CHECK(why == "index: local index 65535 at 0 outside the " +
                     std::to_string(built.a.mapdispl[1] - built.a.mapdispl[0]) + " entries of stage 0");
    // Another angle set is another key.
    const Geometry turned{40, 44, uniform_angles(61)};
    CHECK(operator_cache_key(turned, ordering, options, 4).text != key.text);
}
