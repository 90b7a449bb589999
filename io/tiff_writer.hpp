// 32-bit float TIFF images (one per slice, the recon_00042.tiff stacks that dxchange's
// write_tiff_stack writes and Fiji/ImageJ open as an image sequence), written with libtiff
// under a temporary name and renamed.
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"

namespace tessel::io {

/// Writes a rows x cols row-major float image as one strip-organised, uncompressed,
/// single-sample IEEE float TIFF (SampleFormat 3, 32 bits). Throws InvalidInput "file: cannot
/// write TIFF: ..." when libtiff fails, DimensionMismatch for an empty image.
void write_tiff(const std::string& path, const float* image, size_type rows, size_type cols);

/// A float TIFF read back (any strip layout libtiff handles; 32-bit float, one sample).
struct TiffImage {
    size_type rows = 0, cols = 0;
    std::vector<float> values;
};
/// Throws InvalidInput "file: cannot open TIFF" / "...: not a single-sample 32-bit float TIFF".
TiffImage read_tiff(const std::string& path);

/// dir/recon_<absolute slice, 5 digits>.tiff for each of `slices` n x n images of `volume`,
/// creating dir. Returns the paths. Throws InvalidInput.
std::vector<std::string> write_tiff_stack(const std::string& dir, const std::vector<float>& volume, size_type slices,
                                          size_type n, size_type first_slice);

}  // namespace tessel::io
