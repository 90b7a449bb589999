// Data Exchange layout checks, row-range reads in either axes order, and sinogram preprocessing.
#include "io/data_exchange.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>

#include "core/error.hpp"

namespace tessel::io {

namespace {

const std::string data_path = "/exchange/data";
const std::string white_path = "/exchange/data_white";
const std::string dark_path = "/exchange/data_dark";
const std::string theta_path = "/exchange/theta";

/// Shortest decimal form of a double (300, 127.5) for messages.
std::string number(double value) {
    char text[32];
    return std::string(text, std::to_chars(text, text + sizeof(text), value).ptr);
}

std::string trimmed(const std::string& s) {
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

/// The `axes` attribute of a dataset; flats and darks may name their frame axis after
/// themselves (theta_white, theta_dark, as the Data Exchange layout does) or plain theta.
ProjectionAxes read_axes(const File& file, const std::string& dataset, const std::string& frame_axis = "theta") {
    if (!file.has_attribute(dataset, "axes")) return ProjectionAxes::theta_y_x;
    const std::string axes = trimmed(file.read_string_attribute(dataset, "axes"));
    for (const std::string& name : {frame_axis, std::string("theta")}) {
        if (axes == name + ":y:x") return ProjectionAxes::theta_y_x;
        if (axes == "y:" + name + ":x") return ProjectionAxes::y_theta_x;
    }
    TESSEL_INVALID_INPUT(file.path() + ":" + dataset, 0,
                         "unsupported axes '" + axes + "', expected " + frame_axis + ":y:x or y:" + frame_axis + ":x");
}

std::string shape_text(const std::vector<size_type>& dims) {
    std::string text;
    for (std::size_t d = 0; d < dims.size(); ++d) text += (d ? " x " : "") + std::to_string(dims[d]);
    return text;
}

/// Checks a flat/dark dataset against the projections; returns its number of frames.
size_type check_frames(const File& file, const std::string& dataset, ProjectionAxes axes,
                       const ProjectionShape& shape) {
    const auto dims = file.require(dataset, 3);
    const size_type frames = axes == ProjectionAxes::theta_y_x ? dims[0] : dims[1];
    const size_type rows = axes == ProjectionAxes::theta_y_x ? dims[1] : dims[0];
    const std::string where = file.path() + ":" + dataset;
    if (rows != shape.rows || dims[2] != shape.cols)
        TESSEL_INVALID_INPUT(where, 0, "shape " + shape_text(dims) + " does not match the projections' " +
                                           std::to_string(shape.rows) + " rows x " + std::to_string(shape.cols) +
                                           " columns");
    if (frames < 1) TESSEL_INVALID_INPUT(where, 0, "no frames (shape " + shape_text(dims) + ")");
    return frames;
}

/// Per (slice, column) mean over the frames of (num_rows, frames, cols) values.
std::vector<float> frame_mean(const std::vector<float>& frames, size_type num_rows, size_type count, size_type cols) {
    std::vector<float> mean(static_cast<std::size_t>(num_rows * cols));
    for (size_type s = 0; s < num_rows; ++s)
        for (size_type x = 0; x < cols; ++x) {
            double sum = 0;
            for (size_type k = 0; k < count; ++k) sum += frames[(s * count + k) * cols + x];
            mean[s * cols + x] = static_cast<float>(sum / double(count));
        }
    return mean;
}

}  // namespace

ThetaUnits parse_theta_units(std::string_view text) {
    if (text == "auto") return ThetaUnits::automatic;
    if (text == "degrees" || text == "deg") return ThetaUnits::degrees;
    if (text == "radians" || text == "rad") return ThetaUnits::radians;
    TESSEL_INVALID_INPUT("theta-units", 0, "unknown units '" + std::string(text) + "', expected auto, degrees or radians");
}

DataExchange::DataExchange(const std::string& path, const ExchangeOptions& options)
    : file_(File::open(path)), options_(options) {
    const auto dims = file_.require(data_path, 3);
    axes_ = read_axes(file_, data_path);
    shape_.num_theta = axes_ == ProjectionAxes::theta_y_x ? dims[0] : dims[1];
    shape_.rows = axes_ == ProjectionAxes::theta_y_x ? dims[1] : dims[0];
    shape_.cols = dims[2];
    if (shape_.num_theta < 1 || shape_.rows < 1 || shape_.cols < 1)
        TESSEL_INVALID_INPUT(path + ":" + data_path, 0, "empty projections (shape " + shape_text(dims) + ")");

    if (!options_.no_flat) {
        // A missing white is refused with HDF5's own words (dataset not found): no flat, no
        // normalisation; --no-flat says the data are normalised already.
        white_axes_ = file_.exists(white_path) ? read_axes(file_, white_path, "theta_white") : ProjectionAxes::theta_y_x;
        num_white_ = check_frames(file_, white_path, white_axes_, shape_);
        if (file_.exists(dark_path)) {
            dark_axes_ = read_axes(file_, dark_path, "theta_dark");
            num_dark_ = check_frames(file_, dark_path, dark_axes_, shape_);
        } else {
            warnings_.push_back(path + ":" + dark_path + ": not found, dark current taken as zero");
        }
    }

    has_theta_ = file_.exists(theta_path);
    if (has_theta_) {
        const auto theta_dims = file_.require(theta_path, 1);
        if (theta_dims[0] != shape_.num_theta)
            TESSEL_INVALID_INPUT(path + ":" + theta_path, 0,
                                 std::to_string(theta_dims[0]) + " angles for " + std::to_string(shape_.num_theta) +
                                     " projections in " + data_path);
        check_theta();
    }
}

void DataExchange::check_theta() {
    const auto theta = file_.read<double>(theta_path);
    const std::string where = path() + ":" + theta_path;
    for (std::size_t k = 0; k < theta.size(); ++k)
        if (!std::isfinite(theta[k])) TESSEL_INVALID_INPUT(where, 0, "element " + std::to_string(k) + " is not finite");
    const auto [low, high] = std::minmax_element(theta.begin(), theta.end());
    if (theta.size() > 1 && *low == *high)
        TESSEL_INVALID_INPUT(where, 0, "all " + std::to_string(theta.size()) + " angles are equal (" + number(*low) +
                                           "), cannot reconstruct");
    theta_in_radians_ = options_.theta_units == ThetaUnits::radians;
    if (options_.theta_units != ThetaUnits::automatic || theta.size() < 2) return;
    // Radians look like: everything within [0, 2π] and a span of π or 2π (less one step).
    const double pi = std::numbers::pi, span = *high - *low, step = span / double(theta.size() - 1);
    const double slack = 2.0 * step + 1e-3;
    const bool in_range = *low >= -1e-3 && *high <= 2.0 * pi + 1e-3;
    if (in_range && (std::abs(span - pi) <= slack || std::abs(span - 2.0 * pi) <= slack)) {
        theta_in_radians_ = true;
        warnings_.push_back(where + ": angles span " + number(span) +
                            ", which looks like radians; read as radians (--theta-units degrees to override)");
    }
}

std::vector<float> DataExchange::theta_degrees() const {
    std::vector<float> theta(static_cast<std::size_t>(shape_.num_theta));
    if (!has_theta_) {
        for (size_type k = 0; k < shape_.num_theta; ++k)
            theta[k] = static_cast<float>(180.0 * double(k) / double(shape_.num_theta));
        return theta;
    }
    const auto stored = file_.read<double>(theta_path);
    const double scale = theta_in_radians_ ? 180.0 / std::numbers::pi : 1.0;
    for (std::size_t k = 0; k < stored.size(); ++k) theta[k] = static_cast<float>(stored[k] * scale);
    return theta;
}

std::vector<float> DataExchange::theta_radians() const {
    auto theta = theta_degrees();
    for (auto& t : theta) t = static_cast<float>(double(t) * std::numbers::pi / 180.0);
    return theta;
}

std::vector<float> DataExchange::read_rows(const std::string& dataset, ProjectionAxes axes, size_type frames,
                                           size_type first_row, size_type num_rows) const {
    if (first_row < 0 || num_rows < 1 || first_row + num_rows > shape_.rows)
        TESSEL_INVALID_INPUT(path() + ":" + dataset, 0,
                             "detector rows [" + std::to_string(first_row) + ", " +
                                 std::to_string(first_row + num_rows) + ") outside [0, " +
                                 std::to_string(shape_.rows) + ")");
    const size_type cols = shape_.cols;
    std::vector<float> out;
    if (axes == ProjectionAxes::y_theta_x) {
        // Already (rows, frames, cols): the hyperslab is the answer.
        out = file_.read_slab<float>(dataset, {{first_row, 0, 0}, {num_rows, frames, cols}});
    } else {
        const auto disk = file_.read_slab<float>(dataset, {{0, first_row, 0}, {frames, num_rows, cols}});
        out.resize(disk.size());
#pragma omp parallel for collapse(2)
        for (size_type s = 0; s < num_rows; ++s)
            for (size_type t = 0; t < frames; ++t)
                std::copy_n(disk.begin() + (t * num_rows + s) * cols, cols, out.begin() + (s * frames + t) * cols);
    }
    const auto n = static_cast<size_type>(out.size());
    size_type bad = n;
#pragma omp parallel for reduction(min : bad)
    for (size_type i = 0; i < n; ++i)
        if (!std::isfinite(out[i]) && i < bad) bad = i;
    if (bad < n) {
        const size_type s = bad / (frames * cols), t = bad / cols % frames, x = bad % cols;
        const bool projections = dataset == data_path;
        TESSEL_INVALID_INPUT(path() + ":" + dataset, 0,
                             std::string("value at ") + (projections ? "theta " : "frame ") + std::to_string(t) +
                                 ", y " + std::to_string(first_row + s) + ", x " + std::to_string(x) +
                                 " is not finite");
    }
    return out;
}

std::vector<float> DataExchange::read_projections(size_type first_row, size_type num_rows) const {
    return read_rows(data_path, axes_, shape_.num_theta, first_row, num_rows);
}

std::vector<float> DataExchange::read_white(size_type first_row, size_type num_rows) const {
    return read_rows(white_path, white_axes_, num_white_, first_row, num_rows);
}

std::vector<float> DataExchange::read_dark(size_type first_row, size_type num_rows) const {
    return read_rows(dark_path, dark_axes_, num_dark_, first_row, num_rows);
}

std::pair<std::vector<float>, std::vector<float>> DataExchange::flat_dark_means(size_type first_row,
                                                                                size_type num_rows) const {
    const size_type cols = shape_.cols;
    std::vector<float> white(static_cast<std::size_t>(num_rows * cols), 1.0f);
    std::vector<float> dark(white.size(), 0.0f);
    if (options_.no_flat) return {white, dark};
    white = frame_mean(read_white(first_row, num_rows), num_rows, num_white_, cols);
    if (num_dark_ > 0) dark = frame_mean(read_dark(first_row, num_rows), num_rows, num_dark_, cols);
    bool any_above = false, any_different = false;
    for (std::size_t i = 0; i < white.size() && !any_above; ++i) {
        any_above = white[i] > dark[i];
        any_different = any_different || white[i] != dark[i];
    }
    if (!any_above) {
        const std::string rows_text =
            "rows [" + std::to_string(first_row) + ", " + std::to_string(first_row + num_rows) + ")";
        TESSEL_INVALID_INPUT(path() + ":" + white_path, 0,
                             any_different ? "white is below dark everywhere in " + rows_text +
                                                 " (flat and dark fields swapped?), cannot normalise"
                                           : "white equals dark everywhere in " + rows_text +
                                                 " (all-zero flat fields?), cannot normalise");
    }
    return {white, dark};
}

void shift_center(std::span<float> rows, size_type num_rows, size_type cols, double center) {
    TESSEL_ENSURE_DIMS(static_cast<size_type>(rows.size()) == num_rows * cols,
                       "shift_center: " + std::to_string(rows.size()) + " values for " + std::to_string(num_rows) +
                           " rows of " + std::to_string(cols));
    if (!(center >= 0.0 && center <= double(cols)))
        TESSEL_INVALID_INPUT("center", 0, "rotation centre " + number(center) +
                                              " outside the detector [0, " + std::to_string(cols) + "]");
    const double shift = center - 0.5 * double(cols);
    if (shift == 0.0) return;
#pragma omp parallel
    {
        std::vector<float> row(static_cast<std::size_t>(cols));
#pragma omp for
        for (size_type r = 0; r < num_rows; ++r) {
            float* values = rows.data() + r * cols;
            std::copy_n(values, cols, row.begin());
            for (size_type i = 0; i < cols; ++i) {
                // Channel i's centre sits at column i + shift of the old grid.
                const double at = std::clamp(double(i) + shift, 0.0, double(cols - 1));
                const auto left = static_cast<size_type>(std::floor(at));
                const size_type right = std::min(left + 1, cols - 1);
                const double w = at - double(left);
                values[i] = static_cast<float>((1.0 - w) * row[left] + w * row[right]);
            }
        }
    }
}

size_type normalize_projections(std::span<float> projections, std::span<const float> white_mean,
                                std::span<const float> dark_mean, size_type num_slices, size_type num_theta,
                                size_type cols, const SinogramOptions& options) {
    TESSEL_ENSURE_DIMS(static_cast<size_type>(projections.size()) == num_slices * num_theta * cols &&
                           static_cast<size_type>(white_mean.size()) == num_slices * cols &&
                           static_cast<size_type>(dark_mean.size()) == num_slices * cols,
                       "normalize_projections: sizes do not match " + std::to_string(num_slices) + " x " +
                           std::to_string(num_theta) + " x " + std::to_string(cols));
    const double epsilon = options.epsilon;
    size_type clamped = 0;
#pragma omp parallel for collapse(2) reduction(+ : clamped)
    for (size_type s = 0; s < num_slices; ++s)
        for (size_type t = 0; t < num_theta; ++t) {
            float* p = projections.data() + (s * num_theta + t) * cols;
            const float* w = white_mean.data() + s * cols;
            const float* d = dark_mean.data() + s * cols;
            for (size_type x = 0; x < cols; ++x) {
                double ratio = (double(p[x]) - d[x]) / (double(w[x]) - d[x]);
                // Dead pixels, noise below the dark level and white == dark would give NaN or Inf.
                if (!(ratio > 0.0) || !std::isfinite(ratio)) {
                    ratio = epsilon;
                    ++clamped;
                }
                p[x] = static_cast<float>(-std::log(ratio));
            }
        }
    shift_center(projections, num_slices * num_theta, cols, options.center.value_or(0.5 * double(cols)));
    return clamped;
}

Sinograms read_sinograms(const DataExchange& file, size_type first_row, size_type num_rows,
                         const SinogramOptions& options) {
    const ProjectionShape& shape = file.shape();
    if (options.center && !(*options.center >= 0.0 && *options.center <= double(shape.cols)))
        TESSEL_INVALID_INPUT(file.path(), 0, "rotation centre " + number(*options.center) +
                                                 " outside the detector [0, " + std::to_string(shape.cols) + "]");
    Sinograms out;
    out.num_slices = num_rows;
    out.num_theta = shape.num_theta;
    out.num_rho = shape.cols;
    out.values = file.read_projections(first_row, num_rows);
    const auto [white, dark] = file.flat_dark_means(first_row, num_rows);
    out.clamped = normalize_projections(out.values, white, dark, num_rows, shape.num_theta, shape.cols, options);
    return out;
}

}  // namespace tessel::io
