// Inputs: Data Exchange files in both axes orders and both types (and as save_exchange writes
// them), raw MemXCT files, the phantom; bad inputs with their exact messages.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "apps/xct/io/exchange_writer.hpp"
#include "apps/xct/io/sinogram_source.hpp"
#include "exchange_fixture.hpp"
#include "io/data_exchange.hpp"
#include "io/memxct_raw.hpp"
#include "xct_test_util.hpp"

using namespace tessel;
using namespace tessel::xct;
using namespace tessel::xct::test;

namespace {

InputOptions exchange_input(const std::string& path) {
    InputOptions o;
    o.kind = InputKind::data_exchange;
    o.path = path;
    return o;
}

std::string open_error(const InputOptions& o) {
    return error_of([&] {
        SinogramSource source(o);
        PhaseTimes times;
        size_type clamped = 0;
        source.read(0, source.info().slices, times, clamped);
    });
}

}  // namespace

TEST_CASE("Data Exchange in both axes orders and both types gives the sinograms", "[xct][inputs]") {
    TempDir dir;
    for (bool y_theta_x : {false, true})
        for (bool uint16 : {false, true}) {
            ExchangeSpec spec;
            spec.y_theta_x = y_theta_x;
            spec.uint16 = uint16;
            const std::string path = dir.file(std::string("dx") + (y_theta_x ? "-ytx" : "-tyx") + (uint16 ? "-u16" : "-f32") + ".h5");
            write_exchange(path, spec);
            SinogramSource source(exchange_input(path));
            const auto& info = source.info();
            CHECK(info.geometry.num_rho == spec.cols);
            CHECK(info.geometry.n == spec.cols);
            CHECK(info.geometry.num_theta() == spec.num_theta);
            CHECK(info.geometry.theta[3] == Approx(std::numbers::pi * 3.0 / 6.0).epsilon(1e-6));
            CHECK(info.available == spec.rows);
            CHECK(info.center == 4.0);
            PhaseTimes times;
            size_type clamped = -1;
            const auto sino = source.read(1, 2, times, clamped);  // rows 1, 2
            CHECK(clamped == 0);
            REQUIRE(sino.size() == std::size_t(2 * spec.num_theta * spec.cols));
            const double tolerance = uint16 ? 2e-3 : 1e-5;
            for (size_type s = 0; s < 2; ++s)
                for (size_type t = 0; t < spec.num_theta; ++t)
                    for (size_type x = 0; x < spec.cols; ++x) {
                        INFO("axes " << (y_theta_x ? "y:theta:x" : "theta:y:x") << " uint16 " << uint16);
                        REQUIRE(sino[(s * spec.num_theta + t) * spec.cols + x] ==
                                Approx(line_integral(1 + s, t, x)).margin(tolerance));
                    }
            CHECK(times.get("read") > 0.0);  // timed (a phase never timed reads 0)
        }
}

TEST_CASE("Data Exchange: slice range, rotation centre, missing theta", "[xct][inputs]") {
    TempDir dir;
    ExchangeSpec spec;
    spec.with_theta = false;
    const std::string path = dir.file("dx.h5");
    write_exchange(path, spec);
    auto o = exchange_input(path);
    o.slices = parse_slice_range("1:3");
    o.center = 5.0;
    SinogramSource source(o);
    CHECK(source.info().first_slice == 1);
    CHECK(source.info().slices == 2);
    CHECK(source.info().center == 5.0);
    CHECK(source.info().geometry.theta[1] == Approx(std::numbers::pi / 6).epsilon(1e-6));  // [0, 180) assumed
    PhaseTimes times;
    size_type clamped = 0;
    const auto shifted = source.read(0, 1, times, clamped);
    // The same rows unshifted, then moved by io's shift_center: identical.
    auto unshifted = o;
    unshifted.center.reset();
    SinogramSource plain(unshifted);
    auto expected = plain.read(0, 1, times, clamped);
    io::shift_center(expected, spec.num_theta, spec.cols, 5.0);
    for (std::size_t i = 0; i < expected.size(); ++i) REQUIRE(shifted[i] == Approx(expected[i]));
}

