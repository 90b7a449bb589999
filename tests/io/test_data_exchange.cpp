// APS Data Exchange: both axes orders, uint16 and float32 projections, hand-computed
// sinograms, centre shift, clamping, and each bad layout's exact message.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <optional>

#include "io/data_exchange.hpp"
#include "io/memxct_raw.hpp"
#include "io_test_helpers.hpp"

using namespace tessel;
using namespace tessel::io;
using tessel::io::test::invalid_input;
using tessel::io::test::TempDir;

namespace {

constexpr size_type num_theta = 2, rows = 3, cols = 4;

/// Transmission k/100 with k = 1 + x + 4y + 12t, so every (theta, y, x) differs.
float raw_value(size_type t, size_type y, size_type x) { return float(10 + 1 + x + 4 * y + 12 * t); }

float expected(size_type t, size_type y, size_type x) {
    return static_cast<float>(-std::log(double(1 + x + 4 * y + 12 * t) / 100.0));
}

struct Spec {
    ProjectionAxes axes = ProjectionAxes::theta_y_x;
    bool float_data = false;
    bool flats_follow_axes = false;  // flats stored in the data's order, with their own attribute
    std::optional<std::vector<float>> theta;
    std::vector<float> white{100, 120};  // mean 110
    std::vector<float> dark{8, 12};      // mean 10
    std::function<float(size_type, size_type, size_type)> value = raw_value;
    bool with_data = true;
    bool with_white = true;
    std::string axes_text;  // overrides the attribute when set
    std::vector<size_type> white_shape;  // overrides (frames, rows, cols) when set
};

/// Writes a (frames, rows, cols) stack in `axes` order; frame f has value(f, y, x).
template <typename T>
void write_stack(File& file, const std::string& name, ProjectionAxes axes, size_type frames,
                 const std::function<float(size_type, size_type, size_type)>& value) {
    std::vector<T> out(static_cast<std::size_t>(frames * rows * cols));
    for (size_type f = 0; f < frames; ++f)
        for (size_type y = 0; y < rows; ++y)
            for (size_type x = 0; x < cols; ++x) {
                const size_type at = axes == ProjectionAxes::theta_y_x ? (f * rows + y) * cols + x
                                                                       : (y * frames + f) * cols + x;
                out[at] = static_cast<T>(value(f, y, x));
            }
    const std::vector<size_type> shape = axes == ProjectionAxes::theta_y_x ? std::vector<size_type>{frames, rows, cols}
                                                                            : std::vector<size_type>{rows, frames, cols};
    file.write<T>(name, shape, out.data());
}

std::string make_file(const TempDir& dir, const std::string& name, const Spec& spec) {
    auto file = File::create(dir.file(name));
    const std::string axes = spec.axes == ProjectionAxes::theta_y_x ? "theta:y:x" : "y:theta:x";
    if (spec.with_data) {
        if (spec.float_data)
            write_stack<float>(file, "/exchange/data", spec.axes, num_theta, spec.value);
        else
            write_stack<std::uint16_t>(file, "/exchange/data", spec.axes, num_theta, spec.value);
        if (spec.axes != ProjectionAxes::theta_y_x || !spec.axes_text.empty())
            file.write_attribute("/exchange/data", "axes", spec.axes_text.empty() ? axes : spec.axes_text);
    }
    const ProjectionAxes flat_axes = spec.flats_follow_axes ? spec.axes : ProjectionAxes::theta_y_x;
    auto frames = [](const std::vector<float>& v) {
        return [v](size_type f, size_type, size_type) { return v[f]; };
    };
    if (spec.with_white) {
        if (!spec.white_shape.empty()) {
            std::vector<float> w(static_cast<std::size_t>(spec.white_shape[0] * spec.white_shape[1] * spec.white_shape[2]), 1);
            file.write<float>("/exchange/data_white", spec.white_shape, w.data());
        } else {
            write_stack<std::uint16_t>(file, "/exchange/data_white", flat_axes, size_type(spec.white.size()),
                                       frames(spec.white));
        }
    }
    write_stack<float>(file, "/exchange/data_dark", flat_axes, size_type(spec.dark.size()), frames(spec.dark));
    if (spec.flats_follow_axes && spec.axes != ProjectionAxes::theta_y_x) {
        if (spec.with_white) file.write_attribute("/exchange/data_white", "axes", axes);
        file.write_attribute("/exchange/data_dark", "axes", axes);
    }
    if (spec.theta) file.write<float>("/exchange/theta", {size_type(spec.theta->size())}, spec.theta->data());
    file.commit();
    return dir.file(name);
}

void check_sinograms(const Sinograms& s, size_type first_row) {
    REQUIRE(s.num_theta == num_theta);
    REQUIRE(s.num_rho == cols);
    REQUIRE(s.values.size() == std::size_t(s.num_slices * num_theta * cols));
    for (size_type slice = 0; slice < s.num_slices; ++slice)
        for (size_type t = 0; t < num_theta; ++t)
            for (size_type x = 0; x < cols; ++x) {
                INFO("slice " << slice << " theta " << t << " rho " << x);
                CHECK(s.values[(slice * num_theta + t) * cols + x] ==
                      Approx(expected(t, first_row + slice, x)).margin(1e-6));
            }
}

}  // namespace

