// tiled_ell_structure_error: what the builders make passes; each way a stored matrix could make
// the kernels read out of bounds is named.
#include <catch2/catch.hpp>

#include "core/formats/tiled_ell_check.hpp"
#include "core/formats/tiled_ell_transpose.hpp"
#include "core/generators.hpp"

using namespace tessel;

TEST_CASE("built tiled ELL matrices pass the structure check; broken ones are named", "[tiled-ell][check]") {
    const auto csr = generate::random_uniform<float, int>(700, 9000, 12, 3);
    const TiledEll<float, int> a = tiled_ell_from_csr(csr, {64, 1024});
    CHECK(tiled_ell_structure_error(a).empty());
    CHECK(tiled_ell_structure_error(tiled_ell_transpose(a, {128, 512})).empty());
    CHECK(tiled_ell_structure_error(TiledEll<float, int>{}) == "buffdispl has the wrong length");

    auto broken = a;
    broken.map[5] = 9000;
    CHECK(tiled_ell_structure_error(broken) == "map: column 9000 at 5 outside 0..8999");
    broken = a;
    const size_type entries = broken.mapdispl[1] - broken.mapdispl[0];
    broken.index[3] = std::uint16_t(entries);
    broken.index[40] = std::uint16_t(entries + 1);
    CHECK(tiled_ell_structure_error(broken) == "index: local index " + std::to_string(entries) + " at 3 outside the " +
                                                   std::to_string(entries) + " entries of stage 0");
    broken = a;
    broken.map[7] = -1;
    broken.map[9] = 9001;
    CHECK(tiled_ell_structure_error(broken) == "map: column -1 at 7 outside 0..8999");
    // The first bad slot of all, whichever stage a thread looked at first: one in the last
    // stage and one in a later warp of stage 1.
    broken = a;
    const size_type last = broken.num_stages() - 1, warps = broken.warps_per_block();
    const size_type in_last = broken.warpdispl[last * warps] * 32 + 5, in_stage_1 = broken.warpdispl[warps + 1] * 32 + 7;
    broken.index[in_last] = 65535;
    broken.index[in_stage_1] = 65535;
    CHECK(tiled_ell_structure_error(broken) == "index: local index 65535 at " + std::to_string(in_stage_1) +
                                                   " outside the " + std::to_string(broken.mapdispl[2] - broken.mapdispl[1]) +
                                                   " entries of stage 1");
    broken = a;
    broken.mapdispl.back() += 1;
    CHECK(tiled_ell_structure_error(broken) == "mapdispl does not end at map");
    broken = a;
    broken.warpdispl[1] = broken.warpdispl[2] + 1;
    CHECK(tiled_ell_structure_error(broken).rfind("warpdispl step 1 outside 0..1024", 0) == 0);
    broken = a;
    broken.buffdispl[1] = 0;
    CHECK(tiled_ell_structure_error(broken) == "buffdispl step 0 outside 1..10");
    broken = a;
    broken.values.resize(broken.values.size() - 32);
    CHECK(tiled_ell_structure_error(broken) == "the values do not fill the slots");
    broken = a;
    broken.config.block_rows = 48;
    CHECK(tiled_ell_structure_error(broken) == "a block or buffer size out of range");
}
