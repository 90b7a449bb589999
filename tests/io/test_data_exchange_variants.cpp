// Data Exchange files as beamlines write them: every dtype, every axes spelling of data, flats
// and darks, chunked and compressed (deflate, shuffle, fletcher32), missing dark, radians,
// missing and unordered theta, --no-flat, and a full-size file opened without reading its data.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "io/data_exchange.hpp"
#include "io_test_helpers.hpp"

using namespace tessel;
using namespace tessel::io;
using tessel::io::test::invalid_input;
using tessel::io::test::TempDir;

namespace {

constexpr size_type T = 5, R = 3, C = 6;

/// Transmission of (t, y, x): between 0.2 and 0.95, all different.
double transmission(size_type t, size_type y, size_type x) { return 0.2 + 0.75 * double(t * R * C + y * C + x) / double(T * R * C); }

struct Variant {
    std::string data_axes = "theta:y:x";  // "" for no attribute
    std::string white_axes = "theta_white:y:x";
    std::string dark_axes = "theta_dark:y:x";
    DatasetOptions storage;
    bool with_dark = true;
    bool with_white = true;
    double white = 200, dark = 10;  // counts; data = dark + (white - dark)·transmission
};

bool y_first(const std::string& axes) { return !axes.empty() && axes[0] == 'y'; }

/// frames x R x C values f(frame, y, x) as T in the axes' order.
template <typename Type, typename F>
void write_frames(File& file, const std::string& name, const std::string& axes, size_type frames, F f,
                  const DatasetOptions& storage) {
    const bool yf = y_first(axes);
    std::vector<Type> out(static_cast<std::size_t>(frames * R * C));
    for (size_type k = 0; k < frames; ++k)
        for (size_type y = 0; y < R; ++y)
            for (size_type x = 0; x < C; ++x)
                out[yf ? (y * frames + k) * C + x : (k * R + y) * C + x] = static_cast<Type>(std::lround(f(k, y, x)));
    const std::vector<size_type> shape = yf ? std::vector<size_type>{R, frames, C} : std::vector<size_type>{frames, R, C};
    file.write<Type>(name, shape, out.data(), storage);
    if (!axes.empty()) file.write_attribute(name, "axes", axes);
}

template <typename Type>
std::string make(TempDir& dir, const std::string& name, const Variant& v) {
    const auto path = dir.file(name);
    auto file = File::create(path);
    write_frames<Type>(file, "/exchange/data", v.data_axes, T,
                       [&](size_type t, size_type y, size_type x) { return v.dark + (v.white - v.dark) * transmission(t, y, x); },
                       v.storage);
    // Two flats around the mean (before and after the scan): the mean is what counts.
    if (v.with_white)
        write_frames<Type>(file, "/exchange/data_white", v.white_axes, 2,
                           [&](size_type k, size_type, size_type) { return v.white + (k == 0 ? -4.0 : 4.0); }, v.storage);
    if (v.with_dark)
        write_frames<Type>(file, "/exchange/data_dark", v.dark_axes, 2,
                           [&](size_type k, size_type, size_type) { return v.dark + (k == 0 ? -2.0 : 2.0); }, v.storage);
    file.commit();
    return path;
}

/// Every value of read_sinograms matches -log(transmission) (counts are rounded to integers).
void check_sinograms(const DataExchange& file, double tolerance = 2e-2) {
    const auto s = read_sinograms(file, 1, 2);
    REQUIRE(s.values.size() == static_cast<std::size_t>(2 * T * C));
    double worst = 0;
    for (size_type r = 0; r < 2; ++r)
        for (size_type t = 0; t < T; ++t)
            for (size_type x = 0; x < C; ++x)
                worst = std::max(worst, std::abs(double(s.values[(r * T + t) * C + x]) + std::log(transmission(t, 1 + r, x))));
    CHECK(worst < tolerance);
}

}  // namespace

TEMPLATE_TEST_CASE("data exchange reads every dtype beamlines write", "[io][data_exchange][hdf5]", std::uint8_t,
                   std::uint16_t, std::uint32_t, std::int16_t, float, double) {
    TempDir dir;
    Variant v;
    const auto path = make<TestType>(dir, "dtype.h5", v);
    const DataExchange file(path);
    CHECK(file.warnings().empty());
    // uint8 counts (white 200) round to 1 count in 190: 1e-2 relative.
    check_sinograms(file, std::is_same_v<TestType, std::uint8_t> ? 3e-2 : 2e-2);
}

