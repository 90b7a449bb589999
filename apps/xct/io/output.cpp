// HDF5 volume and PNG previews.
#include "apps/xct/io/output.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "core/error.hpp"
#include "io/hdf5_file.hpp"

namespace tessel::xct {

VolumeFile::VolumeFile(const std::string& path, size_type slices, size_type n)
    : file_(io::File::create(path)), slices_(slices), n_(n) {
    io::DatasetOptions chunked;
    chunked.chunk = {1, n, n};
    file_.create_dataset<float>(volume_dataset, {slices, n, n}, slices > 0 && n > 0 ? chunked : io::DatasetOptions{});
}

void VolumeFile::write_slices(size_type first, size_type count, const float* images) {
    TESSEL_ENSURE_DIMS(first >= 0 && count >= 0 && first + count <= slices_,
                       "volume file: slices [" + std::to_string(first) + ", " + std::to_string(first + count) +
                           ") outside the " + std::to_string(slices_) + " slices");
    if (count == 0 || n_ == 0) return;
    io::Hyperslab slab;
    slab.offset = {first, 0, 0};
    slab.count = {count, n_, n_};
    file_.write_slab(volume_dataset, slab, images);
}

void VolumeFile::finish(const VolumeAttributes& a, const std::vector<std::vector<double>>& histories) {
    write_volume_metadata(file_, slices_, a, histories);
    file_.commit();
}

void finish_partial_volume(io::File file, const std::string& path, size_type slices, const VolumeAttributes& a,
                           const std::vector<std::vector<double>>& histories) {
    write_volume_metadata(file, slices, a, histories);
    file.flush();
    const std::string partial = file.path();
    { io::File closed = std::move(file); }
    std::error_code ec;
    std::filesystem::rename(partial, path, ec);
    if (ec) TESSEL_INVALID_INPUT(path, 0, "cannot rename " + partial + " into place: " + ec.message());
}

void write_volume_metadata(io::File& f, size_type slices, const VolumeAttributes& a,
                           const std::vector<std::vector<double>>& histories) {
    f.write_attribute(volume_dataset, "algorithm", a.algorithm);
    f.write_attribute(volume_dataset, "iterations", a.iterations);
    f.write_attribute(volume_dataset, "residuals", a.residuals);
    f.write_attribute(volume_dataset, "center", a.center);
    if (!a.centers.empty()) f.write_attribute(volume_dataset, "centers", a.centers);
    f.write_attribute(volume_dataset, "command_line", a.command_line);
    f.write_attribute(volume_dataset, "version", a.version);
    f.write_attribute(volume_dataset, "first_slice", a.first_slice);
    f.write_attribute(volume_dataset, "axes", "z:y:x");
    f.write_attribute(volume_dataset, "parameters", a.extra.dump());
    std::size_t length = 0;
    for (const auto& h : histories) length = std::max(length, h.size());
    std::vector<double> padded(histories.size() * length, 0.0);
    for (std::size_t s = 0; s < histories.size(); ++s)
        for (std::size_t i = 0; i < length; ++i)
            padded[s * length + i] = histories[s].empty() ? 0.0 : histories[s][std::min(i, histories[s].size() - 1)];
    f.write("/exchange/residuals", {static_cast<size_type>(histories.size()), static_cast<size_type>(length)},
            padded.data());
    std::vector<std::int64_t> ids(static_cast<std::size_t>(slices));
    for (size_type s = 0; s < slices; ++s) ids[s] = a.first_slice + s;
    f.write("/exchange/slices", {slices}, ids.data());
}

void write_volume(const std::string& path, const std::vector<float>& volume, size_type slices, size_type n,
                  const VolumeAttributes& a, const std::vector<std::vector<double>>& histories) {
    TESSEL_ENSURE_DIMS(static_cast<size_type>(volume.size()) == slices * n * n,
                       "write_volume: " + std::to_string(volume.size()) + " values for " + std::to_string(slices) +
                           " slices of " + std::to_string(n) + " x " + std::to_string(n));
    VolumeFile file(path, slices, n);
    file.write_slices(0, slices, volume.data());
    file.finish(a, histories);
}

std::vector<std::string> write_previews(const std::string& dir, const std::vector<float>& volume, size_type n,
                                        const std::vector<size_type>& chosen, size_type first_slice,
                                        io::Colormap colormap) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) TESSEL_INVALID_INPUT(dir, 0, "cannot create the preview folder: " + ec.message());
    const size_type slices = n > 0 ? static_cast<size_type>(volume.size()) / (n * n) : 0;
    std::vector<std::string> paths;
    for (size_type s : chosen) {
        if (s < 0 || s >= slices)
            TESSEL_INVALID_INPUT("png-slices", 0, "slice " + std::to_string(first_slice + s) + " is not reconstructed");
        char name[64];
        std::snprintf(name, sizeof(name), "slice_%05lld.png", static_cast<long long>(first_slice + s));
        const std::string path = (std::filesystem::path(dir) / name).string();
        io::PngOptions options;
        options.colormap = colormap;
        io::write_png(path, volume.data() + s * n * n, n, n, options);
        paths.push_back(path);
    }
    return paths;
}

std::vector<double> combined_residuals(const std::vector<std::vector<double>>& histories,
                                       const std::vector<double>& bnorms) {
    std::size_t length = 0;
    for (const auto& h : histories) length = std::max(length, h.size());
    std::vector<double> out(length, 0.0);
    double total = 0;
    for (std::size_t s = 0; s < histories.size(); ++s) total += bnorms[s] * bnorms[s];
    for (std::size_t i = 0; i < length; ++i) {
        double sum = 0;
        for (std::size_t s = 0; s < histories.size(); ++s) {
            if (histories[s].empty()) continue;
            const double h = histories[s][std::min(i, histories[s].size() - 1)];
            sum += h * h * bnorms[s] * bnorms[s];
        }
        out[i] = total > 0 ? std::sqrt(sum / total) : 0.0;
    }
    return out;
}

}  // namespace tessel::xct
