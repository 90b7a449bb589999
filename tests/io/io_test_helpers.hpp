// Helpers for the io tests: a temporary directory per test and exact error messages.
#pragma once

#include <exception>
#include <string>

#include "core/error.hpp"
#include "tests/common/temp_dir.hpp"

namespace tessel::io::test {

using tessel::test::TempDir;

/// message() of the InvalidInput that `f` throws, or a text saying what happened instead.
template <typename F>
std::string invalid_input(F&& f) {
    try {
        f();
    } catch (const InvalidInput& e) {
        return e.message();
    } catch (const std::exception& e) {
        return std::string("other exception: ") + e.what();
    }
    return "no exception";
}

}  // namespace tessel::io::test