TEST_CASE("data exchange sinograms in both axes orders and both data types", "[io][data_exchange][hdf5]") {
    TempDir dir;
    const auto axes = GENERATE(ProjectionAxes::theta_y_x, ProjectionAxes::y_theta_x);
    const bool float_data = GENERATE(false, true);
    const bool flats_follow = GENERATE(false, true);
    Spec spec;
    spec.axes = axes;
    spec.float_data = float_data;
    spec.flats_follow_axes = flats_follow;
    const auto path = make_file(dir, "scan.h5", spec);
    INFO("axes " << (axes == ProjectionAxes::theta_y_x ? "theta:y:x" : "y:theta:x") << ", float " << float_data
                 << ", flats follow " << flats_follow);

    const DataExchange file(path);
    CHECK(file.shape().num_theta == num_theta);
    CHECK(file.shape().rows == rows);
    CHECK(file.shape().cols == cols);
    CHECK(file.axes() == axes);
    CHECK(file.num_white() == 2);
    CHECK(file.num_dark() == 2);

    // Raw projections come out (rows, theta, cols) whatever the disk order.
    const auto p = file.read_projections(1, 2);
    CHECK(p[(1 * num_theta + 1) * cols + 3] == raw_value(1, 2, 3));
    CHECK(p[(0 * num_theta + 1) * cols + 0] == raw_value(1, 1, 0));

    const auto all = read_sinograms(file, 0, rows);
    CHECK(all.num_slices == rows);
    CHECK(all.clamped == 0);
    check_sinograms(all, 0);
    const auto part = read_sinograms(file, 1, 2);
    CHECK(part.num_slices == 2);
    check_sinograms(part, 1);
}

TEST_CASE("data exchange theta: given in degrees or equally spaced below 180", "[io][data_exchange][hdf5]") {
    TempDir dir;
    Spec spec;
    const auto plain = make_file(dir, "plain.h5", spec);
    CHECK_FALSE(DataExchange(plain).has_theta());
    CHECK(DataExchange(plain).theta_degrees() == std::vector<float>{0.0f, 90.0f});
    spec.theta = std::vector<float>{10.0f, 100.0f};
    const auto given = make_file(dir, "given.h5", spec);
    const DataExchange file(given);
    CHECK(file.has_theta());
    CHECK(file.theta_degrees() == std::vector<float>{10.0f, 100.0f});
    const auto radians = file.theta_radians();
    CHECK(radians[0] == Approx(10.0 * std::numbers::pi / 180.0));
    CHECK(radians[1] == Approx(100.0 * std::numbers::pi / 180.0));

    // The MemXCT raw files made from them read back as the same numbers.
    write_theta(dir.file("theta.bin"), radians);
    const auto sino = read_sinograms(file, 0, rows);
    write_sinogram(dir.file("sino.bin"), sino.values, sino.num_slices, sino.num_theta, sino.num_rho);
    CHECK(read_theta(dir.file("theta.bin")) == radians);
    CHECK(read_sinogram(dir.file("sino.bin"), rows, num_theta, cols) == sino.values);
}

