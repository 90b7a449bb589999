// Writes a damaged copy of a tessel-xct checkpoint (finding 1 of issue 14):
//   corrupt_checkpoint IN OUT gamma-short|round-huge|x-nan|iteration-beyond
#include <cmath>
#include <cstdio>
#include <string>

#include "apps/xct/io/checkpoint.hpp"
#include "core/error.hpp"

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: corrupt_checkpoint IN OUT gamma-short|round-huge|x-nan|iteration-beyond\n");
        return 2;
    }
    try {
        using namespace tessel::xct;
        auto c = read_checkpoint<float>(argv[1]);
        const std::string how = argv[3];
        const auto pixels = static_cast<tessel::size_type>(c.x.size()) / c.round_width;
        const auto rays = static_cast<tessel::size_type>(c.r.size()) / c.round_width;
        if (how == "gamma-short") c.gamma.pop_back();
        else if (how == "round-huge") c.round = 1000000;
        else if (how == "x-nan") for (auto& v : c.x) v = NAN;
        else if (how == "iteration-beyond") c.iteration = 1000;
        else return 2;
        // write_checkpoint writes x and r as (width, pixels), so they keep their shape.
        write_checkpoint(argv[2], c, pixels, rays);
    } catch (const tessel::Error& e) {
        std::fprintf(stderr, "corrupt_checkpoint: %s\n", e.message().c_str());
        return 1;
    }
    return 0;
}
