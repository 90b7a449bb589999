// Small APS Data Exchange files for the tests: projections made from a known sinogram
// (dark + (white - dark)·e^-p), in either axes order, uint16 or float32, with optional defects.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "apps/xct/io/exchange_writer.hpp"
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
    bool equal_theta = false;       // every angle 30 degrees
};

/// Line integrals p[(row·num_theta + t)·cols + x] of the file written by write_exchange.
inline float line_integral(size_type row, size_type t, size_type x) {
    return 0.05f * float((row + 1) * (t + 2)) + 0.01f * float(x);
}

/// Writes the file with the pieces of apps/xct/io/exchange_writer.hpp, adding the defects; with
/// `sinogram` non-null the line integrals come from it instead (rows x num_theta x cols).
inline void write_exchange(const std::string& path, const ExchangeSpec& s, const std::vector<float>* sinogram = nullptr) {
    auto f = io::File::create(path);
    const size_type T = s.num_theta, R = s.rows, C = s.cols;
    ExchangeWriteOptions options;
    options.white = s.white;
    options.dark = s.dark;
    options.num_white = 2;
    options.num_dark = 1;
    options.axes = s.y_theta_x ? io::ProjectionAxes::y_theta_x : io::ProjectionAxes::theta_y_x;
    options.axes_attribute = s.y_theta_x;  // theta:y:x files rely on the default order
    options.uint16 = s.uint16;
    // Counts laid out (rows, num_theta, cols).
    std::vector<float> data(static_cast<std::size_t>(T * R * C));
    for (size_type r = 0; r < R; ++r)
        for (size_type t = 0; t < T; ++t)
            for (size_type x = 0; x < C; ++x)
                data[(r * T + t) * C + x] = sinogram ? (*sinogram)[(r * T + t) * C + x] : line_integral(r, t, x);
    line_integrals_to_counts(data, options);
    if (s.nan_at) data[(1 * T + 2) * C + 0] = std::nanf("");
    if (s.zero_at) data[(0 * T + 1) * C + 3] = 0.0f;
    if (s.flat_data)
        f.write("/exchange/data", {T * R, C}, data.data());
    else
        write_exchange_data(f, data, {T, R, C}, options);
    if (s.zero_flats) options.white = options.dark = 0.0f;
    if (!s.no_white) write_exchange_white(f, R, C, options);
    write_exchange_dark(f, R, C, options);
    if (s.with_theta) {
        const size_type count = s.theta_count >= 0 ? s.theta_count : T;
        std::vector<float> theta(static_cast<std::size_t>(count));
        for (size_type t = 0; t < count; ++t) theta[t] = s.equal_theta ? 30.0f : 180.0f * float(t) / float(T);
        write_exchange_theta(f, theta);
    }
    f.commit();
}

}  // namespace tessel::xct::test
