// APS Data Exchange HDF5 projections (docs/xct.md, "Input file formats") and their preprocessing
// into MemXCT-layout sinograms: normalise by flat and dark fields, -log, centre shift.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/types.hpp"
#include "io/hdf5_file.hpp"

namespace tessel::io {

/// Order of the axes of /exchange/data on disk (its `axes` attribute; theta:y:x by default).
enum class ProjectionAxes { theta_y_x, y_theta_x };

/// Projections: num_theta angles of rows x cols detector images (a detector row is a slice).
struct ProjectionShape {
    size_type num_theta = 0;
    size_type rows = 0;
    size_type cols = 0;
};

/// Units of /exchange/theta: the layout says degrees; `automatic` reads degrees unless the
/// values look like radians (all within [-ε, 2π+ε] and spanning π or 2π), then warns.
enum class ThetaUnits { automatic, degrees, radians };
/// "auto", "degrees" or "radians"; throws InvalidInput "theta-units: ..." otherwise.
ThetaUnits parse_theta_units(std::string_view text);

/// How a file is opened.
struct ExchangeOptions {
    /// The projections are normalised already (transmission I/I0): no flat or dark fields are
    /// read, only -log is applied.
    bool no_flat = false;
    ThetaUnits theta_units = ThetaUnits::automatic;
};

/// An open Data Exchange file whose layout has been checked: /exchange/data (rank 3, any
/// integer or float type HDF5 converts: uint8, uint16, uint32, int16, float32, float64;
/// contiguous or chunked with deflate, shuffle, fletcher32), /exchange/data_white and
/// /exchange/data_dark (rank 3, same rows and cols, at least one frame each; `axes`
/// theta_white:y:x / theta_dark:y:x (or theta:y:x), y first as well, theta:y:x when absent),
/// /exchange/theta when present (rank 1, one angle per projection, any order). A missing dark
/// is zero (with a warning); a missing white is an error unless options.no_flat.
class DataExchange {
public:
    /// Throws InvalidInput "file.h5:/exchange/data: dataset not found", "...: expected rank 3,
    /// found 2", "file.h5:/exchange/theta: 5 angles for 6 projections", "...: unsupported
    /// axes 'x:y:theta'", mismatching flat shapes; Hdf5Error when HDF5 fails.
    explicit DataExchange(const std::string& path, const ExchangeOptions& options = {});

    const std::string& path() const { return file_.path(); }
    const File& file() const { return file_; }
    const ProjectionShape& shape() const { return shape_; }
    ProjectionAxes axes() const { return axes_; }
    size_type num_white() const { return num_white_; }
    size_type num_dark() const { return num_dark_; }
    bool has_theta() const { return has_theta_; }
    bool has_white() const { return num_white_ > 0; }
    bool has_dark() const { return num_dark_ > 0; }
    const ExchangeOptions& options() const { return options_; }
    /// What the caller should tell the user once (missing dark, theta read as radians, ...).
    const std::vector<std::string>& warnings() const { return warnings_; }

    /// Angles in degrees: /exchange/theta (converted when in radians), or num_theta angles
    /// 180·k/num_theta when absent. Throws InvalidInput "file.h5:/exchange/theta: element 3
    /// is not finite", "...: all 6 angles are equal (30 degrees)".
    std::vector<float> theta_degrees() const;
    /// theta_degrees() in radians (for MemXCT raw theta files).
    std::vector<float> theta_radians() const;

    /// Projections of detector rows [first_row, first_row + num_rows) as float, laid out
    /// (num_rows, num_theta, cols) whatever the order on disk. Throws InvalidInput (rows
    /// outside the detector, "file.h5:/exchange/data: value at theta 2, y 1, x 0 is not
    /// finite"), Hdf5Error.
    std::vector<float> read_projections(size_type first_row, size_type num_rows) const;
    /// Flat fields of those rows, laid out (num_rows, num_white, cols). Throws as above.
    std::vector<float> read_white(size_type first_row, size_type num_rows) const;
    /// Dark fields of those rows, laid out (num_rows, num_dark, cols). Throws as above.
    std::vector<float> read_dark(size_type first_row, size_type num_rows) const;

    /// Per (row, column) means of the white and dark frames of those rows (num_rows x cols
    /// each): ones and zeros with no_flat, zero darks when /exchange/data_dark is absent.
    /// Throws InvalidInput "file.h5:/exchange/data_white: white equals dark everywhere in rows
    /// [0, 4) (all-zero flat fields?), cannot normalise" and "...: white is below dark
    /// everywhere in rows [0, 4) (flat and dark fields swapped?), cannot normalise".
    std::pair<std::vector<float>, std::vector<float>> flat_dark_means(size_type first_row, size_type num_rows) const;

private:
    std::vector<float> read_rows(const std::string& dataset, ProjectionAxes axes, size_type frames,
                                 size_type first_row, size_type num_rows) const;

    void check_theta();

    File file_;
    ExchangeOptions options_;
    std::vector<std::string> warnings_;
    bool theta_in_radians_ = false;
    ProjectionShape shape_;
    ProjectionAxes axes_ = ProjectionAxes::theta_y_x;
    ProjectionAxes white_axes_ = ProjectionAxes::theta_y_x;
    ProjectionAxes dark_axes_ = ProjectionAxes::theta_y_x;
    size_type num_white_ = 0;
    size_type num_dark_ = 0;
    bool has_theta_ = false;
};

/// How projections become sinograms.
struct SinogramOptions {
    /// Rotation centre in detector columns (pixel edges at 0..cols); default cols/2.
    std::optional<double> center;
    /// Normalised values that are not positive (or not finite) become epsilon before -log.
    float epsilon = 1e-6f;
};

/// Sinograms of consecutive slices, MemXCT layout (num_slices, num_theta, num_rho).
struct Sinograms {
    std::vector<float> values;
    size_type num_slices = 0;
    size_type num_theta = 0;
    size_type num_rho = 0;
    /// How many values were clamped to epsilon (the caller warns when this is not 0).
    size_type clamped = 0;
};

/// In place on (num_slices, num_theta, cols) projections with per-slice means of the flat
/// and dark fields (num_slices, cols):  p := -log((p - dark) / (white - dark)), where a
/// ratio that is not positive or not finite is replaced by epsilon and counted; then
/// shift_center. Returns the count. Never produces NaN. Throws DimensionMismatch on sizes.
size_type normalize_projections(std::span<float> projections, std::span<const float> white_mean,
                                std::span<const float> dark_mean, size_type num_slices, size_type num_theta,
                                size_type cols, const SinogramOptions& options = {});

/// Moves the rotation centre `center` to cols/2 in each of `num_rows` rows of `cols` values:
/// out[i] = in(i + center - cols/2), linear interpolation between channel centres, edge
/// values beyond the detector. Throws InvalidInput ("center", ...) when center is outside
/// [0, cols].
void shift_center(std::span<float> rows, size_type num_rows, size_type cols, double center);

/// Reads detector rows [first_row, first_row + num_rows) and preprocesses them (one slice
/// per row). Throws as DataExchange::read_projections and InvalidInput
/// "file.h5:/exchange/data_white: white equals dark everywhere in rows [0, 4) (all-zero flat
/// fields?), cannot normalise".
Sinograms read_sinograms(const DataExchange& file, size_type first_row, size_type num_rows,
                         const SinogramOptions& options = {});

}  // namespace tessel::io