TEST_CASE("data exchange clamps values that are not positive and counts them", "[io][data_exchange][hdf5]") {
    TempDir dir;
    Spec spec;
    spec.float_data = true;
    spec.value = [](size_type t, size_type y, size_type x) {
        if (t == 1 && y == 0 && x == 2) return 5.0f;   // below the dark level
        if (t == 0 && y == 2 && x == 1) return 10.0f;  // exactly dark: ratio 0
        return raw_value(t, y, x);
    };
    const auto path = make_file(dir, "clamp.h5", spec);
    const auto s = read_sinograms(DataExchange(path), 0, rows);
    CHECK(s.clamped == 2);
    const float clamped = static_cast<float>(-std::log(double(1e-6f)));
    CHECK(s.values[(0 * num_theta + 1) * cols + 2] == Approx(clamped));
    CHECK(s.values[(2 * num_theta + 0) * cols + 1] == Approx(clamped));
    for (float v : s.values) CHECK(std::isfinite(v));

    SinogramOptions larger;
    larger.epsilon = 1e-3f;
    const auto t = read_sinograms(DataExchange(path), 0, 1, larger);
    CHECK(t.clamped == 1);
    CHECK(t.values[(0 * num_theta + 1) * cols + 2] == Approx(-std::log(1e-3)));
}

TEST_CASE("data exchange rotation centre shifts the channel grid", "[io][data_exchange][hdf5]") {
    TempDir dir;
    const auto path = make_file(dir, "c.h5", Spec{});
    const DataExchange file(path);
    SinogramOptions options;
    options.center = 0.5 * cols;  // the default: no change
    CHECK(read_sinograms(file, 0, rows, options).values == read_sinograms(file, 0, rows).values);

    options.center = 0.5 * cols + 1;  // one channel right: out[i] = in[i + 1], the edge repeats
    const auto shifted = read_sinograms(file, 1, 1, options);
    for (size_type t = 0; t < num_theta; ++t) {
        for (size_type x = 0; x + 1 < cols; ++x)
            CHECK(shifted.values[t * cols + x] == Approx(expected(t, 1, x + 1)));
        CHECK(shifted.values[t * cols + cols - 1] == Approx(expected(t, 1, cols - 1)));
    }
    options.center = 0.5 * cols - 0.5;  // half a channel left: averages of neighbours
    const auto half = read_sinograms(file, 1, 1, options);
    CHECK(half.values[0] == Approx(expected(0, 1, 0)));
    for (size_type x = 1; x < cols; ++x)
        CHECK(half.values[x] == Approx(0.5 * (expected(0, 1, x - 1) + expected(0, 1, x))));

    options.center = 10;
    CHECK(invalid_input([&] { read_sinograms(file, 0, 1, options); }) ==
          path + ": rotation centre 10 outside the detector [0, 4]");
}

