// Fused SpMM + bias + ReLU + cap on register tiles of images (GCC vector extensions, so one
// tile row is one or a few SIMD registers); several output rows are interleaved so that
// their accumulation chains overlap.
#include "apps/spdnn/fused_layer_kernels.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "core/aligned_allocator.hpp"
#include "core/error.hpp"

namespace tessel::spdnn {

namespace {

template <int VW>
struct VectorOf;
template <>
struct VectorOf<16> {
    typedef float type __attribute__((vector_size(64)));
};
template <>
struct VectorOf<8> {
    typedef float type __attribute__((vector_size(32)));
};
template <>
struct VectorOf<4> {
    typedef float type __attribute__((vector_size(16)));
};

// The register layout of one tile row of R images: C vectors of VW floats; G rows at once.
template <int R>
struct Tile {
    static constexpr int vw = R % 16 == 0 ? 16 : (R % 8 == 0 ? 8 : 4);
    static constexpr int c = R / vw;
    static constexpr int g = c >= 4 ? 4 : (c == 3 ? 4 : 8);
    using vec = typename VectorOf<vw>::type;
};

template <typename Vec>
inline Vec load(const Value* p) {
    Vec v;
    std::memcpy(&v, p, sizeof(Vec));
    return v;
}
template <typename Vec>
inline void store(Value* p, Vec v) {
    std::memcpy(p, &v, sizeof(Vec));
}

constexpr size_type warp = TiledEll<Value, Index>::warp_size;

// Multiply-adds (edges x images) below which a layer runs on one thread (about 0.1 ms).
constexpr double parallel_work = 4e6;

// Per-thread scratch: a staging buffer for stages whose inputs are not one contiguous range,
// and partial sums carried between stages.
struct Scratch {
    std::vector<Value, AlignedAllocator<Value>> stage;
    std::vector<Value, AlignedAllocator<Value>> part;
    std::vector<Value, AlignedAllocator<Value>> dense;  // densified first-layer tile
};

// One row block of Wᵀ for one tile: out rows of the block := epilogue(sum); returns the lanes
// (images) with a nonzero output as bits.
template <int R>
std::uint64_t run_block(const TiledEll<Value, Index>& a, size_type block, const Value* in,
                        Value* out, const Epilogue<Value>& ep, Scratch& scratch) {
    using T = Tile<R>;
    using vec = typename T::vec;
    constexpr int C = T::c, G = T::g, VW = T::vw;
    const size_type warps = a.warps_per_block();
    const size_type first_row = block * a.config.block_rows;
    const size_type rows = std::min(a.config.block_rows, a.rows - first_row);
    const size_type s_begin = a.buffdispl[block], s_end = a.buffdispl[block + 1];
    const vec zero = vec{} * Value(0);
    const vec bias = zero + ep.bias, lower = zero + ep.lower, upper = zero + ep.upper;
    vec any[C];
    for (int c = 0; c < C; ++c) any[c] = zero;
    const Value* values = a.values.data();
    const std::uint16_t* index = a.index.data();
    if (s_end - s_begin > 1) scratch.part.resize(static_cast<std::size_t>(a.config.block_rows) * R);

    for (size_type s = s_begin; s < s_end; ++s) {
        const bool first = s == s_begin, last = s + 1 == s_end;
        const Index* map = a.map.data() + a.mapdispl[s];
        const size_type staged = a.mapdispl[s + 1] - a.mapdispl[s];
        // Inputs that are one contiguous range are read in place; others are staged.
        const Value* src;
        if (staged == 0 || size_type(map[staged - 1]) - size_type(map[0]) == staged - 1) {
            src = in + (staged ? size_type(map[0]) * R : 0);
        } else {
            scratch.stage.resize(static_cast<std::size_t>(staged) * R);
            for (size_type e = 0; e < staged; ++e)
                std::memcpy(scratch.stage.data() + e * R, in + size_type(map[e]) * R, sizeof(Value) * R);
            src = scratch.stage.data();
        }
        const size_type* wd = a.warpdispl.data() + s * warps;
        for (size_type wi = 0; wi * warp < rows; ++wi) {
            const size_type m0 = wd[wi], m1 = wd[wi + 1];
            for (size_type lane0 = 0; lane0 < warp && wi * warp + lane0 < rows; lane0 += G) {
                const size_type row0 = wi * warp + lane0;
                vec acc[G][C];
                if (first) {
#pragma GCC unroll 8
                    for (int g = 0; g < G; ++g)
#pragma GCC unroll 4
                        for (int c = 0; c < C; ++c) acc[g][c] = zero;
                } else {
#pragma GCC unroll 8
                    for (int g = 0; g < G; ++g)
#pragma GCC unroll 4
                        for (int c = 0; c < C; ++c)
                            acc[g][c] = load<vec>(scratch.part.data() + (row0 + g) * R + c * VW);
                }
                for (size_type m = m0; m < m1; ++m) {
                    const Value* v = values + m * warp + lane0;
                    const std::uint16_t* ix = index + m * warp + lane0;
#pragma GCC unroll 8
                    for (int g = 0; g < G; ++g) {
                        const Value* x = src + size_type(ix[g]) * R;
                        const Value w = v[g];
#pragma GCC unroll 4
                        for (int c = 0; c < C; ++c) acc[g][c] += w * load<vec>(x + c * VW);
                    }
                }
                if (!last) {
#pragma GCC unroll 8
                    for (int g = 0; g < G; ++g)
#pragma GCC unroll 4
                        for (int c = 0; c < C; ++c)
                            store(scratch.part.data() + (row0 + g) * R + c * VW, acc[g][c]);
                    continue;
                }
                const int valid = static_cast<int>(std::min<size_type>(G, rows - row0));
#pragma GCC unroll 8
                for (int g = 0; g < G; ++g) {
                    if (g >= valid) break;
                    Value* o = out + (first_row + row0 + g) * R;
#pragma GCC unroll 4
                    for (int c = 0; c < C; ++c) {
                        vec y = acc[g][c] + bias;
                        y = y < lower ? lower : (y > upper ? upper : y);
                        store(o + c * VW, y);
                        const vec mag = y < zero ? -y : y;
                        any[c] = any[c] > mag ? any[c] : mag;
                    }
                }
            }
        }
    }
    std::uint64_t bits = 0;
    for (int c = 0; c < C; ++c)
        for (int k = 0; k < VW; ++k)
            if (any[c][k] != Value(0)) bits |= std::uint64_t{1} << (c * VW + k);
    return bits;
}

// Tile t of the input: in place, or (with `from`) its R lanes gathered from positions
// from[t·R + r] of `in` into `dense` (the compaction of the previous layer, done here while
// the gathered tile goes straight to this thread's cache).
template <int R>
const Value* input_tile(const TileActivations& in, const std::vector<size_type>* from, size_type t, Value* dense) {
    if (!from) return in.tile(t);
    const size_type n = in.neurons(), count = static_cast<size_type>(from->size());
    const size_type lanes = std::min<size_type>(R, count - t * R);
    size_type offset[R];
    for (size_type r = 0; r < lanes; ++r) {
        const size_type s = (*from)[t * R + r];
        offset[r] = (s / R) * in.tile_size() + s % R;
    }
    for (size_type r = lanes; r < R; ++r) offset[r] = -1;
    const Value* base = in.tile(0);
    for (size_type k = 0; k < n; ++k) {
        Value* o = dense + k * R;
        const Value* b = base + k * R;
        for (size_type r = 0; r < R; ++r) o[r] = offset[r] >= 0 ? b[offset[r]] : Value(0);
    }
    return dense;
}

template <int R>
void layer_tiles(const TiledEll<Value, Index>& a, const TileActivations& in, const std::vector<size_type>* from,
                 TileActivations& out, const Epilogue<Value>& ep, std::vector<std::uint64_t>& masks) {
    const size_type tiles = out.tiles(), blocks = a.num_blocks();
    const size_type work = tiles * blocks;
    // Plenty of tiles: a thread keeps a tile for all its blocks (the tile stays in cache);
    // few tiles (late layers): (tile, block) pairs so that every thread has work.
    const bool by_tile = tiles >= 4 * omp_get_max_threads();
    TESSEL_ENSURE_DIMS(by_tile || !from, "fused_layer: gathered input needs many tiles");
    // A layer of a few live images (a fraction of a millisecond) runs on this thread alone: a
    // thread team's wake-up and barrier would cost more, and far more on a busy machine.
    const bool team = double(tiles) * double(a.stored()) * R > parallel_work;
#pragma omp parallel if (team)
    {
        Scratch scratch;
        if (from) scratch.dense.resize(static_cast<std::size_t>(a.cols) * R);
        if (by_tile) {
#pragma omp for schedule(dynamic, 1)
            for (size_type t = 0; t < tiles; ++t) {
                const Value* x = input_tile<R>(in, from, t, scratch.dense.data());
                std::uint64_t bits = 0;
                for (size_type b = 0; b < blocks; ++b) bits |= run_block<R>(a, b, x, out.tile(t), ep, scratch);
                masks[t] = bits;
            }
        } else {
#pragma omp for schedule(dynamic, 1)
            for (size_type w = 0; w < work; ++w) {
                const size_type t = w / blocks, b = w % blocks;
                const std::uint64_t bits = run_block<R>(a, b, in.tile(t), out.tile(t), ep, scratch);
#pragma omp atomic
                masks[t] |= bits;
            }
        }
    }
}

template <int R>
void first_layer_tiles(const TiledEll<Value, Index>& a, const Images& images, TileActivations& out,
                       const Epilogue<Value>& ep, std::vector<std::uint64_t>& masks) {
    const size_type tiles = out.tiles(), blocks = a.num_blocks(), n = a.cols;
    const auto& ids = out.ids();
    const size_type count = out.count();
#pragma omp parallel if (double(tiles) * double(a.stored()) * R > parallel_work)
    {
        Scratch scratch;
        scratch.dense.resize(static_cast<std::size_t>(n) * R);
#pragma omp for schedule(dynamic, 1)
        for (size_type t = 0; t < tiles; ++t) {
            Value* dense = scratch.dense.data();
            std::fill(dense, dense + n * R, Value(0));
            for (size_type r = 0; r < R && t * R + r < count; ++r) {
                const size_type img = ids[t * R + r];
                for (size_type e = images.row_ptr()[img]; e < images.row_ptr()[img + 1]; ++e)
                    dense[size_type(images.col_idx()[e]) * R + r] = images.values()[e];
            }
            std::uint64_t bits = 0;
            for (size_type b = 0; b < blocks; ++b) bits |= run_block<R>(a, b, dense, out.tile(t), ep, scratch);
            masks[t] = bits;
        }
    }
}

template <typename F>
void dispatch(int r, F&& f) {
    switch (r) {
    case 8: f.template operator()<8>(); break;
    case 12: f.template operator()<12>(); break;
    case 16: f.template operator()<16>(); break;
    case 32: f.template operator()<32>(); break;
    case 64: f.template operator()<64>(); break;
    default:
        TESSEL_INVALID_INPUT("--register", 0,
                             std::to_string(r) + " is not one of the compiled tile widths 8, 12, 16, 32, 64");
    }
}

void check(const TiledEll<Value, Index>& wt, size_type neurons, const char* what) {
    TESSEL_ENSURE_DIMS(wt.rows == neurons && wt.cols == neurons,
                       std::string(what) + ": weights are " + std::to_string(wt.rows) + "x" +
                           std::to_string(wt.cols) + ", activations have " + std::to_string(neurons) +
                           " neurons");
}

}  // namespace

bool fused_register_factor_supported(int register_factor) {
    for (int r : fused_register_factors)
        if (r == register_factor) return true;
    return false;
}

void fused_layer(const TiledEll<Value, Index>& wt, const TileActivations& in, TileActivations& out,
                 const Epilogue<Value>& epilogue, std::vector<std::uint64_t>& live_masks,
                 const std::vector<size_type>* from) {
    check(wt, in.neurons(), "fused_layer");
    TESSEL_ENSURE_DIMS(out.neurons() == in.neurons() && out.tile_width() == in.tile_width(),
                       "fused_layer: input and output tiles differ");
    if (from) {
        out.resize(static_cast<size_type>(from->size()));
        for (std::size_t i = 0; i < from->size(); ++i) out.ids()[i] = in.ids()[(*from)[i]];
    } else {
        out.resize(in.count());
        std::copy(in.ids().begin(), in.ids().end(), out.ids().begin());
    }
    live_masks.assign(out.tiles(), 0);
    dispatch(in.tile_width(), [&]<int R>() { layer_tiles<R>(wt, in, from, out, epilogue, live_masks); });
}

bool fused_layer_gathers(size_type live, int register_factor) {
    return (live + register_factor - 1) / register_factor >= 4 * omp_get_max_threads();
}

void fused_first_layer(const TiledEll<Value, Index>& wt, const Images& images, TileActivations& out,
                       const Epilogue<Value>& epilogue, std::vector<std::uint64_t>& live_masks) {
    check(wt, out.neurons(), "fused_first_layer");
    TESSEL_ENSURE_DIMS(images.cols() == out.neurons(), "fused_first_layer: images have " +
                                                           std::to_string(images.cols()) + " features");
    live_masks.assign(out.tiles(), 0);
    dispatch(out.tile_width(), [&]<int R>() { first_layer_tiles<R>(wt, images, out, epilogue, live_masks); });
}

}  // namespace tessel::spdnn
