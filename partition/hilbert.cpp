// Hilbert curves by Skilling's transform ("Programming the Hilbert curve", 2004): axes <->
// transposed index, in any dimension; here 2-D and 3-D, and the two-level tile ordering.
#include "partition/hilbert.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"

namespace tessel::partition {

namespace {

// Axes -> transposed Hilbert index, in place (n coordinates of `bits` bits).
template <int N>
void axes_to_transpose(std::array<std::uint32_t, N>& x, int bits) {
    if (bits == 0) return;
    const std::uint32_t m = 1u << (bits - 1);
    for (std::uint32_t q = m; q > 1; q >>= 1) {  // inverse undo
        const std::uint32_t p = q - 1;
        for (int i = 0; i < N; ++i) {
            if (x[i] & q) {
                x[0] ^= p;
            } else {
                const std::uint32_t t = (x[0] ^ x[i]) & p;
                x[0] ^= t;
                x[i] ^= t;
            }
        }
    }
    for (int i = 1; i < N; ++i) x[i] ^= x[i - 1];  // Gray encode
    std::uint32_t t = 0;
    for (std::uint32_t q = m; q > 1; q >>= 1)
        if (x[N - 1] & q) t ^= q - 1;
    for (int i = 0; i < N; ++i) x[i] ^= t;
}

// Transposed Hilbert index -> axes, in place.
template <int N>
void transpose_to_axes(std::array<std::uint32_t, N>& x, int bits) {
    if (bits == 0) return;
    const std::uint32_t n = 2u << (bits - 1);
    std::uint32_t t = x[N - 1] >> 1;  // Gray decode
    for (int i = N - 1; i > 0; --i) x[i] ^= x[i - 1];
    x[0] ^= t;
    for (std::uint32_t q = 2; q != n; q <<= 1) {  // undo excess work
        const std::uint32_t p = q - 1;
        for (int i = N - 1; i >= 0; --i) {
            if (x[i] & q) {
                x[0] ^= p;
            } else {
                t = (x[0] ^ x[i]) & p;
                x[0] ^= t;
                x[i] ^= t;
            }
        }
    }
}

// Interleaves the transposed form into one integer: bit b of x[0] is the most significant of
// the b-th group of N bits.
template <int N>
std::uint64_t interleave(const std::array<std::uint32_t, N>& x, int bits) {
    std::uint64_t d = 0;
    for (int b = bits - 1; b >= 0; --b)
        for (int i = 0; i < N; ++i) d = (d << 1) | ((x[i] >> b) & 1u);
    return d;
}

template <int N>
std::array<std::uint32_t, N> deinterleave(std::uint64_t d, int bits) {
    std::array<std::uint32_t, N> x{};
    for (int b = 0; b < bits; ++b)
        for (int i = N - 1; i >= 0; --i) {
            x[i] |= static_cast<std::uint32_t>(d & 1u) << b;
            d >>= 1;
        }
    return x;
}

void check_bits(int bits, int limit) {
    if (bits < 0 || bits > limit)
        TESSEL_INVALID_INPUT("hilbert", 0, "bits " + std::to_string(bits) + " outside 0.." +
                                               std::to_string(limit));
}

void check_tile(size_type tile) {
    if (tile < 1 || (tile & (tile - 1)) != 0)
        TESSEL_INVALID_INPUT("hilbert", 0, "tile " + std::to_string(tile) + " is not a power of two");
}

}  // namespace

int bits_for(size_type n) {
    int b = 0;
    while ((size_type{1} << b) < n) ++b;
    return b;
}

std::uint64_t hilbert_index_2d(int bits, std::uint32_t x, std::uint32_t y) {
    check_bits(bits, 31);
    std::array<std::uint32_t, 2> p{x, y};
    axes_to_transpose<2>(p, bits);
    return interleave<2>(p, bits);
}

std::array<std::uint32_t, 2> hilbert_point_2d(int bits, std::uint64_t d) {
    check_bits(bits, 31);
    auto p = deinterleave<2>(d, bits);
    transpose_to_axes<2>(p, bits);
    return p;
}

std::uint64_t hilbert_index_3d(int bits, std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    check_bits(bits, 21);
    std::array<std::uint32_t, 3> p{x, y, z};
    axes_to_transpose<3>(p, bits);
    return interleave<3>(p, bits);
}

std::array<std::uint32_t, 3> hilbert_point_3d(int bits, std::uint64_t d) {
    check_bits(bits, 21);
    auto p = deinterleave<3>(d, bits);
    transpose_to_axes<3>(p, bits);
    return p;
}

Permutation hilbert_order_2d(size_type nx, size_type ny, size_type tile) {
    check_tile(tile);
    if (nx < 0 || ny < 0) TESSEL_INVALID_INPUT("hilbert", 0, "negative grid size");
    const size_type tx = (nx + tile - 1) / tile, ty = (ny + tile - 1) / tile;
    const int tile_bits = bits_for(tile), grid_bits = bits_for(std::max(tx, ty));
    Permutation order;
    order.reserve(static_cast<std::size_t>(nx * ny));
    const std::uint64_t tiles = std::uint64_t{1} << (2 * grid_bits);
    const std::uint64_t points = std::uint64_t{1} << (2 * tile_bits);
    for (std::uint64_t t = 0; t < tiles; ++t) {
        const auto [gx, gy] = hilbert_point_2d(grid_bits, t);
        if (gx >= tx || gy >= ty) continue;  // a tile of the power-of-two padding
        for (std::uint64_t d = 0; d < points; ++d) {
            const auto [px, py] = hilbert_point_2d(tile_bits, d);
            const size_type x = size_type(gx) * tile + px, y = size_type(gy) * tile + py;
            if (x < nx && y < ny) order.push_back(y * nx + x);
        }
    }
    return order;
}

Permutation hilbert_order_3d(size_type nx, size_type ny, size_type nz, size_type tile) {
    check_tile(tile);
    if (nx < 0 || ny < 0 || nz < 0) TESSEL_INVALID_INPUT("hilbert", 0, "negative grid size");
    const size_type tx = (nx + tile - 1) / tile, ty = (ny + tile - 1) / tile,
                    tz = (nz + tile - 1) / tile;
    const int tile_bits = bits_for(tile), grid_bits = bits_for(std::max({tx, ty, tz}));
    Permutation order;
    order.reserve(static_cast<std::size_t>(nx * ny * nz));
    const std::uint64_t tiles = std::uint64_t{1} << (3 * grid_bits);
    const std::uint64_t points = std::uint64_t{1} << (3 * tile_bits);
    for (std::uint64_t t = 0; t < tiles; ++t) {
        const auto [gx, gy, gz] = hilbert_point_3d(grid_bits, t);
        if (gx >= tx || gy >= ty || gz >= tz) continue;
        for (std::uint64_t d = 0; d < points; ++d) {
            const auto [px, py, pz] = hilbert_point_3d(tile_bits, d);
            const size_type x = size_type(gx) * tile + px, y = size_type(gy) * tile + py,
                            z = size_type(gz) * tile + pz;
            if (x < nx && y < ny && z < nz) order.push_back((z * ny + y) * nx + x);
        }
    }
    return order;
}

}  // namespace tessel::partition
