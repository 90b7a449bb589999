// Outputs checked before the work: a file's folder must exist and be writable, a folder is
// created (or must be writable), so that a bad path fails in one line at once and not after
// all the iterations.
#pragma once

#include <string>

namespace tessel::xct {

/// Throws InvalidInput "option: cannot write FILE: folder DIR does not exist" / "...: folder
/// DIR is not writable" / "...: FILE is a folder". Empty paths are skipped.
void check_output_file(const std::string& option, const std::string& path);

/// Creates the folder (and parents) when missing. Throws InvalidInput "option: cannot create
/// folder DIR: reason" / "option: folder DIR is not writable" / "option: DIR is a file".
void check_output_folder(const std::string& option, const std::string& dir);

}  // namespace tessel::xct
