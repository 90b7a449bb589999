// The main of a one-process benchmark: its body, and for an error one line naming the program
// and exit status 1.
#pragma once

#include <cstdio>
#include <exception>

#include "core/error.hpp"

namespace tessel::bench {

template <typename Body>
int run_bench(const char* program, Body&& body) {
    try {
        return body();
    } catch (const tessel::Error& e) {
        std::fprintf(stderr, "%s: %s\n", program, e.message().c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", program, e.what());
    }
    return 1;
}

}  // namespace tessel::bench
