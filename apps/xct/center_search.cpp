// Trial centres: shift, filter, one backprojection of all trials, PNGs and the metric table.
#include "apps/xct/center_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/error.hpp"
#include "io/atomic_output.hpp"
#include "apps/xct/center_finding.hpp"

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
        out << "center\tentropy\tsharpness\tpng\n";
        for (const auto& r : rows) out << r.center << "\t" << r.entropy << "\t" << r.sharpness << "\t" << r.png << "\n";
        if (!out) TESSEL_INVALID_INPUT(path, 0, "cannot write the centre table");
    }
    output.commit();
}

}  // namespace

template <typename V>
std::vector<CenterTrialResult> run_center_search(SinogramSource& source, size_type slice, const CenterTrials& trials,
                                                 const Ordering& ordering, const ProjectorOptions& projector,
                                                 const FbpOptions& fbp, const std::string& dir, io::Colormap colormap,
                                                 std::ostream& log) {
    const Geometry& g = source.info().geometry;
    const auto centers = trials.centers();
    const auto count = static_cast<size_type>(centers.size());
    for (double c : centers)
        if (!(c >= 0.0 && c <= double(g.num_rho)))
            TESSEL_INVALID_INPUT("center-search", 0, "trial centre " + std::to_string(c) + " outside the detector [0, " +
                                                         std::to_string(g.num_rho) + "]");
    const auto raw = source.read_unshifted(slice);
    // Column t of b: the slice shifted to trial centre t and filtered.
    auto op = make_local_projector<V>(g, ordering, projector);
    DenseMatrix<V> b(g.num_rays(), count), x;
    for (size_type t = 0; t < count; ++t) {
        std::vector<float> rows = raw;
        shift_center_cubic(rows, g.num_theta(), g.num_rho, centers[t]);
        fbp_filter_rows<float>(rows, g.num_theta(), g.num_rho, g.theta, fbp);
        for (size_type i = 0; i < g.num_rays(); ++i) b(i, t) = static_cast<V>(rows[ordering.rays[i]]);
    }
    op->backward(b, x);
    std::vector<std::vector<float>> images(static_cast<std::size_t>(count),
                                           std::vector<float>(static_cast<std::size_t>(g.num_pixels())));
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (size_type i = 0; i < g.num_pixels(); ++i)
        for (size_type t = 0; t < count; ++t) {
            const float v = static_cast<float>(x(i, t));
            images[t][ordering.pixels[i]] = v;
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
        char name[64];
        std::snprintf(name, sizeof(name), "center_%08.2f.png", centers[t]);
        r.png = (std::filesystem::path(dir) / name).string();
        io::write_png(r.png, images[t].data(), g.n, g.n, png);
        rows.push_back(r);
    }
    write_table((std::filesystem::path(dir) / "center_search.tsv").string(), rows);
    const auto best = std::max_element(rows.begin(), rows.end(),
                                       [](const auto& a, const auto& b) { return a.sharpness < b.sharpness; });
    log << "centre search on slice " << slice << " (" << count << " trials, FBP " << to_string(fbp.filter) << "):\n";
    log << "  centre    entropy  sharpness\n";
    for (const auto& r : rows) {
        char line[96];
        std::snprintf(line, sizeof(line), "  %8.2f  %7.4f  %9.4g%s\n", r.center, r.entropy, r.sharpness,
                      &r == &*best ? "  <- sharpest" : "");
        log << line;
    }
    log << "gallery: " << dir << " (center_*.png, center_search.tsv)\n";
    return rows;
}

template std::vector<CenterTrialResult> run_center_search<float>(SinogramSource&, size_type, const CenterTrials&,
                                                                 const Ordering&, const ProjectorOptions&,
                                                                 const FbpOptions&, const std::string&, io::Colormap,
                                                                 std::ostream&);
template std::vector<CenterTrialResult> run_center_search<double>(SinogramSource&, size_type, const CenterTrials&,
                                                                  const Ordering&, const ProjectorOptions&,
                                                                  const FbpOptions&, const std::string&, io::Colormap,
                                                                  std::ostream&);

}  // namespace tessel::xct
