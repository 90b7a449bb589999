// RadiX-Net layers, digit-like images and the official file layout.
#include "apps/spdnn/network/generator.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <random>

#include "core/app/memory_check.hpp"
#include "core/error.hpp"
#include "io/graph_challenge.hpp"

namespace tessel::spdnn {

namespace fs = std::filesystem;

namespace {

constexpr size_type kron_groups = 16;  // the J16 factor

// splitmix64: independent, reproducible streams per (seed, item).
std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

size_type block_size(size_type neurons) {
    const size_type b = neurons / kron_groups;
    if (neurons % kron_groups != 0 || b < 2 || (b & (b - 1)) != 0)
        TESSEL_INVALID_INPUT("--neurons", 0,
                             std::to_string(neurons) +
                                 ": the generator needs N = 16·2^p with p >= 1 (1024, 4096, "
                                 "16384, 65536 for the Challenge)");
    return b;
}

}  // namespace

size_type radix_net_period(size_type neurons) {
    size_type b = block_size(neurons), p = 0;
    while (b > 1) b >>= 1, ++p;
    return p;
}

Layer radix_net_layer(size_type neurons, size_type k, const std::vector<Index>& row_perm) {
    const size_type b = block_size(neurons);
    if (k < 1) TESSEL_INVALID_INPUT("radix-net layer", 0, "layer index must be at least 1");
    if (!row_perm.empty() && static_cast<size_type>(row_perm.size()) != neurons)
        TESSEL_INVALID_INPUT("radix-net layer", 0, "row permutation has the wrong size");
    const size_type s = size_type(1) << ((k - 1) % radix_net_period(neurons));
    const size_type per_row = 2 * kron_groups;
    std::vector<size_type> row_ptr(neurons + 1);
    for (size_type i = 0; i <= neurons; ++i) row_ptr[i] = i * per_row;
    std::vector<Index> col(neurons * per_row);
    std::vector<Value> val(neurons * per_row, generated_weight);
    for (size_type i = 0; i < neurons; ++i) {
        const size_type src = row_perm.empty() ? i : row_perm[i];
        const size_type r = src % b;
        // Columns c with (r - c) mod b in {0, s}: c = r and c = r - s, in every group.
        size_type c0 = r, c1 = (r - s + b) % b;
        if (c1 < c0) std::swap(c0, c1);
        Index* out = col.data() + i * per_row;
        for (size_type g = 0; g < kron_groups; ++g) {
            out[2 * g] = static_cast<Index>(g * b + c0);
            out[2 * g + 1] = static_cast<Index>(g * b + c1);
        }
    }
    return Layer(neurons, neurons, std::move(row_ptr), std::move(col), std::move(val), "radix-net");
}

std::vector<Index> radix_net_permutation(size_type neurons, size_type block, std::uint64_t seed) {
    if (block == 0) return {};
    std::vector<Index> perm(neurons);
    std::iota(perm.begin(), perm.end(), Index{0});
    std::mt19937_64 rng(mix(seed ^ mix(static_cast<std::uint64_t>(block))));
    std::shuffle(perm.begin(), perm.end(), rng);
    return perm;
}

Network generate_network(size_type neurons, size_type layers, Value bias, std::uint64_t seed) {
    if (layers < 1) TESSEL_INVALID_INPUT("--layers", 0, "must be positive");
    // Sizes before allocating: neuron indices within Index, the whole network within memory.
    app::require_index_range<Index>("--neurons", 0, "the neuron count", double(neurons));
    const double per_layer = double(neurons) * (2.0 * kron_groups * (sizeof(Index) + sizeof(Value)) + 8.0);
    app::require_memory("--neurons " + std::to_string(neurons), "the network of " + std::to_string(layers) + " layers",
                        per_layer * double(layers));
    const size_type period = radix_net_period(neurons);
    Network net;
    net.neurons = neurons;
    net.bias = bias;
    net.layers.resize(layers);
    const size_type blocks = (layers + period - 1) / period;
    std::vector<std::vector<Index>> perms(blocks);
    for (size_type blk = 1; blk < blocks; ++blk) perms[blk] = radix_net_permutation(neurons, blk, seed);
#pragma omp parallel for schedule(dynamic, 1)
    for (size_type k = 0; k < layers; ++k)
        net.layers[k] = radix_net_layer(neurons, k + 1, perms[k / period]);
    return net;
}

namespace {

struct Point {
    double x, y;
};

// One pen stroke as a polyline in MNIST's 28 x 28 frame.
std::vector<Point> random_stroke(std::mt19937_64& rng, double scale) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<Point> pts;
    const double cx = 14 + 4 * (u(rng) - 0.5), cy = 14 + 4 * (u(rng) - 0.5);
    const double kind = u(rng);
    if (kind < 0.45) {
        // An arc or a closed loop (0, 6, 8, 9, the bowls of 2, 3, 5).
        const double rx = scale * (3 + 5 * u(rng)), ry = scale * (3 + 6 * u(rng));
        const double start = 2 * M_PI * u(rng);
        const double sweep = (u(rng) < 0.5 ? 2 * M_PI : M_PI * (0.6 + 1.2 * u(rng)));
        const double tilt = 0.5 * (u(rng) - 0.5);
        for (int t = 0; t <= 64; ++t) {
            const double a = start + sweep * t / 64.0;
            const double x = rx * std::cos(a), y = ry * std::sin(a);
            pts.push_back({cx + x * std::cos(tilt) - y * std::sin(tilt),
                           cy + x * std::sin(tilt) + y * std::cos(tilt)});
        }
    } else if (kind < 0.8) {
        // A straight or slightly bent bar (1, 4, 7).
        const double len = scale * (8 + 10 * u(rng)), ang = M_PI * (0.3 + 0.4 * u(rng)) + (u(rng) < 0.3 ? M_PI / 2 : 0);
        const double bend = 2 * (u(rng) - 0.5);
        for (int t = 0; t <= 32; ++t) {
            const double s = (t / 32.0 - 0.5) * len;
            const double off = bend * (1 - 4 * (t / 32.0 - 0.5) * (t / 32.0 - 0.5));
            pts.push_back({cx + s * std::cos(ang) - off * std::sin(ang),
                           cy + s * std::sin(ang) + off * std::cos(ang)});
        }
    } else {
        // A hook: a quarter arc continued by a line (2, 5, 7 strokes).
        const double r = scale * (3 + 3 * u(rng)), a0 = 2 * M_PI * u(rng);
        for (int t = 0; t <= 24; ++t) {
            const double a = a0 + 0.5 * M_PI * t / 24.0;
            pts.push_back({cx + r * std::cos(a), cy + r * std::sin(a)});
        }
        const Point end = pts.back();
        const double ang = a0 + M_PI, len = scale * (6 + 6 * u(rng));
        for (int t = 1; t <= 16; ++t)
            pts.push_back({end.x + len * t / 16.0 * std::cos(ang), end.y + len * t / 16.0 * std::sin(ang)});
    }
    for (auto& p : pts) {  // keep the digit inside MNIST's 20 x 20 box
        p.x = std::clamp(p.x, 4.0, 24.0);
        p.y = std::clamp(p.y, 4.0, 24.0);
    }
    return pts;
}

double distance_to_segment(const Point& a, const Point& b, double x, double y) {
    const double dx = b.x - a.x, dy = b.y - a.y, len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? ((x - a.x) * dx + (y - a.y) * dy) / len2 : 0.0;
    t = std::clamp(t, 0.0, 1.0);
    const double ex = a.x + t * dx - x, ey = a.y + t * dy - y;
    return std::sqrt(ex * ex + ey * ey);
}

// Sets the pixels of an h x w picture (frame 28 x 28) within `pen` of a stroke segment.
void draw(const std::vector<Point>& line, double pen, size_type h, size_type w, std::vector<char>& on) {
    const double sx = double(w) / 28.0, sy = double(h) / 28.0;
    for (std::size_t i = 0; i + 1 < line.size(); ++i) {
        const Point& a = line[i];
        const Point& b = line[i + 1];
        const auto x0 = std::max<size_type>(0, size_type(std::floor((std::min(a.x, b.x) - pen) * sx - 0.5)));
        const auto x1 = std::min<size_type>(w - 1, size_type(std::ceil((std::max(a.x, b.x) + pen) * sx - 0.5)));
        const auto y0 = std::max<size_type>(0, size_type(std::floor((std::min(a.y, b.y) - pen) * sy - 0.5)));
        const auto y1 = std::min<size_type>(h - 1, size_type(std::ceil((std::max(a.y, b.y) + pen) * sy - 0.5)));
        for (size_type x = x0; x <= x1; ++x)
            for (size_type y = y0; y <= y1; ++y)
                if (!on[x * h + y] && distance_to_segment(a, b, (x + 0.5) / sx, (y + 0.5) / sy) <= pen)
                    on[x * h + y] = 1;
    }
}

}  // namespace

