// Trial centres: filter once, backproject at each trial axis, PNGs, the metric table, the pick.
#include "apps/xct/fbp/center_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

#include "apps/xct/fbp/direct_backprojection.hpp"
#include "apps/xct/preprocessing/center_finding.hpp"
#include "core/dense.hpp"
#include "core/error.hpp"
#include "io/atomic_output.hpp"

namespace tessel::xct {

std::vector<double> CenterTrials::centers() const {
    std::vector<double> out;
    for (int i = 0; first + i * step <= last + 1e-9 * step; ++i) out.push_back(first + i * step);
    return out;
}

CenterTrials parse_center_trials(std::string_view text) {
    auto bad = [&](const std::string& why) {
        TESSEL_INVALID_INPUT("center-search", 0, "'" + std::string(text) + "' " + why);
    };
    CenterTrials t;
    const std::string s(text);
    char extra = 0;
    if (std::sscanf(s.c_str(), "%lf:%lf:%lf%c", &t.first, &t.last, &t.step, &extra) != 3)
        bad("is not A:B:STEP (for example 120:136:0.5)");
    if (!std::isfinite(t.first) || !std::isfinite(t.last) || !std::isfinite(t.step) || !(t.step > 0) || t.last < t.first)
        bad("needs finite A <= B and STEP > 0");
    if ((t.last - t.first) / t.step > 999) bad("gives more than 1000 trial centres");
    return t;
}

CenterTrialResult score_image(const std::vector<float>& image, size_type n) {
    // Inside the circle the scan saw from every angle.
    const double r = 0.5 * double(n) - 1.0, middle = 0.5 * double(n) - 0.5;
    auto inside = [&](size_type x, size_type y) {
        const double dx = double(x) - middle, dy = double(y) - middle;
        return dx * dx + dy * dy <= r * r;
    };
    double low = std::numeric_limits<double>::infinity(), high = -low, squares = 0, gradients = 0;
    size_type count = 0;
    for (size_type y = 1; y + 1 < n; ++y)
        for (size_type x = 1; x + 1 < n; ++x) {
            if (!inside(x, y)) continue;
            const double v = image[y * n + x];
            low = std::min(low, v);
            high = std::max(high, v);
            squares += v * v;
            const double gx = 0.5 * (image[y * n + x + 1] - image[y * n + x - 1]);
            const double gy = 0.5 * (image[(y + 1) * n + x] - image[(y - 1) * n + x]);
            gradients += gx * gx + gy * gy;
            ++count;
        }
    CenterTrialResult result;
    if (count == 0 || !(high > low)) return result;
    std::vector<double> histogram(256, 0.0);
    for (size_type y = 1; y + 1 < n; ++y)
        for (size_type x = 1; x + 1 < n; ++x)
            if (inside(x, y)) {
                const auto bin = static_cast<std::size_t>(std::min(255.0, 256.0 * (image[y * n + x] - low) / (high - low)));
                histogram[bin] += 1.0;
            }
    for (double h : histogram)
        if (h > 0) result.entropy -= (h / double(count)) * std::log2(h / double(count));
    result.sharpness = squares > 0 ? gradients / squares : 0.0;
    return result;
}

namespace {

void write_table(const std::string& path, const std::vector<CenterTrialResult>& rows) {
    io::AtomicOutput output(path);
    {
        std::ofstream out(output.temp_path());
        out << "center\tvo\tentropy\tsharpness\tpng\n";
        for (const auto& r : rows) out << r.center << "\t" << r.vo << "\t" << r.entropy << "\t" << r.sharpness << "\t" << r.png << "\n";
        if (!out) TESSEL_INVALID_INPUT(path, 0, "cannot write the centre table");
    }
    output.commit();
}

}  // namespace

std::vector<std::vector<float>> fbp_at_centers(std::vector<float> sinogram, const Geometry& g,
                                               const std::vector<double>& centers, const FbpOptions& fbp,
                                               Backend backend) {
    TESSEL_ENSURE_DIMS(static_cast<size_type>(sinogram.size()) == g.num_rays(),
                       "fbp_at_centers: " + std::to_string(sinogram.size()) + " values for " + g.describe());
    for (double c : centers)
        if (!(c >= 0.0 && c <= double(g.num_rho)))
            TESSEL_INVALID_INPUT("center-search", 0, "trial centre " + std::to_string(c) + " outside the detector [0, " +
                                                         std::to_string(g.num_rho) + "]");
    // The filter is shift-invariant: filter once, move the axis in the backprojection.
    fbp_filter_rows<float>(sinogram, g.num_theta(), g.num_rho, g.theta, fbp);
    DenseMatrix<float> b(g.num_rays(), 1), x;
    std::copy(sinogram.begin(), sinogram.end(), b.data());
    std::vector<std::vector<float>> images;
    for (double c : centers) {
        backproject_direct(b, g, c, x, backend);
        images.emplace_back(x.data(), x.data() + g.num_pixels());
    }
    return images;
}

CenterPick pick_center(const std::vector<CenterTrialResult>& rows) {
    CenterPick pick;
    if (rows.empty()) return pick;
    pick.by_entropy = std::isnan(rows.front().vo);
    auto key = [&](const CenterTrialResult& r) { return pick.by_entropy ? r.entropy : r.vo; };
    for (std::size_t i = 1; i < rows.size(); ++i)
        if (key(rows[i]) < key(rows[pick.index])) pick.index = i;
    pick.at_edge = pick.index == 0 || pick.index + 1 == rows.size();
    return pick;
}

namespace {

// Vo's metric per trial; NaN for every trial when the scan does not allow it (not 180 degrees).
std::vector<double> vo_column(const std::vector<float>& raw, const Geometry& g, const std::vector<double>& centers) {
    try {
        return vo_metric_at(raw, g.num_theta(), g.num_rho, g.theta, centers);
    } catch (const InvalidInput&) {
        return std::vector<double>(centers.size(), std::numeric_limits<double>::quiet_NaN());
    }
}

void print_pick(const std::vector<CenterTrialResult>& rows, const CenterPick& pick, const CenterTrials& trials,
                std::ostream& log) {
    char line[256];
    const double c = rows[pick.index].center;
    if (pick.at_edge) {
        std::snprintf(line, sizeof(line),
                      "picked centre: none (the best trial, %.2f, is the %s edge of %g:%g: the range is too narrow; "
                      "widen it past %.2f)\n",
                      c, pick.index == 0 ? "lower" : "upper", trials.first, trials.last, c);
    } else {
        std::snprintf(line, sizeof(line), "picked centre: %.2f\n", c);
    }
    if (pick.by_entropy) log << "(Vo's metric needs a 180 degree scan: picked by the smallest entropy)\n";
    log << line;
}

}  // namespace

std::vector<CenterTrialResult> run_center_search(SinogramSource& source, size_type slice, const CenterTrials& trials,
                                                 const FbpOptions& fbp, const std::string& dir, io::Colormap colormap,
                                                 std::ostream& log, Backend backend) {
    const Geometry& g = source.info().geometry;
    const auto centers = trials.centers();
    const auto count = static_cast<size_type>(centers.size());
    const auto raw = source.read_unshifted(slice);
    const auto images = fbp_at_centers(raw, g, centers, fbp, backend);
    const auto vo = vo_column(raw, g, centers);
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (const auto& image : images)
        for (float v : image) {
            low = std::min(low, double(v));
            high = std::max(high, double(v));
        }
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) TESSEL_INVALID_INPUT(dir, 0, "cannot create folder: " + ec.message());
    std::vector<CenterTrialResult> rows;
    io::PngOptions png{colormap, high > low ? std::optional(std::pair(low, high)) : std::nullopt};
    for (size_type t = 0; t < count; ++t) {
        CenterTrialResult r = score_image(images[t], g.n);
        r.center = centers[t];
        r.vo = vo[t];
        char name[64];
        std::snprintf(name, sizeof(name), "center_%08.2f.png", centers[t]);
        r.png = (std::filesystem::path(dir) / name).string();
        io::write_png(r.png, images[t].data(), g.n, g.n, png);
        rows.push_back(r);
    }
    write_table((std::filesystem::path(dir) / "center_search.tsv").string(), rows);
    const CenterPick pick = pick_center(rows);
    log << "centre search on slice " << slice << " (" << count << " trials, FBP " << to_string(fbp.filter) << "):\n";
    log << "  centre   Vo metric   entropy  sharpness\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        char line[128];
        std::snprintf(line, sizeof(line), "  %8.2f  %9.4g  %7.4f  %9.4g%s\n", r.center, r.vo, r.entropy, r.sharpness,
                      i == pick.index ? (pick.at_edge ? "  <- smallest, at the range edge" : "  <- picked") : "");
        log << line;
    }
    print_pick(rows, pick, trials, log);
    log << "gallery: " << dir << " (center_*.png, center_search.tsv)\n";
    return rows;
}

}  // namespace tessel::xct
