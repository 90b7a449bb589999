// What a reconstruction writes: the HDF5 volume with its attributes and PNG previews.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/types.hpp"
#include "io/hdf5_file.hpp"
#include "io/png_writer.hpp"

namespace tessel::xct {

/// Attributes of the volume dataset.
struct VolumeAttributes {
    std::string algorithm;
    std::int64_t iterations = 0;  // the most iterations any slice ran
    std::vector<double> residuals;  // ‖b - A·x‖/‖b‖ over all slices together, per iteration
    double center = 0;
    std::vector<double> centers;  // per slice (--center auto without --center-slice); empty: none
    std::string command_line;
    std::string version;
    std::int64_t first_slice = 0;
    nlohmann::json extra;  // written as the JSON string attribute "parameters"
};

/// Path of the reconstruction inside the volume file.
inline constexpr const char* volume_dataset = "/exchange/recon";

/// The volume file written round by round: /exchange/recon created whole (chunked per slice,
/// under a temporary name), slices written as their round finishes, the attributes and the
/// other datasets by finish(), which renames the file into place. Destroyed unfinished, it
/// leaves nothing behind.
class VolumeFile {
public:
    /// Throws InvalidInput (cannot write), Hdf5Error.
    VolumeFile(const std::string& path, size_type slices, size_type n);
    /// Slices [first, first + count), n x n each. Throws DimensionMismatch, Hdf5Error.
    void write_slices(size_type first, size_type count, const float* images);
    void finish(const VolumeAttributes& attributes, const std::vector<std::vector<double>>& histories);

private:
    io::File file_;
    size_type slices_, n_;
};

/// The attributes of /exchange/recon and the datasets /exchange/residuals and /exchange/slices
/// (described at write_volume below). Throws Hdf5Error.
void write_volume_metadata(io::File& file, size_type slices, const VolumeAttributes& attributes,
                           const std::vector<std::vector<double>>& histories);

/// Finishes a volume written in place (a checkpointed run's OUTPUT.partial, whose
/// /exchange/recon holds every slice): its attributes and datasets, then the rename onto
/// `path`. Throws Hdf5Error, InvalidInput "out.h5: cannot rename out.h5.partial into place: ...".
void finish_partial_volume(io::File file, const std::string& path, size_type slices,
                           const VolumeAttributes& attributes, const std::vector<std::vector<double>>& histories);

/// Writes `volume` (slices x n x n float32, slice-major, row iy of an image is y index iy) to
/// /exchange/recon with the attributes above, the per-slice residual histories to
/// /exchange/residuals (slices x length, padded with each slice's last value) and the
/// absolute slice numbers to /exchange/slices, under a temporary name renamed at the end.
/// Throws Hdf5Error, InvalidInput.
void write_volume(const std::string& path, const std::vector<float>& volume, size_type slices, size_type n,
                  const VolumeAttributes& attributes, const std::vector<std::vector<double>>& histories);

/// Writes dir/slice_<absolute>.png for each chosen slice (indices into the volume), creating
/// dir. Returns the paths. Throws InvalidInput.
std::vector<std::string> write_previews(const std::string& dir, const std::vector<float>& volume, size_type n,
                                        const std::vector<size_type>& chosen, size_type first_slice,
                                        io::Colormap colormap = io::Colormap::gray);

/// The aggregate residual history: sqrt(Σ_s h_s[i]²·‖b_s‖²)/sqrt(Σ_s ‖b_s‖²) per iteration i.
std::vector<double> combined_residuals(const std::vector<std::vector<double>>& histories,
                                       const std::vector<double>& bnorms);

}  // namespace tessel::xct
