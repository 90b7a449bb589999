// Helper of the tessel-xct binary tests:
//   make-dx OUT AXES [theta|flats|nan|nowhite|rank|equal-theta|swapped]   a Data Exchange file
//                                                      (phantom or defective)
//   make-dx OUT AXES shifted                           the phantom's file with the rotation centre at
//                                                      column 25 (1 right of the middle)
//   phantom N OUT.raw [S]                              the 2-D phantom (or S slices of the 3-D one,
//                                                      as tessel-xct --phantom N --num-slices S) as raw float32
//   make-dx OUT AXES tilted                            row r turns about column 24 + 0.5·r
//   make-dx OUT AXES striped                           four detector columns with a gain error
//   make-rotated OUT [AXIS]                            a beamline-like uint16 file of 640 channels whose
//                                                      sample turns about column AXIS (296.3; rotated_sample.hpp)
//   check-centers FILE.h5 FIRST STEP TOL               per-slice centres near FIRST + STEP·slice
//   center FILE.h5                                     prints the volume's `center` attribute
//   make-big OUT                                       2048 x 1500 x 2448 metadata-only file (dry runs)
//   compare A.h5 B.h5 TOL                              volumes equal to TOL·max|A| (0: exactly)
//   check-phantom FILE.h5 MIN_DB                       every slice within MIN_DB of the phantom (make-dx)
//   check-phantom FILE.h5 MIN_DB S [X.h5]              the same against slices of the S-slice phantom
//                                                      (scaled as tessel-xct --save-exchange wrote X.h5)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "apps/xct/cache/operator_cache.hpp"
#include "apps/xct/geometry/phantom.hpp"
#include "apps/xct/io/output.hpp"
#include "apps/xct/operator/projector.hpp"
#include "exchange_fixture.hpp"
#include "io/atomic_output.hpp"
#include "io/data_exchange.hpp"
#include "io/hdf5_file.hpp"
#include "rotated_sample.hpp"

using namespace tessel;
using namespace tessel::xct;

