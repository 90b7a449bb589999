// HDF5 checkpoints: attributes for the counters, datasets for volumes, states and histories.
#include "apps/xct/io/checkpoint.hpp"

#include <cmath>

#include "apps/xct/io/output.hpp"
#include "core/error.hpp"
#include "io/hdf5_file.hpp"

namespace tessel::xct {

namespace {

constexpr const char* root = "/checkpoint";

void write_histories(io::File& f, const std::string& name, const std::vector<std::vector<double>>& histories) {
    std::vector<double> values;
    std::vector<std::int64_t> lengths;
    for (const auto& h : histories) {
        values.insert(values.end(), h.begin(), h.end());
        lengths.push_back(static_cast<std::int64_t>(h.size()));
    }
    f.write(name + "_values", {static_cast<size_type>(values.size())}, values.data());
    f.write(name + "_lengths", {static_cast<size_type>(lengths.size())}, lengths.data());
}

std::vector<std::vector<double>> read_histories(const io::File& f, const std::string& name) {
    const auto values = f.read<double>(name + "_values");
    const auto lengths = f.read<std::int64_t>(name + "_lengths");
    std::vector<std::vector<double>> histories;
    std::size_t at = 0;
    for (auto length : lengths) {
        if (length < 0 || at + static_cast<std::size_t>(length) > values.size())
            TESSEL_INVALID_INPUT(f.path() + ":" + name + "_lengths", 0, "lengths exceed the stored values");
        histories.emplace_back(values.begin() + at, values.begin() + at + length);
        at += static_cast<std::size_t>(length);
    }
    return histories;
}

template <typename T>
void write_vector(io::File& f, const std::string& name, const std::vector<T>& v) {
    f.write(name, {static_cast<size_type>(v.size())}, v.data());
}

}  // namespace

template <typename V>
void write_checkpoint(const std::string& path, const Checkpoint<V>& c, size_type pixels, size_type rays) {
    auto f = io::File::create(path);
    const std::string g = root;
    write_histories(f, g + "/done_history", c.done_histories);
    write_vector(f, g + "/done_bnorm", c.done_bnorms);
    const size_type width = c.round_width;
    f.write(g + "/x", {width, pixels}, c.x.data());
    f.write(g + "/r", {width, rays}, c.r.data());
    if (!c.p.empty()) f.write(g + "/p", {width, pixels}, c.p.data());
    write_vector(f, g + "/gamma", c.gamma);
    write_vector(f, g + "/bnorm", c.bnorm);
    write_vector(f, g + "/active", c.active);
    write_histories(f, g + "/history", c.history);
    f.write_attribute(g, "fingerprint", c.fingerprint.dump());
    f.write_attribute(g, "round", static_cast<std::int64_t>(c.round));
    f.write_attribute(g, "iteration", static_cast<std::int64_t>(c.iteration));
    f.write_attribute(g, "round_width", static_cast<std::int64_t>(c.round_width));
    f.write_attribute(g, "total_iterations", static_cast<std::int64_t>(c.total_iterations));
    // The store next to the checkpoint is found from the checkpoint's own path (the two move
    // together); a partial --output file by its path.
    const bool own_store = c.slices.dataset == FinishedSlices::own_dataset;
    f.write_attribute(g, "slices_file", own_store ? std::string() : c.slices.path);
    f.write_attribute(g, "slices_run", c.slices.run);
    f.write_attribute(g, "precision", sizeof(V) == 8 ? "double" : "single");
    f.commit();
}

template <typename V>
Checkpoint<V> read_checkpoint(const std::string& path) {
    const auto f = io::File::open(path);
    const std::string g = root;
    if (!f.exists(g)) TESSEL_INVALID_INPUT(path, 0, "not a tessel-xct checkpoint (no " + g + ")");
    const std::string precision = f.read_string_attribute(g, "precision");
    const std::string mine = sizeof(V) == 8 ? "double" : "single";
    if (precision != mine)
        TESSEL_INVALID_INPUT(path, 0, "written with " + precision + " precision, this run uses " + mine);
    Checkpoint<V> c;
    try {
        c.fingerprint = nlohmann::json::parse(f.read_string_attribute(g, "fingerprint"));
    } catch (const nlohmann::json::exception& e) {
        TESSEL_INVALID_INPUT(path, 0, std::string("the fingerprint attribute is not JSON (") + e.what() + ")");
    }
    c.round = f.read_attribute<std::int64_t>(g, "round");
    c.iteration = static_cast<int>(f.read_attribute<std::int64_t>(g, "iteration"));
    c.round_width = f.read_attribute<std::int64_t>(g, "round_width");
    c.total_iterations = static_cast<int>(f.read_attribute<std::int64_t>(g, "total_iterations"));
    c.done_histories = read_histories(f, g + "/done_history");
    c.slices.path = f.read_string_attribute(g, "slices_file");
    c.slices.dataset = c.slices.path.empty() ? FinishedSlices::own_dataset : volume_dataset;
    c.slices.run = f.read_attribute<std::int64_t>(g, "slices_run");
    c.done_bnorms = f.read<double>(g + "/done_bnorm");
    c.x = f.read<V>(g + "/x");
    c.r = f.read<V>(g + "/r");
    if (f.exists(g + "/p")) c.p = f.read<V>(g + "/p");
    c.gamma = f.read<double>(g + "/gamma");
    c.bnorm = f.read<double>(g + "/bnorm");
    c.active = f.read<std::uint8_t>(g + "/active");
    c.history = read_histories(f, g + "/history");
    return c;
}

namespace {

void expect_size(const std::string& path, const char* name, std::size_t size, double expected, const char* per) {
    if (double(size) != expected)
        TESSEL_INVALID_INPUT(path, 0, std::string(name) + " has " + std::to_string(size) + " values, expected " +
                                          std::to_string(static_cast<long long>(expected)) + " (" + per + ")");
}

template <typename T>
void expect_finite(const std::string& path, const char* name, const std::vector<T>& values) {
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(double(values[i])))
            TESSEL_INVALID_INPUT(path, 0, std::string(name) + " holds a non-finite value (" +
                                              std::to_string(double(values[i])) + ") at element " + std::to_string(i));
}

}  // namespace