TEST_CASE("data exchange axes spellings of data, flats and darks", "[io][data_exchange][hdf5]") {
    TempDir dir;
    const auto [data, white, dark] = GENERATE(table<std::string, std::string, std::string>({
        {"theta:y:x", "theta_white:y:x", "theta_dark:y:x"},
        {"y:theta:x", "y:theta_white:x", "y:theta_dark:x"},
        {"", "", ""},  // no attribute: theta:y:x
        {"theta:y:x", "theta:y:x", "theta:y:x"},
        {"y:theta:x", "theta_white:y:x", "y:theta_dark:x"},
        {" theta:y:x ", "y:theta:x", "theta_dark:y:x"},
    }));
    Variant v;
    v.data_axes = data;
    v.white_axes = white;
    v.dark_axes = dark;
    const auto path = make<std::uint16_t>(dir, "axes.h5", v);
    check_sinograms(DataExchange(path));

    Variant odd;
    odd.white_axes = "theta_dark:y:x";
    const auto bad = make<std::uint16_t>(dir, "odd.h5", odd);
    CHECK(invalid_input([&] { DataExchange f(bad); }) ==
          bad + ":/exchange/data_white: unsupported axes 'theta_dark:y:x', expected theta_white:y:x or y:theta_white:x");
}

TEST_CASE("data exchange reads chunked, compressed, checksummed datasets by slice range", "[io][data_exchange][hdf5]") {
    TempDir dir;
    Variant v;
    v.storage.chunk = {1, 1, C};  // one detector row of one projection per chunk
    v.storage.deflate = 6;
    v.storage.shuffle = GENERATE(false, true);
    v.storage.fletcher32 = GENERATE(false, true);
    v.data_axes = GENERATE(std::string("theta:y:x"), std::string("y:theta:x"));
    const auto path = make<std::uint16_t>(dir, "packed.h5", v);
    check_sinograms(DataExchange(path));
}

TEST_CASE("data exchange: missing dark is zero with a warning, missing white needs --no-flat",
          "[io][data_exchange][hdf5]") {
    TempDir dir;
    Variant v;
    v.with_dark = false;
    v.dark = 0;
    const auto path = make<std::uint16_t>(dir, "nodark.h5", v);
    const DataExchange file(path);
    REQUIRE(file.warnings().size() == 1);
    CHECK(file.warnings()[0] == path + ":/exchange/data_dark: not found, dark current taken as zero");
    check_sinograms(file);

    Variant normalised;
    normalised.with_white = normalised.with_dark = false;
    normalised.white = 10000;  // stored as transmission x 10000 counts, read as float / 10000 below
    normalised.dark = 0;
    const auto bare = make<float>(dir, "bare.h5", normalised);
    CHECK(invalid_input([&] { DataExchange f(bare); }) == bare + ":/exchange/data_white: dataset not found");
    ExchangeOptions no_flat;
    no_flat.no_flat = true;
    const DataExchange file2(bare, no_flat);
    const auto [w, d] = file2.flat_dark_means(0, 1);
    CHECK(w == std::vector<float>(C, 1.0f));
    CHECK(d == std::vector<float>(C, 0.0f));
}