namespace {

// Absorption of the phantom used in the files (moderate, so that uint16-like counts stay high).
constexpr float absorption = 0.05f;
constexpr size_type dx_n = 48, dx_angles = 72, dx_rows = 4;

int make_dx(const std::string& out, const std::string& axes, const std::string& defect) {
    test::ExchangeSpec spec;
    spec.y_theta_x = axes == "y:theta:x";
    if (defect.empty() || defect == "shifted" || defect == "tilted" || defect == "striped") {
        spec.num_theta = dx_angles;
        spec.rows = dx_rows;
        spec.cols = dx_n;
        spec.white = 60000.0f;
        Geometry g{dx_n, dx_n, uniform_angles(dx_angles)};
        const auto o = make_ordering(g, DomainOrder::natural);
        auto op = make_local_projector<float>(g, o, {});
        const auto truth = shepp_logan_2d(dx_n);
        DenseMatrix<float> x(g.num_pixels(), 1), y;
        for (size_type i = 0; i < g.num_pixels(); ++i) x(i, 0) = truth[i] * absorption;
        op->forward(x, y);
        std::vector<float> sinogram;
        for (size_type r = 0; r < dx_rows; ++r)
            for (size_type i = 0; i < g.num_rays(); ++i) sinogram.push_back(y(i, 0));
        // Tilted: row r turns about column 24 + 0.5·r (an axis not parallel to the columns).
        if (defect == "tilted")
            for (size_type r = 0; r < dx_rows; ++r)
                io::shift_center(std::span<float>(sinogram.data() + r * g.num_rays(), std::size_t(g.num_rays())),
                                 dx_angles, dx_n, 0.5 * double(dx_n) - 0.5 * double(r));
        // out(i) = in(i - 1): the object turns about column 24 + 1 (a whole channel: no interpolation
        // blur, the sub-pixel cases are in test_beamline.cpp; the phantom's projections
        // reach 22 channels from the middle, so it stays on the 48-channel detector).
        if (defect == "shifted") io::shift_center(sinogram, dx_rows * dx_angles, dx_n, 0.5 * double(dx_n) - 1.0);
        // Striped: columns whose gain is 15-20 % off at every angle (a factor on the counts
        // is an offset on the line integrals): rings.
        if (defect == "striped")
            for (const auto& [column, gain] : {std::pair{11, 1.15}, {19, 0.85}, {29, 1.2}, {35, 0.8}})
                for (size_type row = 0; row < dx_rows * dx_angles; ++row)
                    sinogram[row * dx_n + column] -= static_cast<float>(std::log(gain));
        test::write_exchange(out, spec, &sinogram);
        return 0;
    }
    if (defect == "theta") spec.theta_count = 5;
    else if (defect == "flats") spec.zero_flats = true;
    else if (defect == "nan") spec.nan_at = true;
    else if (defect == "nowhite") spec.no_white = true;
    else if (defect == "rank") spec.flat_data = true;
    else if (defect == "equal-theta") spec.equal_theta = true;
    else if (defect == "swapped") std::swap(spec.white, spec.dark);
    else {
        std::fprintf(stderr, "unknown defect %s\n", defect.c_str());
        return 2;
    }
    test::write_exchange(out, spec);
    return 0;
}

// A 2048 x 1500 x 2448 uint16 file (theta:y:x, chunked, deflate) whose chunks were never
// written: metadata only, for --dry-run at real sizes.
int make_big(const std::string& out) {
    auto file = io::File::create(out);
    io::DatasetOptions chunks;
    chunks.chunk = {1, 1500, 2448};
    chunks.deflate = 1;
    file.create_dataset<std::uint16_t>("/exchange/data", {2048, 1500, 2448}, chunks);
    file.write_attribute("/exchange/data", "axes", "theta:y:x");
    file.create_dataset<std::uint16_t>("/exchange/data_white", {20, 1500, 2448}, chunks);
    file.write_attribute("/exchange/data_white", "axes", "theta_white:y:x");
    file.create_dataset<std::uint16_t>("/exchange/data_dark", {10, 1500, 2448}, chunks);
    file.write_attribute("/exchange/data_dark", "axes", "theta_dark:y:x");
    std::vector<float> theta(2048);
    for (int i = 0; i < 2048; ++i) theta[i] = 180.0f * float(i) / 2048.0f;
    file.write<float>("/exchange/theta", {2048}, theta.data());
    file.commit();
    return 0;
}

std::vector<float> volume(const std::string& path, std::vector<size_type>& shape) {
    const auto f = io::File::open(path);
    shape = f.shape(volume_dataset);
    return f.read<float>(volume_dataset);
}

int compare(const std::string& a_path, const std::string& b_path, double tol) {
    std::vector<size_type> sa, sb;
    const auto a = volume(a_path, sa), b = volume(b_path, sb);
    if (sa != sb) {
        std::printf("shapes differ\n");
        return 1;
    }
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff = std::max(diff, double(std::abs(a[i] - b[i])));
        scale = std::max(scale, double(std::abs(a[i])));
    }
    const std::size_t per = static_cast<std::size_t>(sa[1] * sa[2]);
    for (size_type s = 0; s < sa[0]; ++s) {
        double d = 0, m = 0, sum = 0;
        for (std::size_t i = s * per; i < (s + 1) * per; ++i) {
            d = std::max(d, double(std::abs(a[i] - b[i])));
            m = std::max(m, double(std::abs(a[i])));
            sum += double(a[i] - b[i]) * double(a[i] - b[i]);
        }
        std::printf("slice %lld: max |a - b| = %.3e, rms %.3e, max |a| = %.3e\n", static_cast<long long>(s), d,
                    std::sqrt(sum / double(per)), m);
    }
    std::printf("max |a - b| = %.3e, max |a| = %.3e, tolerance %.1e relative\n", diff, scale, tol);
    return diff <= tol * scale ? 0 : 1;
}

// PSNR of every slice of the volume against the phantom: the 2-D one x `absorption` (make-dx
// files), or slices of the app's S-slice phantom (S > 0) from the volume's first slice, with
// `exchange` (a --save-exchange file of that phantom) x the file's line_integral_scale and
// numbered from the first slices of both files.
int check_phantom(const std::string& path, double min_db, size_type phantom_slices = 0,
                  const std::string& exchange = "") {
    std::vector<size_type> shape;
    const auto v = volume(path, shape);
    const size_type n = shape[1];
    double scale = phantom_slices > 0 ? 1.0 : absorption;
    size_type first = 0;
    if (phantom_slices > 0) first = io::File::open(path).read_attribute<std::int64_t>(volume_dataset, "first_slice");
    if (!exchange.empty()) {
        const auto x = io::File::open(exchange);
        scale = x.read_attribute<double>("/exchange/data", "line_integral_scale");
        first += x.read_attribute<std::int64_t>("/exchange/data", "first_slice");
        std::printf("phantom of %lld slices x %.6g (line_integral_scale of %s)\n",
                    static_cast<long long>(phantom_slices), scale, exchange.c_str());
    }
    int status = 0;
    for (size_type s = 0; s < shape[0]; ++s) {
        auto truth = phantom_slices <= 0
                         ? shepp_logan_2d(n)
                         : shepp_logan_3d_slice(n, (2.0 * double(first + s) + 1.0) / double(phantom_slices) - 1.0);
        for (auto& t : truth) t *= static_cast<float>(scale);
        const double db = psnr(std::span<const float>(v.data() + s * n * n, n * n), truth);
        std::printf("slice %lld: PSNR %.2f dB\n", static_cast<long long>(first + s), db);
        if (!(db >= min_db)) status = 1;
    }
    return status;
}

