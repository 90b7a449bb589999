// Writes the hand-made problem files that the tessel-abcd binary tests run on: empty rows and
// columns, a single tile, and bad files (mismatched tilings, a tiling that does not cover its
// range, a zero tile size). usage: tessel-abcd-test-problems DIR
#include <cmath>
#include <cstdio>
#include <memory>
#include <filesystem>
#include <fstream>

#include "abcd_test_util.hpp"
#include "apps/ccsd_abcd/advice/gemm_rate_table.hpp"
#include "apps/ccsd_abcd/problem/problem_file.hpp"
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
        // A hand-made GEMM rate table (the advice tests do not depend on this machine's speed):
        // 1 GFLOP/s at 8, doubling with each dimension at 64; 1 us per GEMM, 2 us per tile.
        GemmRateTable rates;
        rates.machine = "hand-made";
        rates.sizes = {8, 64};
        rates.rates.assign(8, 0.0);
        for (std::size_t m = 0; m < 2; ++m)
            for (std::size_t n = 0; n < 2; ++n)
                for (std::size_t k = 0; k < 2; ++k) rates.at(m, n, k) = 1e9 * double(1 << (m + n + k));
        rates.gemm_overhead_seconds = 1e-6;
        rates.tile_overhead_seconds = 2e-6;
        rates.fill_seconds_per_value = 1e-9;
        std::ofstream((dir / "rates.json").string()) << rate_table_json(rates);
        // The same GEMM rates as a cuda table, with copies at 25 GB/s each way.
        rates.backend = "cuda";
        rates.gemm_overhead_seconds = rates.tile_overhead_seconds = 0;
        rates.h2d_seconds_per_byte = rates.d2h_seconds_per_byte = 4e-11;
        std::ofstream((dir / "cuda-rates.json").string()) << rate_table_json(rates);
        write_raw((dir / "bad-mismatch.h5").string(), {10}, {4, 6}, {5, 5}, {3}, 10, 10, 3);
        write_raw((dir / "bad-cover.h5").string(), {6, 3}, {10}, {10}, {3}, 10, 10, 3);
        write_raw((dir / "bad-zero.h5").string(), {10}, {10}, {10}, {0, 3}, 10, 10, 3);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tessel-abcd-test-problems: %s\n", e.what());
        return 1;
    }
    return 0;
}