TEST_CASE("data exchange theta: degrees, radians detected or forced, missing, any order, all equal",
          "[io][data_exchange][hdf5]") {
    TempDir dir;
    auto with_theta = [&](const std::string& name, const std::vector<double>& theta) {
        const auto path = dir.file(name);
        auto file = File::create(path);
        const std::vector<float> data(T * R * C, 50.0f), white(R * C, 100.0f), dark(R * C, 0.0f);
        file.write<float>("/exchange/data", {T, R, C}, data.data());
        file.write<float>("/exchange/data_white", {1, R, C}, white.data());
        file.write<float>("/exchange/data_dark", {1, R, C}, dark.data());
        if (!theta.empty()) file.write<double>("/exchange/theta", {T}, theta.data());
        file.commit();
        return path;
    };
    const double pi = std::numbers::pi;
    const auto degrees = with_theta("deg.h5", {0, 36, 72, 108, 144});
    CHECK(DataExchange(degrees).theta_degrees() == std::vector<float>{0, 36, 72, 108, 144});
    CHECK(DataExchange(degrees).warnings().empty());

    const auto radians = with_theta("rad.h5", {0, pi / 5, 2 * pi / 5, 3 * pi / 5, 4 * pi / 5});
    const DataExchange r(radians);
    REQUIRE(r.warnings().size() == 1);
    CHECK(r.warnings()[0].find(radians + ":/exchange/theta: angles span 2.51327") == 0);
    CHECK(r.warnings()[0].find("looks like radians; read as radians (--theta-units degrees to override)") !=
          std::string::npos);
    CHECK(r.theta_degrees()[3] == Approx(108.0f));
    ExchangeOptions forced;
    forced.theta_units = ThetaUnits::degrees;
    CHECK(DataExchange(radians, forced).theta_degrees()[3] == Approx(3 * pi / 5));
    forced.theta_units = ThetaUnits::radians;
    CHECK(DataExchange(degrees, forced).theta_degrees()[1] == Approx(36.0 * 180.0 / pi));

    // Small degree values (a 0-3 degree scan) are not mistaken for radians: the span is not π.
    CHECK(DataExchange(with_theta("small.h5", {0, 0.5, 1, 1.5, 2})).warnings().empty());
    const auto shuffled = with_theta("any.h5", {144, 0, 72, 36, 108});
    CHECK(DataExchange(shuffled).theta_degrees() == std::vector<float>{144, 0, 72, 36, 108});
    const auto none = with_theta("none.h5", {});
    CHECK(DataExchange(none).theta_degrees() == std::vector<float>{0, 36, 72, 108, 144});

    const auto equal = with_theta("equal.h5", {30, 30, 30, 30, 30});
    CHECK(invalid_input([&] { DataExchange f(equal); }) ==
          equal + ":/exchange/theta: all 5 angles are equal (30), cannot reconstruct");
    CHECK(invalid_input([] { parse_theta_units("grad"); }) ==
          "theta-units: unknown units 'grad', expected auto, degrees or radians");
}

TEST_CASE("data exchange refuses white below dark everywhere", "[io][data_exchange][hdf5]") {
    TempDir dir;
    Variant swapped;
    swapped.white = 10;
    swapped.dark = 200;
    const auto path = make<std::uint16_t>(dir, "swapped.h5", swapped);
    CHECK(invalid_input([&] { read_sinograms(DataExchange(path), 0, 2); }) ==
          path + ":/exchange/data_white: white is below dark everywhere in rows [0, 2) (flat and dark fields swapped?), "
                 "cannot normalise");
}

TEST_CASE("data exchange opens a 2048 x 1500 x 2448 file in well under a second without reading it",
          "[io][data_exchange][hdf5]") {
    TempDir dir;
    const auto path = dir.file("big.h5");
    {
        auto file = File::create(path);
        DatasetOptions chunks;
        chunks.chunk = {1, 1500, 2448};
        chunks.deflate = 1;
        // Chunks are allocated when written: the file holds metadata only.
        file.create_dataset<std::uint16_t>("/exchange/data", {2048, 1500, 2448}, chunks);
        file.write_attribute("/exchange/data", "axes", "theta:y:x");
        file.create_dataset<std::uint16_t>("/exchange/data_white", {20, 1500, 2448}, chunks);
        file.create_dataset<std::uint16_t>("/exchange/data_dark", {10, 1500, 2448}, chunks);
        std::vector<float> theta(2048);
        for (int i = 0; i < 2048; ++i) theta[i] = 180.0f * float(i) / 2048.0f;
        file.write<float>("/exchange/theta", {2048}, theta.data());
        file.commit();
    }
    const auto start = std::chrono::steady_clock::now();
    const DataExchange file(path);
    const auto theta = file.theta_degrees();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(file.shape().num_theta == 2048);
    CHECK(file.shape().rows == 1500);
    CHECK(file.shape().cols == 2448);
    CHECK(theta.size() == 2048);
    CHECK(seconds < 1.0);
}
