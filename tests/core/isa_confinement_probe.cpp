// A program compiled with -mavx2 whose baseline-namespace code uses ymm registers: the
// confinement check (scripts/check_isa_confinement.sh) must reject it, proving it can fail.
#include <cstdio>
#include <cstdlib>

namespace tessel::probe {

// Vectorised by the compiler with the 256-bit registers -mavx2 allows.
__attribute__((noinline)) float add_all(const float* x, int n) {
    float s[8] = {};
    for (int i = 0; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; ++k) s[k] += x[i + k];
    float t = 0;
    for (float v : s) t += v;
    return t;
}

}  // namespace tessel::probe

int main(int argc, char**) {
    float x[64];
    for (int i = 0; i < 64; ++i) x[i] = float(i * argc);
    std::printf("%g\n", double(tessel::probe::add_all(x, 64)));
    return EXIT_SUCCESS;
}
