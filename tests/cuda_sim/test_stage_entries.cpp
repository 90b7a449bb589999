// The row-group kernel's staging layout (core/cuda/kernels/stage_entries.hpp): entries in octets,
// every entry's chunks in their own place within its octet, the staging's turn order its exact
// inverse, and a quarter warp's 16-byte reads of chunk c on eight distinct bank groups whenever
// its entries' positions differ mod 8, the property the host's bank order for row groups
// (grouped_bank_groups) arranges.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "core/cuda/kernels/stage_entries.hpp"

using namespace tessel;

namespace {

// The layout's chunk offsets of entries 0 .. 63, their inverse, and their bank groups (16 bytes
// each, 8 to 128 bytes).
template <int R, typename V>
void check_layout() {
    using Layout = cuda::detail::EntryLayout<R, V>;
    CAPTURE(R, sizeof(V));
    std::set<int> offsets;
    for (int n = 0; n < 64; ++n)
        for (int c = 0; c < Layout::chunks; ++c) {
            const int at = Layout::offset(n, c);
            CHECK(at % Layout::per == 0);  // a whole chunk
            CHECK(at == Layout::first(n) + c * Layout::chunk_stride);
            CHECK(at >= n / 8 * 8 * R);  // within the entry's own octet
            CHECK(at < int(Layout::span(n / 8 * 8 + 1)));
            CHECK(Layout::entry_at(at / Layout::per) == n);
            CHECK(Layout::chunk_at(at / Layout::per) == c);
            offsets.insert(at);
        }
    CHECK(offsets.size() == std::size_t(64 * Layout::chunks));  // one to one onto the 64 entries' span
    CHECK(*offsets.rbegin() == int(Layout::span(64)) - Layout::per);
    const auto group = [](int n, int c) { return Layout::offset(n, c) * int(sizeof(V)) / 16 % 8; };
    for (int c = 0; c < Layout::chunks; ++c) {
        std::set<int> groups;
        for (int n = 0; n < 8; ++n) groups.insert(group(n, c));
        CHECK(groups.size() == 8u);
        for (int n = 0; n < 56; ++n) CHECK(group(n, c) == group(n + 8, c));  // only n mod 8 counts
    }
    // The kernel's two-operation first chunk over every position an index can hold.
    for (int n = 0; n < 65536; ++n)
        if (Layout::first_chunk(n) != n / 8 * Layout::chunks * 8 + n % 8) FAIL("first_chunk(" << n << ")");
}

}  // namespace

TEST_CASE("row-group staging puts a quarter warp's reads of positions distinct mod 8 on distinct banks",
          "[cuda][sim]") {
    check_layout<4, float>();
    check_layout<8, float>();
    check_layout<16, float>();
    check_layout<32, float>();
    check_layout<2, double>();
    check_layout<4, double>();
    check_layout<8, double>();
    check_layout<16, double>();
    check_layout<32, double>();
}

TEST_CASE("row-group staging spans whole octets", "[cuda][sim]") {
    using Layout = cuda::detail::EntryLayout<16, float>;
    CHECK(Layout::span(0) == 0);
    CHECK(Layout::span(1) == 8 * 16);
    CHECK(Layout::span(8) == 8 * 16);
    CHECK(Layout::span(9) == 16 * 16);
    CHECK(Layout::span(1536) == 1536 * 16);
}
