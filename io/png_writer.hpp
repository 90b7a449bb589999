// PNG previews of 2-D float images (8-bit, grayscale or a colour map), written atomically.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/dense.hpp"
#include "core/types.hpp"

namespace tessel::io {

/// How values become colours: gray (black..white) or viridis (dark purple..yellow).
enum class Colormap { gray, viridis };

/// "gray" (or "grey") and "viridis". Throws InvalidInput "colormap: unknown colour map 'x',
/// expected gray or viridis".
Colormap parse_colormap(std::string_view name);

struct PngOptions {
    Colormap colormap = Colormap::gray;
    /// Values mapped to the ends of the colour map (clamped outside); default: the minimum and
    /// maximum finite pixel (a constant image comes out at the low end).
    std::optional<std::pair<double, double>> range;
};

/// Writes `image` (row i of the view is the image's row i, top to bottom) as an 8-bit PNG:
/// level = round(255·(v - low)/(high - low)) clamped to 0..255, NaN pixels black.
/// Written under a temporary name, then renamed. Throws DimensionMismatch for an empty image,
/// InvalidInput "file: ..." for an empty range or when the file cannot be written.
void write_png(const std::string& path, DenseView<const float> image, const PngOptions& options = {});

/// write_png for a contiguous row-major rows x cols image.
void write_png(const std::string& path, const float* image, size_type rows, size_type cols,
               const PngOptions& options = {});

}  // namespace tessel::io
