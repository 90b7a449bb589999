// APS Data Exchange files written from sinograms (docs/xct.md, "Input file formats"), the
// inverse of io::read_sinograms up to the rounding of the counts: projections
// dark + (white - dark)·e^-p of the line integrals p, constant flat and dark fields, angles in
// degrees. For --save-exchange, and the pieces for the tests' files (which add defects between
// them).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "apps/xct/geometry/geometry.hpp"
#include "core/types.hpp"
#include "io/data_exchange.hpp"
#include "io/hdf5_file.hpp"

namespace tessel::xct {

/// How projections are stored.
struct ExchangeWriteOptions {
    float white = 60000.0f;  // counts of the flat fields (no object in the beam)
    float dark = 100.0f;     // counts of the dark fields (no beam)
    size_type num_white = 4;
    size_type num_dark = 4;
    io::ProjectionAxes axes = io::ProjectionAxes::theta_y_x;
    bool axes_attribute = true;  // write the `axes` attribute of /exchange/data (else the order is implied)
    bool uint16 = true;          // uint16 counts (rounded, clamped to [0, 65535]) or float32
};

/// dark + (white - dark)·e^-p, the detector counts behind a line integral p.
double transmitted_counts(double p, const ExchangeWriteOptions& options);

/// In place: every line integral p becomes transmitted_counts(p); with options.uint16 rounded
/// to the nearest integer and clamped to [0, 65535]. Returns how many values were clamped
/// (NaN counts as clamped and becomes 0).
size_type line_integrals_to_counts(std::span<float> values, const ExchangeWriteOptions& options);

/// Writes /exchange/data from counts laid out (rows, num_theta, cols), transposed to
/// options.axes (theta:y:x: num_theta x rows x cols), as uint16 or float32, with the `axes`
/// attribute. Throws DimensionMismatch (sizes), Hdf5Error.
void write_exchange_data(io::File& file, std::span<const float> counts, const io::ProjectionShape& shape,
                         const ExchangeWriteOptions& options);
/// /exchange/data_white: options.num_white frames of rows x cols at options.white, theta:y:x,
/// in the type of the data. Throws Hdf5Error.
void write_exchange_white(io::File& file, size_type rows, size_type cols, const ExchangeWriteOptions& options);
/// /exchange/data_dark: options.num_dark frames at options.dark. Throws Hdf5Error.
void write_exchange_dark(io::File& file, size_type rows, size_type cols, const ExchangeWriteOptions& options);
/// /exchange/theta: angles in degrees, float32. Throws Hdf5Error.
void write_exchange_theta(io::File& file, std::span<const float> degrees);

/// Provenance written as attributes of /exchange/data by save_exchange.
struct ExchangeProvenance {
    std::string source;        // the input, e.g. "3-D Shepp-Logan phantom 64 x 64 x 4, 96 angles"
    size_type first_slice = 0; // the input's slice that is detector row 0
    std::string command_line;
    std::string version;
};

/// The scale that --save-exchange applies to the phantom's line integrals: 2/max(p) (the most
/// attenuating ray transmits e^-2, as with --noise), 1 when no p is positive.
double phantom_line_integral_scale(std::span<const float> sinograms);

/// Writes a whole Data Exchange file under a temporary name renamed into place at the end:
/// /exchange/data (rows = slices, theta:y:x, uint16 by default) from `sinograms` (slices x
/// num_theta x num_rho line integrals, MemXCT layout, centre at num_rho/2) multiplied by
/// `scale`, flat and dark fields, /exchange/theta = geometry.theta in degrees; attributes of
/// /exchange/data: axes, line_integral_scale, first_slice, source, command_line, version.
/// `sinograms` is consumed (turned into counts in place). Returns the number of counts clamped
/// to uint16 (the caller warns when not 0). Throws DimensionMismatch, InvalidInput, Hdf5Error.
size_type save_exchange(const std::string& path, std::vector<float> sinograms, size_type slices,
                        const Geometry& geometry, double scale, const ExchangeProvenance& provenance,
                        const ExchangeWriteOptions& options = {});

}  // namespace tessel::xct
