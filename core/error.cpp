// Error messages with source locations.
#include "core/error.hpp"

#include <filesystem>

namespace tessel {

namespace {
std::string located(const std::string& file, int line, const std::string& what) {
    return std::filesystem::path(file).filename().string() + ":" + std::to_string(line) +
           ": " + what;
}

std::string input_message(const std::string& input, std::int64_t place, const std::string& what) {
    return place > 0 ? input + ":" + std::to_string(place) + ": " + what : input + ": " + what;
}
}  // namespace

Error::Error(const std::string& file, int line, const std::string& what)
    : std::runtime_error(located(file, line, what)), file_(file), line_(line), message_(what) {}

InvalidInput::InvalidInput(const std::string& file, int line, const std::string& input,
                           std::int64_t place, const std::string& what)
    : Error(file, line, input_message(input, place, what)), input_(input), place_(place) {}

}  // namespace tessel
