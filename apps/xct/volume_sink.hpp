// Where rank 0 puts each round's finished slices as the round ends, so that it never holds
// the whole volume: the HDF5 volume (under its temporary name until the end), one TIFF per
// slice, the PNG previews of the chosen slices, the PSNR of phantom slices, the checkpoint's
// store of finished slices, and the volume in memory only when the caller asks for it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/xct/finished_slices.hpp"
#include "apps/xct/output.hpp"

namespace tessel::xct {

struct VolumeSinkSetup {
    std::string output, tiff_dir, png_dir;
    std::vector<size_type> png_slices;  // absolute slice numbers; empty: the middle slice
    io::Colormap colormap = io::Colormap::gray;
    size_type slices = 0, n = 0, first_slice = 0;
    bool keep_volume = false;
    std::string store;  // the checkpoint's store of finished slices; empty: none
    std::function<std::vector<float>(size_type slice)> phantom;  // truth of slice s, or empty
};

class VolumeSink {
public:
    /// Creates the volume's temporary file and a new store (a fresh run). Throws InvalidInput
    /// "png-slices: slice 9 is not reconstructed", Hdf5Error.
    explicit VolumeSink(VolumeSinkSetup setup);
    /// A resumed run: slices [0, needed) come back from the store (FinishedSlices::open's
    /// errors) and go through every output again.
    void resume(size_type needed);
    /// Slices [first, first + count) (n x n each) to every output and the store.
    void add(size_type first, size_type count, const float* images);
    /// The volume's attributes and histories, and its rename into place.
    void finish(const VolumeAttributes& attributes, const std::vector<std::vector<double>>& histories);

    const std::vector<double>& psnr() const { return psnr_; }
    std::vector<float> take_volume() { return std::move(volume_); }

private:
    void write_outputs(size_type first, size_type count, const float* images);
    VolumeSinkSetup s_;
    std::optional<VolumeFile> file_;
    std::optional<FinishedSlices> store_;
    std::vector<size_type> previews_;  // chosen slices, relative to the first
    std::vector<double> psnr_;
    std::vector<float> volume_;
};

}  // namespace tessel::xct