template <typename V>
void validate_checkpoint(const std::string& path, const Checkpoint<V>& c, size_type pixels, size_type rays,
                         size_type slices, int iterations) {
    const double width = double(c.round_width), round = double(c.round);
    // round_width sizes everything below: a corrupt one is named, not blamed on the round or on
    // gamma. Absurd means other than the column count the per-column datasets agree on.
    const std::size_t columns = c.gamma.size();
    const bool columns_agree =
        c.bnorm.size() == columns && c.active.size() == columns && c.history.size() == columns;
    if (c.round_width < 1 || (columns_agree && width != double(columns))) {
        const std::string why = c.round_width < 1 ? "a round holds at least 1 slice"
                                                  : "the per-column datasets gamma, bnorm, active and history hold " +
                                                        std::to_string(columns) + " values each";
        TESSEL_INVALID_INPUT(path, 0,
                             "the round_width attribute is corrupt: " + std::to_string(c.round_width) + " (" + why + ")");
    }
    if (!(width >= 1) || !(round >= 0) || !(round * width < double(slices)))
        TESSEL_INVALID_INPUT(path, 0, "round " + std::to_string(c.round) + " of " + std::to_string(c.round_width) +
                                          " slices does not start inside the " + std::to_string(slices) +
                                          " slices of this run");
    if (c.iteration < 0 || c.iteration > iterations)
        TESSEL_INVALID_INPUT(path, 0, "the round is at iteration " + std::to_string(c.iteration) +
                                          ", outside 0.." + std::to_string(iterations) + " (--iterations)");
    if (c.total_iterations < 0) TESSEL_INVALID_INPUT(path, 0, "total_iterations is negative");
    const char* column = "one per column of the round";
    expect_size(path, "gamma", c.gamma.size(), width, column);
    expect_size(path, "bnorm", c.bnorm.size(), width, column);
    expect_size(path, "active", c.active.size(), width, column);
    expect_size(path, "history", c.history.size(), width, column);
    expect_size(path, "x", c.x.size(), width * double(pixels), "pixels per column of the round");
    expect_size(path, "r", c.r.size(), width * double(rays), "rays per column of the round");
    if (!c.p.empty()) expect_size(path, "p", c.p.size(), width * double(pixels), "pixels per column of the round");
    const double done = round * width;
    expect_size(path, "done_bnorm", c.done_bnorms.size(), done, "one per slice of the rounds before");
    expect_size(path, "done_history", c.done_histories.size(), done, "one per slice of the rounds before");
    expect_finite(path, "x", c.x);
    expect_finite(path, "r", c.r);
    expect_finite(path, "p", c.p);
    expect_finite(path, "gamma", c.gamma);
    expect_finite(path, "bnorm", c.bnorm);
    expect_finite(path, "done_bnorm", c.done_bnorms);
}

void check_fingerprint(const std::string& path, const nlohmann::json& stored, const nlohmann::json& current) {
    for (const auto& [key, value] : current.items()) {
        const bool there = stored.contains(key);
        if (!there || stored.at(key) != value) {
            auto show = [](const nlohmann::json& v) {
                std::string s = v.is_string() ? v.get<std::string>() : v.dump();
                return s.size() > 60 ? s.substr(0, 57) + "..." : s;
            };
            TESSEL_INVALID_INPUT(path, 0, "written for another reconstruction (" + key + ": " +
                                              (there ? show(stored.at(key)) : std::string("missing")) + " there, " +
                                              show(value) + " here)");
        }
    }
}

template void write_checkpoint(const std::string&, const Checkpoint<float>&, size_type, size_type);
template void write_checkpoint(const std::string&, const Checkpoint<double>&, size_type, size_type);
template void validate_checkpoint(const std::string&, const Checkpoint<float>&, size_type, size_type, size_type, int);
template void validate_checkpoint(const std::string&, const Checkpoint<double>&, size_type, size_type, size_type, int);
template Checkpoint<float> read_checkpoint(const std::string&);
template Checkpoint<double> read_checkpoint(const std::string&);

}  // namespace tessel::xct
