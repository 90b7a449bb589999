// Byte sizes as users write them ("8G", "512MiB") and as messages print them ("1.5 GiB").
#pragma once

#include <string>

namespace tessel::app {

/// "1.5 GiB", "640.0 KiB", "12 B" (powers of 1024).
std::string format_bytes(double bytes);

/// Parses "1073741824", "512M", "1.5G", "2GiB", "64k" (powers of 1024; B, K, M, G, T, P with
/// an optional "B" or "iB"). Throws InvalidInput naming `what` for anything else, for values
/// that are not positive, not finite, or beyond 2^62 bytes.
double parse_bytes(const std::string& text, const std::string& what);

}  // namespace tessel::app