TEST_CASE("non-positive normalised values are clamped and counted", "[xct][inputs]") {
    TempDir dir;
    ExchangeSpec spec;
    spec.zero_at = true;  // a dead pixel below the dark level
    const std::string path = dir.file("dx.h5");
    write_exchange(path, spec);
    SinogramSource source(exchange_input(path));
    PhaseTimes times;
    size_type clamped = 0;
    const auto sino = source.read(0, 1, times, clamped);
    for (float v : sino) REQUIRE(std::isfinite(v));
    CHECK(clamped == 1);
    CHECK(sino[1 * spec.cols + 3] == Approx(-std::log(1e-6)).epsilon(1e-5));
}

TEST_CASE("bad Data Exchange files give their exact errors", "[xct][inputs]") {
    TempDir dir;
    auto make = [&](const std::string& name, auto change) {
        ExchangeSpec spec;
        change(spec);
        const std::string path = dir.file(name);
        write_exchange(path, spec);
        return path;
    };
    const auto missing = make("missing.h5", [](ExchangeSpec& s) { s.no_white = true; });
    CHECK(open_error(exchange_input(missing)) == missing + ":/exchange/data_white: dataset not found");
    const auto theta = make("theta.h5", [](ExchangeSpec& s) { s.theta_count = 5; });
    CHECK(open_error(exchange_input(theta)) == theta + ":/exchange/theta: 5 angles for 6 projections in /exchange/data");
    const auto flats = make("flats.h5", [](ExchangeSpec& s) { s.zero_flats = true; });
    CHECK(open_error(exchange_input(flats)) ==
          flats + ":/exchange/data_white: white equals dark everywhere in rows [0, 4) (all-zero flat fields?), cannot normalise");
    const auto nan = make("nan.h5", [](ExchangeSpec& s) { s.nan_at = true; });
    CHECK(open_error(exchange_input(nan)) == nan + ":/exchange/data: value at theta 2, y 1, x 0 is not finite");
    const auto rank = make("rank.h5", [](ExchangeSpec& s) { s.flat_data = true; });
    CHECK(open_error(exchange_input(rank)) == rank + ":/exchange/data: expected rank 3, found 2");
    const auto good = make("good.h5", [](ExchangeSpec&) {});
    auto range = exchange_input(good);
    range.slices = parse_slice_range("3:9");
    CHECK(open_error(range) == "slices: range 3:9 outside the 4 slices of " + good);
    auto centre = exchange_input(good);
    centre.center = 9.5;
    CHECK(open_error(centre) == good + ": rotation centre 9.5 outside the detector [0, 8]");
    CHECK(open_error(exchange_input(dir.file("absent.h5"))).find("absent.h5: cannot open") != std::string::npos);
}

TEST_CASE("save_exchange writes a file that reads back to the scaled sinograms", "[xct][inputs]") {
    TempDir dir;
    const size_type S = 3, T = 10, C = 12;
    Geometry g{C, C, uniform_angles(T)};
    std::vector<float> sino(static_cast<std::size_t>(S * T * C));
    for (size_type s = 0; s < S; ++s)
        for (size_type t = 0; t < T; ++t)
            for (size_type x = 0; x < C; ++x) sino[(s * T + t) * C + x] = line_integral(s, t, x) * 10.0f;
    const double scale = phantom_line_integral_scale(sino);
    CHECK(scale == Approx(2.0 / (10.0 * line_integral(S - 1, T - 1, C - 1))));
    const std::string path = dir.file("saved.h5");
    ExchangeProvenance provenance{"a test", 5, "test --save-exchange", "0"};
    CHECK(save_exchange(path, sino, S, g, scale, provenance) == 0);
    {
        const auto f = io::File::open(path);
        CHECK(f.type("/exchange/data") == io::DataType::uint16);
        CHECK(f.shape("/exchange/data") == std::vector<size_type>{T, S, C});
        CHECK(f.read_string_attribute("/exchange/data", "axes") == "theta:y:x");
        CHECK(f.read_attribute<double>("/exchange/data", "line_integral_scale") == scale);
        CHECK(f.read_attribute<std::int64_t>("/exchange/data", "first_slice") == 5);
        CHECK(f.read_string_attribute("/exchange/data", "source") == "a test");
        CHECK(f.shape("/exchange/data_white") == std::vector<size_type>{4, S, C});
        CHECK(f.shape("/exchange/data_dark") == std::vector<size_type>{4, S, C});
        const auto counts = f.read<float>("/exchange/data");
        CHECK(*std::min_element(counts.begin(), counts.end()) == std::round(float(transmitted_counts(2.0, {}))));
    }
    io::DataExchange file(path);
    const auto degrees = file.theta_degrees();
    for (size_type t = 0; t < T; ++t) REQUIRE(degrees[t] == Approx(18.0 * double(t)));
    const auto back = io::read_sinograms(file, 0, S);
    CHECK(back.clamped == 0);
    REQUIRE(back.values.size() == sino.size());
    // uint16 rounding: |dp| <= 0.5 / (counts - dark) <= 0.5 / (59900 e^-2) ~ 6e-5.
    for (std::size_t i = 0; i < sino.size(); ++i) REQUIRE(back.values[i] == Approx(sino[i] * scale).margin(1e-4));
    // Counts beyond uint16 (negative line integrals) are clamped and counted.
    std::vector<float> negative(static_cast<std::size_t>(T * C), -1.0f);
    CHECK(save_exchange(dir.file("negative.h5"), negative, 1, g, 1.0, provenance) == T * C);
}

