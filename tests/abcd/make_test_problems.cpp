// Writes the hand-made problem files that the tessel-abcd binary tests run on: empty rows and
// columns, a single tile, and bad files (mismatched tilings, a tiling that does not cover its
// range, a zero tile size). usage: tessel-abcd-test-problems DIR
#include <cmath>
#include <cstdio>
#include <memory>
#include <filesystem>

#include "abcd_test_util.hpp"
#include "apps/ccsd_abcd/problem_file.hpp"
#include "io/hdf5_file.hpp"

using namespace tessel;
using namespace tessel::abcd;
using test::write_raw;

namespace {
// The seeded values with one entry of B replaced by NaN: a corrupted stored tile.
class NanInB final : public TileSource {
public:
    explicit NanInB(std::shared_ptr<const TileSource> inner) : inner_(std::move(inner)) {}
    void fill(Operand which, size_type ti, size_type tj, double* out) const override {
        inner_->fill(which, ti, tj, out);
        if (which == Operand::b && ti == 1 && tj == 0) out[5] = std::nan("");
    }
    void fill(Operand which, size_type ti, size_type tj, float* out) const override {
        inner_->fill(which, ti, tj, out);
    }
    std::string describe() const override { return "NaN in B(1, 0)"; }

private:
    std::shared_ptr<const TileSource> inner_;
};
}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    try {
        // Row 1 of A empty, column 2 of B empty, column 3 of B meets no tile of A.
        save_problem(test::hand_problem({70, 50, 90, 40}, {40, 60, 30}, {50, 20, 80, 60, 30},
                                        {{0, 0}, {0, 1}, {2, 1}, {3, 0}}, {{0, 0}, {1, 0}, {1, 1}, {2, 3}, {0, 4}}),
                     (dir / "empty-columns.h5").string(), true);
        save_problem(test::hand_problem({70}, {90}, {50}, {{0, 0}}, {{0, 0}}), (dir / "single-tile.h5").string(), false);
        // B tile (1, 0) is 60 x 50 after tile (0, 0) of 40 x 50: its entry 5 is (5, 0), value 2005.
        Problem nan = test::hand_problem({30}, {40, 60}, {50}, {{0, 0}, {0, 1}}, {{0, 0}, {1, 0}});
        nan.values = std::make_shared<NanInB>(nan.values);
        save_problem(nan, (dir / "bad-nan.h5").string(), true);
        write_raw((dir / "bad-mismatch.h5").string(), {10}, {4, 6}, {5, 5}, {3}, 10, 10, 3);
        write_raw((dir / "bad-cover.h5").string(), {6, 3}, {10}, {10}, {3}, 10, 10, 3);
        write_raw((dir / "bad-zero.h5").string(), {10}, {10}, {10}, {0, 3}, 10, 10, 3);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tessel-abcd-test-problems: %s\n", e.what());
        return 1;
    }
    return 0;
}
