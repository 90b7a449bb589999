// MemXCT raw files (docs/xct.md, "Input file formats"): headerless little-endian float32 angles
// (radians), sinograms (slice-major, num_slices x num_theta x num_rho) and N x N images.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace tessel::io {

/// Reads the projection angles in radians; their number comes from the file size.
/// Throws InvalidInput "file: what": cannot open, empty, size not a multiple of 4,
/// "element 3 is not finite".
std::vector<float> read_theta(const std::string& path);

/// Number of num_theta x num_rho slices in a sinogram file. Throws InvalidInput when the
/// size is not a positive multiple of one slice (expected and found bytes in the message).
size_type count_sinogram_slices(const std::string& path, size_type num_theta, size_type num_rho);

/// Reads num_slices x num_theta x num_rho floats, index (s·num_theta + t)·num_rho + r.
/// Throws InvalidInput "file: expected B bytes (S x T x R float32), found F" or
/// "file: element 7 (slice 0, angle 1, channel 3) is not finite".
std::vector<float> read_sinogram(const std::string& path, size_type num_slices, size_type num_theta,
                                 size_type num_rho);

/// Reads num_slices images of n x n floats (row-major, y·n + x). Throws InvalidInput as
/// read_sinogram ("element 5 (slice 0, row 1, column 1) is not finite").
std::vector<float> read_raw_image(const std::string& path, size_type n, size_type num_slices = 1);

/// Writes the angles atomically (temporary name, then rename). Throws InvalidInput when the
/// file cannot be written.
void write_theta(const std::string& path, std::span<const float> theta);

/// Writes a sinogram stack atomically. Throws DimensionMismatch when values.size() is not
/// num_slices·num_theta·num_rho, InvalidInput when the file cannot be written.
void write_sinogram(const std::string& path, std::span<const float> values, size_type num_slices,
                    size_type num_theta, size_type num_rho);

/// Writes num_slices n x n images atomically. Throws as write_sinogram.
void write_raw_image(const std::string& path, std::span<const float> image, size_type n,
                     size_type num_slices = 1);

}  // namespace tessel::io