// The seed of fuzz/corpus/xct_operator_cache: a small A and Aᵀ under the fuzzer's key.
int operator_cache_seed(const std::string& out) {
    const Geometry g{12, 12, uniform_angles(9)};
    const TiledEllConfig tiles{32, 64};
    const auto ops = build_tiled_operators<float>(g, make_ordering(g, DomainOrder::hilbert, 4), tiles, false, true);
    save_tiled_operators<float>(out, OperatorCacheKey{"fuzz seed operator"}, ops.a, &ops.at);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::string command = argc > 1 ? argv[1] : "";
        if (command == "make-dx" && argc >= 4) return make_dx(argv[2], argv[3], argc > 4 ? argv[4] : "");
        if (command == "make-big" && argc == 3) return make_big(argv[2]);
        if (command == "make-rotated" && (argc == 3 || argc == 4)) {
            test::RotatedSampleSpec spec;
            if (argc == 4) spec.axis = std::stod(argv[3]);
            test::write_rotated_sample(argv[2], spec);
            return 0;
        }
        if (command == "check-centers" && argc == 6) {
            // Per-slice centres within TOL of FIRST + STEP·slice.
            const auto centers = io::File::open(argv[2]).read_array_attribute<double>(volume_dataset, "centers");
            const double first = std::stod(argv[3]), step = std::stod(argv[4]), tol = std::stod(argv[5]);
            int bad = centers.empty() ? 1 : 0;
            for (std::size_t s = 0; s < centers.size(); ++s) {
                const double expected = first + step * double(s);
                std::printf("slice %zu: centre %.3f, expected %.3f\n", s, centers[s], expected);
                if (!(std::abs(centers[s] - expected) <= tol)) bad = 1;
            }
            return bad;
        }
        if (command == "center" && argc == 3) {
            // The rotation centre a volume was reconstructed with (its `center` attribute).
            std::printf("centre %.4f\n", io::File::open(argv[2]).read_attribute<double>(volume_dataset, "center"));
            return 0;
        }
        if (command == "phantom" && (argc == 4 || argc == 5)) {
            // The phantom of tessel-xct --phantom N [--num-slices S] as raw float32, slices x N x N
            // (the truth of bench/xct/fbp_vs_iradon.py and fbp_quality.py).
            const auto image = shepp_logan_volume(std::stoll(argv[2]), argc == 5 ? std::stoll(argv[4]) : 1);
            io::write_bytes_atomically(argv[3], image.data(), image.size() * sizeof(float));
            return 0;
        }
        if (command == "set-attribute" && argc == 6) {
            // Overwrites an integer attribute in place: a corrupt checkpoint for the bad-input tests.
            auto f = io::File::open_for_update(argv[2]);
            f.write_attribute(argv[3], argv[4], static_cast<std::int64_t>(std::stoll(argv[5])));
            return 0;
        }
        if (command == "operator-cache-seed" && argc == 3) return operator_cache_seed(argv[2]);
        if (command == "compare" && argc == 5) return compare(argv[2], argv[3], std::stod(argv[4]));
        if (command == "check-phantom" && argc == 4) return check_phantom(argv[2], std::stod(argv[3]));
        if (command == "check-phantom" && (argc == 5 || argc == 6))
            return check_phantom(argv[2], std::stod(argv[3]), std::stoll(argv[4]), argc == 6 ? argv[5] : "");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tessel-xct-test-tool: %s\n", e.what());
        return 1;
    }
    std::fprintf(stderr, "usage: tessel-xct-test-tool make-dx OUT AXES [defect] | make-rotated OUT [AXIS] | compare A B TOL | operator-cache-seed OUT | check-phantom F DB [S [X.h5]] | "
                 "set-attribute F OBJECT NAME INT\n");
    return 2;
}
