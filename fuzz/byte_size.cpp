// Fuzzes the command line's byte-size parser (--memory-limit, --device-memory): a size or
// tessel::Error, nothing else, and never a size that is not finite and positive.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/app/byte_size.hpp"
#include "core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const double bytes = tessel::app::parse_bytes(text, "--memory-limit");
        if (!(bytes > 0) || !std::isfinite(bytes)) std::abort();
        (void)tessel::app::format_bytes(bytes);
    } catch (const tessel::Error&) {
    }
    return 0;
}
