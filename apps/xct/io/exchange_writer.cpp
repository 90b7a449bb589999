// Data Exchange files from sinograms.
#include "apps/xct/io/exchange_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "core/error.hpp"

namespace tessel::xct {

namespace {

// (rows, num_theta, cols) -> the order on disk, converted to T.
template <typename T>
std::vector<T> disk_order(std::span<const float> counts, const io::ProjectionShape& s, io::ProjectionAxes axes) {
    const size_type angles = s.num_theta, rows = s.rows, C = s.cols;
    std::vector<T> out(counts.size());
    for (size_type r = 0; r < rows; ++r)
        for (size_type t = 0; t < angles; ++t) {
            const float* from = counts.data() + (r * angles + t) * C;
            T* to = out.data() + (axes == io::ProjectionAxes::y_theta_x ? (r * angles + t) : (t * rows + r)) * C;
            for (size_type x = 0; x < C; ++x) to[x] = static_cast<T>(from[x]);
        }
    return out;
}

std::vector<size_type> disk_shape(const io::ProjectionShape& s, io::ProjectionAxes axes) {
    if (axes == io::ProjectionAxes::y_theta_x) return {s.rows, s.num_theta, s.cols};
    return {s.num_theta, s.rows, s.cols};
}

void write_flat(io::File& file, const char* dataset, size_type frames, size_type rows, size_type cols, float value,
                bool uint16) {
    const auto count = static_cast<std::size_t>(frames * rows * cols);
    if (uint16) {
        const auto v = static_cast<std::uint16_t>(std::clamp(std::round(value), 0.0f, 65535.0f));
        const std::vector<std::uint16_t> values(count, v);
        file.write(dataset, {frames, rows, cols}, values.data());
    } else {
        const std::vector<float> values(count, value);
        file.write(dataset, {frames, rows, cols}, values.data());
    }
}

}  // namespace

double transmitted_counts(double p, const ExchangeWriteOptions& o) {
    return double(o.dark) + (double(o.white) - double(o.dark)) * std::exp(-p);
}

size_type line_integrals_to_counts(std::span<float> values, const ExchangeWriteOptions& o) {
    size_type clamped = 0;
#pragma omp parallel for schedule(static) reduction(+ : clamped)
    for (std::size_t i = 0; i < values.size(); ++i) {
        double c = transmitted_counts(double(values[i]), o);
        if (o.uint16) {
            c = std::round(c);
            if (!(c >= 0.0 && c <= 65535.0)) {
                c = c > 65535.0 ? 65535.0 : 0.0;
                ++clamped;
            }
        }
        values[i] = static_cast<float>(c);
    }
    return clamped;
}

void write_exchange_data(io::File& file, std::span<const float> counts, const io::ProjectionShape& shape,
                         const ExchangeWriteOptions& o) {
    TESSEL_ENSURE_DIMS(static_cast<size_type>(counts.size()) == shape.num_theta * shape.rows * shape.cols,
                       "write_exchange_data: " + std::to_string(counts.size()) + " values for " +
                           std::to_string(shape.num_theta) + " x " + std::to_string(shape.rows) + " x " +
                           std::to_string(shape.cols));
    const auto dims = disk_shape(shape, o.axes);
    if (o.uint16) {
        const auto values = disk_order<std::uint16_t>(counts, shape, o.axes);
        file.write("/exchange/data", dims, values.data());
    } else {
        const auto values = disk_order<float>(counts, shape, o.axes);
        file.write("/exchange/data", dims, values.data());
    }
    if (o.axes_attribute)
        file.write_attribute("/exchange/data", "axes",
                             o.axes == io::ProjectionAxes::y_theta_x ? "y:theta:x" : "theta:y:x");
}

void write_exchange_white(io::File& file, size_type rows, size_type cols, const ExchangeWriteOptions& o) {
    write_flat(file, "/exchange/data_white", o.num_white, rows, cols, o.white, o.uint16);
}

void write_exchange_dark(io::File& file, size_type rows, size_type cols, const ExchangeWriteOptions& o) {
    write_flat(file, "/exchange/data_dark", o.num_dark, rows, cols, o.dark, o.uint16);
}

void write_exchange_theta(io::File& file, std::span<const float> degrees) {
    file.write("/exchange/theta", {static_cast<size_type>(degrees.size())}, degrees.data());
}

double phantom_line_integral_scale(std::span<const float> sinograms) {
    double peak = 0;
    for (float p : sinograms) peak = std::max(peak, double(p));
    return peak > 0 ? 2.0 / peak : 1.0;
}

size_type save_exchange(const std::string& path, std::vector<float> sinograms, size_type slices,
                        const Geometry& g, double scale, const ExchangeProvenance& provenance,
                        const ExchangeWriteOptions& o) {
    const io::ProjectionShape shape{g.num_theta(), slices, g.num_rho};
    TESSEL_ENSURE_DIMS(static_cast<size_type>(sinograms.size()) == slices * g.num_rays(),
                       "save_exchange: " + std::to_string(sinograms.size()) + " values for " + std::to_string(slices) +
                           " sinograms of " + std::to_string(g.num_theta()) + " x " + std::to_string(g.num_rho));
    if (!(scale > 0) || !std::isfinite(scale))
        TESSEL_INVALID_INPUT("save-exchange", 0, "line integral scale must be positive and finite");
    if (scale != 1.0)
        for (float& p : sinograms) p = static_cast<float>(double(p) * scale);
    const size_type clamped = line_integrals_to_counts(sinograms, o);
    std::vector<float> degrees(g.theta.size());
    for (std::size_t a = 0; a < degrees.size(); ++a) degrees[a] = static_cast<float>(g.theta[a] * 180.0 / std::numbers::pi);

    auto file = io::File::create(path);
    write_exchange_data(file, sinograms, shape, o);
    file.write_attribute("/exchange/data", "line_integral_scale", scale);
    file.write_attribute("/exchange/data", "first_slice", static_cast<std::int64_t>(provenance.first_slice));
    file.write_attribute("/exchange/data", "source", provenance.source);
    file.write_attribute("/exchange/data", "command_line", provenance.command_line);
    file.write_attribute("/exchange/data", "version", provenance.version);
    write_exchange_white(file, slices, g.num_rho, o);
    write_exchange_dark(file, slices, g.num_rho, o);
    write_exchange_theta(file, degrees);
    file.commit();
    return clamped;
}

}  // namespace tessel::xct
