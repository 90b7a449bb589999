// Inputs: Data Exchange (read, then normalise), MemXCT raw files, the phantom.
#include "apps/xct/io/sinogram_source.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <tuple>

#include "apps/xct/geometry/phantom.hpp"
#include "apps/xct/io/raw_shape.hpp"
#include "apps/xct/preprocessing/center_finding.hpp"
#include "core/error.hpp"
#include "io/memxct_raw.hpp"

namespace tessel::xct {

namespace {

std::string number(double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

}  // namespace

std::pair<size_type, size_type> parse_slice_range(std::string_view text) {
    const auto colon = text.find(':');
    auto bad = [&]() {
        TESSEL_INVALID_INPUT("slices", 0, "cannot read '" + std::string(text) + "' as a range A:B (for example 100:228)");
    };
    if (colon == std::string_view::npos) bad();
    try {
        std::size_t used = 0;
        const std::string a(text.substr(0, colon)), b(text.substr(colon + 1));
        const long long first = std::stoll(a, &used);
        if (used != a.size()) bad();
        const long long end = std::stoll(b, &used);
        if (used != b.size()) bad();
        if (first < 0 || end <= first)
            TESSEL_INVALID_INPUT("slices", 0, "empty or negative range " + std::string(text));
        return {first, end};
    } catch (const InvalidInput&) {
        throw;
    } catch (...) {
        bad();
    }
    return {0, 0};
}

nlohmann::json InputInfo::json() const {
    return {{"n", geometry.n},       {"num_rho", geometry.num_rho}, {"theta", geometry.theta},
            {"available", available}, {"first_slice", first_slice},  {"slices", slices},
            {"center", center},       {"description", description},  {"input_bytes_per_slice", input_bytes_per_slice},
            {"phantom", phantom}};
}

InputInfo InputInfo::from_json(const nlohmann::json& j) {
    InputInfo info;
    info.geometry.n = j.at("n");
    info.geometry.num_rho = j.at("num_rho");
    info.geometry.theta = j.at("theta").get<std::vector<double>>();
    info.available = j.at("available");
    info.first_slice = j.at("first_slice");
    info.slices = j.at("slices");
    info.center = j.at("center");
    info.description = j.at("description");
    info.input_bytes_per_slice = j.at("input_bytes_per_slice");
    info.phantom = j.at("phantom");
    return info;
}

SinogramSource::SinogramSource(const InputOptions& options) : options_(options) {
    auto& g = info_.geometry;
    std::string name;
    switch (options.kind) {
    case InputKind::data_exchange: {
        exchange_ = std::make_unique<io::DataExchange>(options.path, options.exchange);
        warnings_ = exchange_->warnings();
        const auto& shape = exchange_->shape();
        const auto theta = exchange_->theta_radians();
        g.theta.assign(theta.begin(), theta.end());
        g.num_rho = shape.cols;
        info_.available = shape.rows;
        info_.input_bytes_per_slice =
            (shape.num_theta + exchange_->num_white() + exchange_->num_dark()) * shape.cols * 4;
        name = options.path;
        info_.description = "Data Exchange " + options.path + " (" + std::to_string(shape.num_theta) +
                            " projections of " + std::to_string(shape.rows) + " x " + std::to_string(shape.cols) + ")";
        break;
    }
    case InputKind::raw: {
        const auto theta = io::read_theta(options.theta_path);
        // Equal angles see the object from one side only: the solve would "succeed" on garbage.
        const auto [low, high] = std::minmax_element(theta.begin(), theta.end());
        if (theta.size() > 1 && *low == *high)
            TESSEL_INVALID_INPUT(options.theta_path, 0, "all " + std::to_string(theta.size()) + " angles are equal (" +
                                                            number(*low) + " radians), cannot reconstruct");
        g.theta.assign(theta.begin(), theta.end());
        const RawShape shape =
            raw_shape(options.path, options.theta_path, g.num_theta(), options.num_slices, options.channels);
        const size_type slices = shape.slices;
        g.num_rho = shape.channels;
        info_.available = slices;
        info_.input_bytes_per_slice = g.num_theta() * g.num_rho * 4;
        name = options.path;
        info_.description = "raw sinogram " + options.path + " (" + std::to_string(slices) + " x " +
                            std::to_string(g.num_theta()) + " x " + std::to_string(g.num_rho) + ")";
        break;
    }
    case InputKind::phantom: {
        if (options.phantom_size < 1)
            TESSEL_INVALID_INPUT("phantom", 0, "size " + std::to_string(options.phantom_size) + " is below 1");
        g.num_rho = options.phantom_size;
        const size_type angles = options.angles > 0 ? options.angles : (3 * options.phantom_size + 1) / 2;
        g.theta = uniform_angles(angles);
        info_.available = options.num_slices > 0 ? options.num_slices : 1;
        info_.phantom = true;
        name = "phantom";
        info_.description = std::string(info_.available > 1 ? "3-D" : "2-D") + " Shepp-Logan phantom " +
                            std::to_string(options.phantom_size) + " x " + std::to_string(options.phantom_size) +
                            (info_.available > 1 ? " x " + std::to_string(info_.available) : std::string()) + ", " +
                            std::to_string(angles) + " angles" +
                            (options.noise > 0 ? ", Poisson noise " + number(options.noise) + " photons" : "");
        break;
    }
    }
    g.n = options.size > 0 ? options.size : g.num_rho;
    if (options.kind == InputKind::phantom && options.size > 0 && options.size != options.phantom_size)
        TESSEL_INVALID_INPUT("size", 0, "--size differs from the phantom size");
    g.validate();
    info_.first_slice = 0;
    info_.slices = info_.available;
    if (options.slices) {
        const auto [first, end] = *options.slices;
        if (end > info_.available)
            TESSEL_INVALID_INPUT("slices", 0, "range " + std::to_string(first) + ":" + std::to_string(end) +
                                                  " outside the " + std::to_string(info_.available) + " slices of " +
                                                  name);
        info_.first_slice = first;
        info_.slices = end - first;
    }
    info_.center = options.center.value_or(0.5 * double(g.num_rho));
    if (options.center && !(info_.center >= 0.0 && info_.center <= double(g.num_rho)))
        TESSEL_INVALID_INPUT(name, 0, "rotation centre " + number(info_.center) + " outside the detector [0, " +
                                          std::to_string(g.num_rho) + "]");
    if (options.center && options.kind == InputKind::phantom)
        TESSEL_INVALID_INPUT("center", 0, "--center applies to measured data, not to the phantom");
}

std::vector<float> SinogramSource::read(size_type first, size_type count, PhaseTimes& times, size_type& clamped) {
    const auto& g = info_.geometry;
    const size_type row = info_.first_slice + first, per = g.num_theta() * g.num_rho;
    clamped = 0;
    if (options_.kind == InputKind::phantom) TESSEL_THROW(Error, "read: the phantom has no sinogram file");
    // The slices as the detector saw them (normalised, -log), then each shifted by its centre.
    std::vector<float> values;
    if (options_.kind == InputKind::raw) {
        if (raw_.empty()) {
            auto scope = times.scope("read");
            raw_ = io::read_sinogram(options_.path, info_.available, g.num_theta(), g.num_rho);
        }
        values.assign(raw_.begin() + row * per, raw_.begin() + (row + count) * per);
    } else {
        std::vector<float> white_mean, dark_mean;
        {
            auto scope = times.scope("read");
            values = exchange_->read_projections(row, count);
            std::tie(white_mean, dark_mean) = exchange_->flat_dark_means(row, count);
        }
        auto scope = times.scope("preprocess");
        clamped = io::normalize_projections(values, white_mean, dark_mean, count, g.num_theta(), g.num_rho, {});
    }
    auto scope = times.scope("preprocess");
    if (!per_slice_) {
        io::shift_center(values, count * g.num_theta(), g.num_rho, info_.center);
        return values;
    }
    CenterSearchOptions search;
    search.around = info_.center;
    for (size_type s = 0; s < count; ++s) {
        const std::span<float> slice(values.data() + s * per, static_cast<std::size_t>(per));
        const double center = find_center_vo(slice, g.num_theta(), g.num_rho, g.theta, search);
        slice_centers_[row + s] = center;
        io::shift_center(slice, g.num_theta(), g.num_rho, center);
    }
    return values;
}

std::vector<float> SinogramSource::read_unshifted(size_type slice) {
    const auto& g = info_.geometry;
    if (options_.kind == InputKind::phantom)
        TESSEL_INVALID_INPUT("center", 0, "automatic centre finding applies to measured data, not to the phantom");
    if (slice < 0 || slice >= info_.available)
        TESSEL_INVALID_INPUT("center-slice", 0, "slice " + std::to_string(slice) + " outside the " +
                                                    std::to_string(info_.available) + " slices of " + options_.path);
    if (options_.kind == InputKind::raw) {
        if (raw_.empty()) raw_ = io::read_sinogram(options_.path, info_.available, g.num_theta(), g.num_rho);
        const size_type per = g.num_theta() * g.num_rho;
        return std::vector<float>(raw_.begin() + slice * per, raw_.begin() + (slice + 1) * per);
    }
    auto values = exchange_->read_projections(slice, 1);
    const auto [white, dark] = exchange_->flat_dark_means(slice, 1);
    io::normalize_projections(values, white, dark, 1, g.num_theta(), g.num_rho, {});
    return values;
}

double SinogramSource::find_center(size_type slice) {
    const auto sinogram = read_unshifted(slice);
    const auto& g = info_.geometry;
    info_.center = find_center_vo(sinogram, g.num_theta(), g.num_rho, g.theta);
    return info_.center;
}

std::vector<float> phantom_images(const InputInfo& info, size_type first, size_type count) {
    const size_type n = info.geometry.n;
    if (info.available == 1) return shepp_logan_2d(n);
    std::vector<float> images;
    images.reserve(static_cast<std::size_t>(count * n * n));
    for (size_type s = 0; s < count; ++s) {
        const size_type absolute = info.first_slice + first + s;
        const auto image =
            shepp_logan_3d_slice(n, (2.0 * double(absolute) + 1.0) / double(info.available) - 1.0);
        images.insert(images.end(), image.begin(), image.end());
    }
    return images;
}

std::vector<float> SinogramSource::phantom_images(size_type first, size_type count) const {
    return xct::phantom_images(info_, first, count);
}

}  // namespace tessel::xct