Images generate_images(size_type neurons, size_type count, std::uint64_t seed, const ImageStyle& style) {
    if (neurons < 4) TESSEL_INVALID_INPUT("--neurons", 0, "at least 4 neurons for images");
    if (count < 1) TESSEL_INVALID_INPUT("--images", 0, "must be positive");
    size_type h = 1;
    while ((h * 2) * (h * 2) <= neurons) h *= 2;
    if (neurons % h != 0) h = 1;
    const size_type w = neurons / h;  // columns of the picture
    std::vector<std::vector<Index>> cols(count);
#pragma omp parallel for schedule(dynamic, 64)
    for (size_type img = 0; img < count; ++img) {
        std::mt19937_64 rng(mix(seed * 0x100000001b3ULL ^ mix(static_cast<std::uint64_t>(img))));
        std::uniform_real_distribution<double> u(0.0, 1.0);
        const int strokes = 1 + static_cast<int>(style.extra_strokes * u(rng) * u(rng) + 0.5);
        std::vector<std::vector<Point>> lines;
        for (int s = 0; s < strokes; ++s) lines.push_back(random_stroke(rng, style.scale));
        const double pen = style.pen_min + style.pen_spread * u(rng);  // pen radius in MNIST pixels
        auto& out = cols[img];
        // Column-major flattening: pixel (row y, column x) is feature x·h + y.
        std::vector<char> on(static_cast<std::size_t>(neurons), 0);
        for (const auto& line : lines) draw(line, pen, h, w, on);
        for (size_type f = 0; f < neurons; ++f)
            if (on[f]) out.push_back(static_cast<Index>(f));
        if (out.empty()) out.push_back(static_cast<Index>((w / 2) * h + h / 2));
    }
    std::vector<size_type> row_ptr(count + 1, 0);
    for (size_type i = 0; i < count; ++i) row_ptr[i + 1] = row_ptr[i] + static_cast<size_type>(cols[i].size());
    std::vector<Index> col(row_ptr.back());
    for (size_type i = 0; i < count; ++i) std::copy(cols[i].begin(), cols[i].end(), col.begin() + row_ptr[i]);
    std::vector<Value> val(row_ptr.back(), Value(1));
    return Images(count, neurons, std::move(row_ptr), std::move(col), std::move(val), "generated images");
}

