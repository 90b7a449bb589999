// Where the sinograms come from: an APS Data Exchange file (normalised by flat and dark
// fields, -log, centre shift), MemXCT raw files, or the built-in Shepp-Logan phantom.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/xct/geometry/geometry.hpp"
#include "core/timer.hpp"
#include "io/data_exchange.hpp"

namespace tessel::xct {

enum class InputKind { data_exchange, raw, phantom };

struct InputOptions {
    InputKind kind = InputKind::phantom;
    std::string path;        // Data Exchange file or raw sinogram
    std::string theta_path;  // raw: angles in radians
    /// raw: slices in a slice-major file (0: one); phantom: slices of the 3-D phantom (0: one,
    /// the 2-D phantom).
    size_type num_slices = 0;
    size_type channels = 0;  // raw: channels per projection (0: from the file size, cross-checked)
    size_type phantom_size = 0;
    size_type angles = 0;  // phantom: angles over [0, π) (0: 3N/2)
    double noise = 0;      // phantom: incident photons per ray for Poisson noise (0: none)
    std::uint64_t seed = 1;
    std::optional<std::pair<size_type, size_type>> slices;  // [first, end) of the available slices
    std::optional<double> center;  // rotation centre in channels (default num_rho/2)
    size_type size = 0;            // image size N (0: the channel count)
    io::ExchangeOptions exchange;  // Data Exchange: --no-flat, --theta-units
};

/// "100:228" -> {100, 228}. Throws InvalidInput "slices: ...".
std::pair<size_type, size_type> parse_slice_range(std::string_view text);

/// What an opened input holds; the same on every rank once broadcast.
struct InputInfo {
    Geometry geometry;
    size_type available = 0;    // slices in the input
    size_type first_slice = 0;  // absolute index of selected slice 0
    size_type slices = 0;       // selected slices
    double center = 0;          // rotation centre in channels
    std::string description;
    size_type input_bytes_per_slice = 0;  // what reading one slice holds on rank 0
    bool phantom = false;

    nlohmann::json json() const;
    static InputInfo from_json(const nlohmann::json& j);
};

/// Opened on rank 0 only (the others get the InputInfo).
class SinogramSource {
public:
    /// Opens and checks the input. Throws InvalidInput (the io messages for Data Exchange and raw
    /// files, "slices: range 5:9 outside the 4 slices of f.h5", "theta: ...").
    explicit SinogramSource(const InputOptions& options);
    const InputInfo& info() const { return info_; }
    /// Warnings of opening the input (missing dark, radians theta), for rank 0 to print.
    const std::vector<std::string>& warnings() const { return warnings_; }

    /// Sinograms of selected slices [first, first + count), layout (count, num_theta, num_rho),
    /// centre shifted; `clamped` gets the values clamped before -log. Not for the phantom.
    /// Times "read" and "preprocess". Throws InvalidInput.
    std::vector<float> read(size_type first, size_type count, PhaseTimes& times, size_type& clamped);

    /// One slice's sinogram (num_theta x num_rho) as the detector saw it (normalised, -log, no
    /// centre shift), for centre finding. `slice` is absolute (a detector row). Throws
    /// InvalidInput (the phantom, a slice outside the input).
    std::vector<float> read_unshifted(size_type slice);
    /// Finds the rotation centre of absolute slice `slice` (Vo et al. 2014) and makes it the
    /// centre of every slice. Returns it. Throws as read_unshifted and find_center_vo.
    double find_center(size_type slice);

    /// From now on read() finds every slice's own centre (a fine search around info().center,
    /// which find_center set) and shifts the slice by it: for a rotation axis that is not
    /// parallel to the detector columns.
    void find_centers_per_slice() { per_slice_ = true; }
    /// The centres read() used per absolute slice (with find_centers_per_slice()).
    const std::map<size_type, double>& slice_centers() const { return slice_centers_; }

    /// Phantom images of selected slices [first, first + count), layout (count, n, n).
    std::vector<float> phantom_images(size_type first, size_type count) const;

private:
    InputOptions options_;
    InputInfo info_;
    std::vector<std::string> warnings_;
    bool per_slice_ = false;
    std::map<size_type, double> slice_centers_;
    std::unique_ptr<io::DataExchange> exchange_;
    std::vector<float> raw_;  // raw: the whole file, read on first use
};

/// Phantom images for any rank (no file involved).
std::vector<float> phantom_images(const InputInfo& info, size_type first, size_type count);

}  // namespace tessel::xct