TEST_CASE("data exchange rejects bad layouts with file, dataset and what", "[io][data_exchange][hdf5]") {
    TempDir dir;
    auto open_message = [&](const Spec& spec) {
        const auto path = make_file(dir, "bad.h5", spec);
        return invalid_input([&] { DataExchange file(path); });
    };
    const std::string bad = dir.file("bad.h5");

    Spec no_data;
    no_data.with_data = false;
    CHECK(open_message(no_data) == bad + ":/exchange/data: dataset not found");

    Spec no_white;
    no_white.with_white = false;
    CHECK(open_message(no_white) == bad + ":/exchange/data_white: dataset not found");

    Spec long_theta;
    long_theta.theta = std::vector<float>{0, 60, 120};
    CHECK(open_message(long_theta) == bad + ":/exchange/theta: 3 angles for 2 projections in /exchange/data");

    Spec odd_axes;
    odd_axes.axes_text = "x:y:theta";
    CHECK(open_message(odd_axes) == bad + ":/exchange/data: unsupported axes 'x:y:theta', expected theta:y:x or y:theta:x");

    Spec wrong_white;
    wrong_white.white_shape = {2, 3, 5};
    CHECK(open_message(wrong_white) ==
          bad + ":/exchange/data_white: shape 2 x 3 x 5 does not match the projections' 3 rows x 4 columns");

    {
        auto file = File::create(dir.file("flat.h5"));
        const std::vector<float> d(rows * cols, 1.0f);
        file.write<float>("/exchange/data", {rows, cols}, d.data());
        file.commit();
    }
    CHECK(invalid_input([&] { DataExchange file(dir.file("flat.h5")); }) ==
          dir.file("flat.h5") + ":/exchange/data: expected rank 3, found 2");
    {
        const auto path = dir.file("theta2d.h5");
        auto file = File::create(path);
        write_stack<std::uint16_t>(file, "/exchange/data", ProjectionAxes::theta_y_x, num_theta, raw_value);
        write_stack<float>(file, "/exchange/data_white", ProjectionAxes::theta_y_x, 1,
                           [](size_type, size_type, size_type) { return 110.0f; });
        write_stack<float>(file, "/exchange/data_dark", ProjectionAxes::theta_y_x, 1,
                           [](size_type, size_type, size_type) { return 10.0f; });
        const std::vector<float> theta{0, 90};
        file.write<float>("/exchange/theta", {2, 1}, theta.data());
        file.commit();
        CHECK(invalid_input([&] { DataExchange f(path); }) == path + ":/exchange/theta: expected rank 1, found 2");
    }
    CHECK(invalid_input([&] { DataExchange f(dir.file("none.h5")); }) == dir.file("none.h5") + ": cannot open: no such file");
}

TEST_CASE("data exchange rejects all-zero flats, NaN and rows outside the detector", "[io][data_exchange][hdf5]") {
    TempDir dir;
    Spec zero;
    zero.white = {0, 0};
    zero.dark = {0};
    const auto zero_path = make_file(dir, "zero.h5", zero);
    CHECK(invalid_input([&] { read_sinograms(DataExchange(zero_path), 0, rows); }) ==
          zero_path + ":/exchange/data_white: white equals dark everywhere in rows [0, 3) (all-zero flat fields?), "
                      "cannot normalise");

    const auto axes = GENERATE(ProjectionAxes::theta_y_x, ProjectionAxes::y_theta_x);
    Spec nan;
    nan.axes = axes;
    nan.float_data = true;
    nan.value = [](size_type t, size_type y, size_type x) {
        return t == 1 && y == 2 && x == 3 ? std::numeric_limits<float>::quiet_NaN() : raw_value(t, y, x);
    };
    const auto nan_path = make_file(dir, "nan.h5", nan);
    const DataExchange file(nan_path);
    CHECK(invalid_input([&] { read_sinograms(file, 0, rows); }) ==
          nan_path + ":/exchange/data: value at theta 1, y 2, x 3 is not finite");
    CHECK_NOTHROW(read_sinograms(file, 0, 2));  // the NaN is in row 2
    CHECK(invalid_input([&] { read_sinograms(file, 2, 2); }) ==
          nan_path + ":/exchange/data: detector rows [2, 4) outside [0, 3)");
    CHECK(invalid_input([&] { file.read_white(-1, 1); }) ==
          nan_path + ":/exchange/data_white: detector rows [-1, 0) outside [0, 3)");
}

TEST_CASE("normalize_projections never produces NaN", "[io][data_exchange]") {
    // white == dark in one pixel, Inf-like ratios, negative values: all clamped and counted.
    std::vector<float> p{20, 5, 10, 1e30f};
    const std::vector<float> white{30, 10, 10, 11};
    const std::vector<float> dark{10, 10, 10, 10};
    const auto clamped = normalize_projections(p, white, dark, 1, 1, 4);
    CHECK(clamped == 2);
    CHECK(p[0] == Approx(-std::log(0.5)));
    for (float v : p) CHECK(std::isfinite(v));
    CHECK_THROWS_AS(normalize_projections(p, white, dark, 1, 2, 4), DimensionMismatch);
}