ProblemFiles write_problem(const std::string& out_dir, const Network& network,
                           const Images& images, const std::vector<std::int64_t>* categories) {
    const std::string n = std::to_string(network.neurons);
    ProblemFiles files;
    files.layer_dir = (fs::path(out_dir) / ("neuron" + n)).string();
    std::error_code ec;
    fs::create_directories(files.layer_dir, ec);
    if (ec) TESSEL_INVALID_INPUT(files.layer_dir, 0, "cannot create directory: " + ec.message());
    const size_type layers = network.layer_count();
    std::vector<std::string> errors(layers);
#pragma omp parallel for schedule(dynamic, 1)
    for (size_type k = 0; k < layers; ++k) {
        try {
            io::write_layer_tsv(layer_file_name(files.layer_dir, network.neurons, k + 1),
                                network.layers[k]);
        } catch (const std::exception& e) {
            errors[k] = e.what();
        }
    }
    for (const auto& e : errors)
        if (!e.empty()) TESSEL_INVALID_INPUT(files.layer_dir, 0, e);
    files.images = (fs::path(out_dir) / ("sparse-images-" + n + ".tsv")).string();
    io::write_images_tsv(files.images, images);
    if (categories) {
        files.categories = (fs::path(out_dir) / ("neuron" + n + "-l" + std::to_string(layers) +
                                                 "-categories.tsv"))
                               .string();
        io::write_categories(files.categories, *categories);
    }
    return files;
}

}  // namespace tessel::spdnn