TEST_CASE("slice ranges parse or say why not", "[xct][inputs]") {
    CHECK(parse_slice_range("100:228") == std::pair<size_type, size_type>{100, 228});
    CHECK(error_of([] { parse_slice_range("100"); }) ==
          "slices: cannot read '100' as a range A:B (for example 100:228)");
    CHECK(error_of([] { parse_slice_range("5:5"); }) == "slices: empty or negative range 5:5");
    CHECK(error_of([] { parse_slice_range("a:b"); }) == "slices: cannot read 'a:b' as a range A:B (for example 100:228)");
}

TEST_CASE("raw MemXCT files: one slice or a slice-major stack", "[xct][inputs]") {
    TempDir dir;
    const size_type T = 5, R = 6, S = 3;
    std::vector<float> theta(T), sino(S * T * R);
    for (size_type t = 0; t < T; ++t) theta[t] = float(t) * 0.5f;
    for (std::size_t i = 0; i < sino.size(); ++i) sino[i] = float(i);
    io::write_theta(dir.file("a.theta"), theta);
    io::write_sinogram(dir.file("a.sino"), sino, S, T, R);
    InputOptions o;
    o.kind = InputKind::raw;
    o.path = dir.file("a.sino");
    o.theta_path = dir.file("a.theta");
    o.num_slices = S;
    SinogramSource source(o);
    CHECK(source.info().geometry.num_rho == R);
    CHECK(source.info().available == S);
    PhaseTimes times;
    size_type clamped = 0;
    const auto second = source.read(1, 1, times, clamped);
    for (size_type i = 0; i < T * R; ++i) REQUIRE(second[i] == sino[T * R + i]);
    // Without --num-slices the file would be one slice of 5 angles x 18 channels: each row is
    // then 3 rows of the stack, which the data shows, so it is refused (issue 14, item 5).
    o.num_slices = 0;
    CHECK_THAT(error_of([&] { SinogramSource s(o); }),
               Catch::StartsWith(o.path + ": each row of 18 values looks like 3 consecutive projections of 6"));
    // --channels states the geometry: 3 slices follow from the size.
    o.channels = R;
    CHECK(SinogramSource(o).info().available == S);
    o.channels = 0;
    // 4 slices do not divide the file.
    o.num_slices = 4;
    CHECK(error_of([&] { SinogramSource s(o); }) ==
          o.path + ": 360 bytes are not 4 slice(s) x 5 angles x whole channels of float32");
}

TEST_CASE("phantom input: geometry and slices", "[xct][inputs]") {
    InputOptions o;
    o.kind = InputKind::phantom;
    o.phantom_size = 64;
    SinogramSource two_d(o);
    CHECK(two_d.info().geometry.num_theta() == 96);  // 3N/2
    CHECK(two_d.info().slices == 1);
    CHECK(two_d.info().phantom);
    o.num_slices = 8;
    o.angles = 30;
    o.slices = parse_slice_range("2:6");
    SinogramSource three_d(o);
    CHECK(three_d.info().slices == 4);
    CHECK(three_d.info().geometry.num_theta() == 30);
    const auto images = three_d.phantom_images(0, 4);
    CHECK(images.size() == std::size_t(4 * 64 * 64));
    const auto info = InputInfo::from_json(three_d.info().json());
    CHECK(info.first_slice == 2);
    CHECK(info.geometry.theta == three_d.info().geometry.theta);
}
