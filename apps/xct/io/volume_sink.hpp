// Where rank 0 puts each round's finished slices as the round ends, so that it never holds
// the whole volume: the HDF5 volume (under its temporary name until the end), one TIFF per
// slice, the PNG previews of the chosen slices, the PSNR of phantom slices, the store of
// finished slices of a checkpointed run (which is the volume's partial file when there is an
// --output), and the volume in memory only when the caller asks for it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/xct/io/finished_slices.hpp"
#include "apps/xct/io/output.hpp"

namespace tessel::xct {

struct VolumeSinkSetup {
    std::string output, tiff_dir, png_dir;
    std::vector<size_type> png_slices;  // absolute slice numbers; empty: the middle slice
    io::Colormap colormap = io::Colormap::gray;
    size_type slices = 0, n = 0, first_slice = 0;
    bool keep_volume = false;
    // A checkpointed run's store of finished slices (path and dataset; empty: none). When
    // output_in_store, it is the volume itself (OUTPUT.partial), renamed onto `output` at the end.
    SliceStore store;
    bool output_in_store = false;
    std::function<std::vector<float>(size_type slice)> phantom;  // truth of slice s, or empty
};

class VolumeSink {
public:
    /// Creates the volume's temporary file unless the store holds it. Throws InvalidInput
    /// "png-slices: slice 9 is not reconstructed", Hdf5Error.
    explicit VolumeSink(VolumeSinkSetup setup);
    /// Before the first round. A fresh run (`needed` 0 or no `recorded` store) creates a new
    /// store. A resumed run opens the store its checkpoint recorded (FinishedSlices::open's
    /// errors), which must hold slices [0, needed): when it is this run's store it is continued
    /// in place, else its slices are copied into this run's outputs and store one at a time;
    /// either way they go through the TIFF, PNG and PSNR outputs again.
    void start(size_type needed, const SliceStore* recorded);
    /// Where the finished slices are kept (for the checkpoint); empty without a store.
    SliceStore store() const { return store_ ? store_->where() : SliceStore{}; }
    /// Slices [first, first + count) (n x n each) to every output and the store.
    void add(size_type first, size_type count, const float* images);
    /// The volume's attributes and histories, and its rename into place.
    void finish(const VolumeAttributes& attributes, const std::vector<std::vector<double>>& histories);

    const std::vector<double>& psnr() const { return psnr_; }
    std::vector<float> take_volume() { return std::move(volume_); }

private:
    void write_outputs(size_type first, size_type count, const float* images);
    void create_store();
    VolumeSinkSetup s_;
    std::optional<VolumeFile> file_;
    std::optional<FinishedSlices> store_;
    std::vector<size_type> previews_;  // chosen slices, relative to the first
    std::vector<double> psnr_;
    std::vector<float> volume_;
};

}  // namespace tessel::xct
