// Small APS Data Exchange files for the tests: projections made from a known sinogram
// (white·e^-p + dark), in either axes order, uint16 or float32, with optional defects.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "io/hdf5_file.hpp"

namespace tessel::xct::test {

struct ExchangeSpec {
    size_type num_theta = 6, rows = 4, cols = 8;
    bool y_theta_x = false;  // the axes attribute "y:theta:x" (data stored rows x theta x cols)
    bool uint16 = false;
    bool with_theta = true;
    size_type theta_count = -1;     // -1: num_theta
    bool zero_flats = false;        // white = dark = 0
    bool nan_at = false;            // NaN at theta 2, row 1, column 0
    bool zero_at = false;           // 0 (below dark) at theta 1, row 0, column 3
    bool no_white = false;
    bool flat_data = false;         // /exchange/data of rank 2
    float white = 4000.0f, dark = 100.0f;
};

/// Line integrals p[(row·num_theta + t)·cols + x] of the file written by write_exchange.
inline float line_integral(size_type row, size_type t, size_type x) {
    return 0.05f * float((row + 1) * (t + 2)) + 0.01f * float(x);
}

/// Writes the file; with `sinogram` non-null the line integrals come from it instead
/// (rows x num_theta x cols).
inline void write_exchange(const std::string& path, const ExchangeSpec& s, const std::vector<float>* sinogram = nullptr) {
    auto f = io::File::create(path);
    const size_type T = s.num_theta, R = s.rows, C = s.cols;
    std::vector<float> data(static_cast<std::size_t>(T * R * C));
    for (size_type r = 0; r < R; ++r)
        for (size_type t = 0; t < T; ++t)
            for (size_type x = 0; x < C; ++x) {
                const float p = sinogram ? (*sinogram)[(r * T + t) * C + x] : line_integral(r, t, x);
                float v = s.dark + (s.white - s.dark) * std::exp(-p);
                if (s.uint16) v = std::round(v);
                if (s.nan_at && t == 2 && r == 1 && x == 0) v = std::nanf("");
                if (s.zero_at && t == 1 && r == 0 && x == 3) v = 0.0f;
                const size_type at = s.y_theta_x ? (r * T + t) * C + x : (t * R + r) * C + x;
                data[at] = v;
            }
    const std::vector<size_type> shape = s.y_theta_x ? std::vector<size_type>{R, T, C} : std::vector<size_type>{T, R, C};
    if (s.flat_data) {
        f.write("/exchange/data", {T * R, C}, data.data());
    } else if (s.uint16) {
        std::vector<std::uint16_t> u(data.begin(), data.end());
        f.write("/exchange/data", shape, u.data());
    } else {
        f.write("/exchange/data", shape, data.data());
    }
    if (s.y_theta_x) f.write_attribute("/exchange/data", "axes", "y:theta:x");
    const float white = s.zero_flats ? 0.0f : s.white, dark = s.zero_flats ? 0.0f : s.dark;
    std::vector<float> w(static_cast<std::size_t>(2 * R * C), white), d(static_cast<std::size_t>(R * C), dark);
    if (!s.no_white) f.write("/exchange/data_white", {2, R, C}, w.data());
    f.write("/exchange/data_dark", {1, R, C}, d.data());
    if (s.with_theta) {
        const size_type count = s.theta_count >= 0 ? s.theta_count : T;
        std::vector<float> theta(static_cast<std::size_t>(count));
        for (size_type t = 0; t < count; ++t) theta[t] = 180.0f * float(t) / float(T);
        f.write("/exchange/theta", {count}, theta.data());
    }
    f.commit();
}

}  // namespace tessel::xct::test
