// The cpu tiled-ELL block kernels that every tiled driver shares: one row block of A times R
// columns of B, with the epilogue fused into the store. Internal to core/cpu.
//
// Two designs (a visible branch in block_kernel):
//  - slot order (from xct), for R = 1 and for long ELL rows: the block's accumulators stay in
//    L1 while the slots stream past, four per visit; SIMD over the 32 lanes of a slot for R = 1,
//    over the R columns otherwise.
//  - register tiles (from spdnn), for R >= 2 and short rows: G rows x R columns live in vector
//    registers while the rows' slots stream past; partial sums of multi-stage blocks wait in a
//    per-thread buffer.
// Both add a row's products one at a time in storage order (ascending column within a row, as
// reference::spmm on sorted CSR), so a column's result does not depend on R or on the
// columns beside it.
// Compiled once per x86-64 level (core/cpu/isa_region.hpp): the register tiles are sized for
// the level's vector registers.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include <string>

#include "core/aligned_allocator.hpp"
#include "core/cpu/isa_region.hpp"
#include "core/cpu/streaming_store.hpp"
#include "core/cpu/tiled_ell_design.hpp"
#include "core/error.hpp"
#include "core/formats/tiled_ell.hpp"
#include "core/kernels/epilogue.hpp"

TESSEL_CPU_ISA_BEGIN
namespace detail {

/// R columns of the input: row q (a global column index of A) at base + q·ld + k0, of which
/// the first `width` are real (the rest are staged as zeros).
template <typename V>
struct InputColumns {
    const V* base;
    size_type ld;
    size_type k0;
    size_type width;
};

/// Where the block's rows go: row i at base + i·ld + k0, `width` columns. `stream`: full
/// register tiles are written with non-temporal stores (streaming_store.hpp; the caller checked
/// that they are whole cache lines and that C is far larger than the cache).
template <typename V>
struct OutputColumns {
    V* base;
    size_type ld;
    size_type k0;
    size_type width;
    bool stream = false;
};

/// Per-thread buffers of the block kernels, grown on demand and reused.
template <typename V>
struct BlockScratch {
    std::vector<V, AlignedAllocator<V>> stage;  // staged input rows, R values each
    std::vector<V, AlignedAllocator<V>> part;   // partial sums between stages / R = 1 accumulators
    std::vector<V, AlignedAllocator<V>> dense;  // gathered or densified input (tile drivers)
};

template <typename V, int N>
struct VectorOf {
    typedef V type __attribute__((vector_size(N * sizeof(V))));
};

/// The register layout of one row of R columns at this level: C vectors of VW values (as wide
/// as the level's registers allow for R), G rows at once, the G x C accumulators taking at most
/// half the register file (the rest holds the broadcast weights and the loaded rows of B).
/// On AVX2 an 8 x 32-float tile sized for 512-bit registers needed 32 registers of 16 and
/// spilled in the inner loop (23x slower on the DNN layers).
template <typename V, int R>
struct RegisterTile {
    static constexpr int max_lanes = vector_bytes / int(sizeof(V));
    static constexpr int vw = R % max_lanes == 0 ? max_lanes
                              : R % (max_lanes / 2) == 0 ? max_lanes / 2
                              : max_lanes >= 4 && R % (max_lanes / 4) == 0 ? max_lanes / 4
                                                                         : 1;
    static constexpr int c = R / vw;
    static constexpr int accumulators = vector_registers / 2;
    // Rows per group: a power of two (groups must not cross a warp of 32 lanes), at most 8.
    // Past four vectors one row: a second row's accumulators gained nothing there and cost
    // 3-4 % on the banded matrix (R = 64 doubles on AVX-512; BENCHMARKS.md at 035a11d).
    static constexpr int g = c > 4 ? 1
                             : c * 8 <= accumulators ? 8
                             : c * 4 <= accumulators ? 4
                             : c * 2 <= accumulators ? 2
                                                     : 1;
    using vec = typename VectorOf<V, vw>::type;
};

template <typename Vec, typename V>
inline Vec load_vec(const V* p) {
    Vec v;
    std::memcpy(&v, p, sizeof(Vec));
    return v;
}
template <typename Vec, typename V>
inline void store_vec(V* p, Vec v) {
    std::memcpy(p, &v, sizeof(Vec));
}

/// One IEEE half (bits) as float without F16C: the exponent and mantissa moved into place and
/// scaled by 2^112 (exact, subnormals included), infinities and NaNs kept, the sign put back;
/// no branch on the value, so a loop of them vectorises with SSE2.
inline float widen_half_bits(std::uint16_t h) {
    const std::uint32_t magnitude = std::uint32_t(h & 0x7fffu) << 13;
    float f;
    std::memcpy(&f, &magnitude, sizeof(f));
    f *= 0x1p112f;
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    if (magnitude >= (0x7c00u << 13)) bits = magnitude | 0x7f800000u;  // infinity or NaN
    bits |= std::uint32_t(h & 0x8000u) << 16;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

/// n (a multiple of 16) halves widened to V: 16 at a time with AVX-512, 8 with F16C (avx2
/// level), by widen_half_bits in the generic code.
template <typename V>
inline void widen_halves(const std::uint16_t* h, V* out, int n) {
#if TESSEL_CPU_ISA_LEVEL >= 4
    if constexpr (std::is_same_v<V, float>) {
        for (int i = 0; i < n; i += 16)
            _mm512_store_ps(out + i, _mm512_maskz_cvtph_ps(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + i))));
        return;
    }
#elif TESSEL_CPU_ISA_LEVEL >= 3
    if constexpr (std::is_same_v<V, float>) {
        for (int i = 0; i < n; i += 8)
            _mm256_store_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i))));
        return;
    }
#endif
#pragma omp simd
    for (int i = 0; i < n; ++i) out[i] = V(widen_half_bits(h[i]));
}

/// One stored value as V (a scalar conversion for half).
template <bool Half, typename V>
inline V stored_value(const void* values, size_type e) {
    if constexpr (Half) {
#if TESSEL_CPU_ISA_LEVEL >= 3
        return V(_cvtsh_ss(static_cast<const std::uint16_t*>(values)[e]));
#else
        return V(widen_half_bits(static_cast<const std::uint16_t*>(values)[e]));
#endif
    } else {
        return static_cast<const V*>(values)[e];
    }
}

/// The values of a run of slots as V: in place, or widened from half into a buffer of four.
template <typename V, bool Half>
struct SlotValues {
    // widened is scratch, written before it is read: left uninitialised on purpose.
    explicit SlotValues(const void* stored) : values(stored) {}

    const void* values;
    alignas(64) V widened[Half ? 4 * 32 : 1];

    const V* at(size_type m, int slots) {
        if constexpr (Half) {
            widen_halves(static_cast<const std::uint16_t*>(values) + m * 32, widened, slots * 32);
            return widened;
        } else {
            return static_cast<const V*>(values) + m * 32;
        }
    }
};

/// The stored values of A (V or half bits).
template <bool Half, typename V, typename I>
inline const void* stored_values(const TiledEll<V, I>& a) {
    if constexpr (Half)
        return a.half_values.data();
    else
        return a.values.data();
}

/// Slots ahead of the ones being multiplied whose values and indices are prefetched. The
/// hardware prefetchers left the slot loops waiting on A's two streams (xct's operators at
/// K = 16: 18 % faster with 16 slots ahead; 8 to 32 within 3 % of it, 64 and 128 slower).
inline constexpr size_type prefetch_slots_ahead = 16;

/// Asks for the cache line at p in all cache levels. An asm statement: GCC 12 deleted
/// __builtin_prefetch as dead code behind a bounds check or a clamp of its address.
inline void prefetch_line(const char* p) {
#if defined(__x86_64__)
    asm volatile("prefetcht0 %0" : : "m"(*p));
#else
    __builtin_prefetch(p, 0, 3);
#endif
}

/// Prefetches the stored values and indices of Count slots from slot m, or of the last Count
/// slots when m is past them.
template <int Count, bool Half, typename V, typename I>
inline void prefetch_slots(const TiledEll<V, I>& a, size_type m) {
    constexpr size_type L = TiledEll<V, I>::warp_size;
    constexpr int value_bytes = Half ? int(sizeof(std::uint16_t)) : int(sizeof(V));
    const size_type last = a.stored() / L - Count;
    if (last < 0) return;
    m = std::min(m, last);
    const char* v = static_cast<const char*>(stored_values<Half>(a)) + m * L * value_bytes;
#pragma GCC unroll 32
    for (int q = 0; q < Count * int(L) * value_bytes; q += int(cache_line)) prefetch_line(v + q);
    const char* ix = reinterpret_cast<const char*>(a.index.data() + m * L);
#pragma GCC unroll 32
    for (int q = 0; q < Count * int(L * sizeof(std::uint16_t)); q += int(cache_line)) prefetch_line(ix + q);
}

/// The rows of stage s packed R-wide: in place when they are one contiguous run of an input
/// that is itself packed (ld == R, all columns real), otherwise copied into scratch.stage.
template <int R, typename V, typename I>
const V* stage_rows(const TiledEll<V, I>& a, size_type s, const InputColumns<V>& in, BlockScratch<V>& scratch) {
    const I* map = a.map.data() + a.mapdispl[s];
    const size_type staged = a.mapdispl[s + 1] - a.mapdispl[s];
    const bool packed = in.ld == R && in.k0 == 0 && in.width == R;
    if (packed && (staged == 0 || size_type(map[staged - 1]) - size_type(map[0]) == staged - 1))
        return in.base + (staged ? size_type(map[0]) * R : 0);
    if (scratch.stage.size() < std::size_t(staged * R)) scratch.stage.resize(std::size_t(staged * R));
    V* buf = scratch.stage.data();
    for (size_type e = 0; e < staged; ++e) {
        const V* src = in.base + size_type(map[e]) * in.ld + in.k0;
        if (in.width == R) {
#pragma omp simd
            for (int k = 0; k < R; ++k) buf[e * R + k] = src[k];
        } else {
            for (int k = 0; k < R; ++k) buf[e * R + k] = k < in.width ? src[k] : V{0};
        }
    }
    return buf;
}

/// Writes R accumulated values of one row; returns their nonzero lanes as bits when Track.
template <bool Track, int R, typename V>
inline std::uint64_t write_row(const V* sums, const OutputColumns<V>& out, size_type row, const Epilogue<V>& ep) {
    V* o = out.base + row * out.ld + out.k0;
    std::uint64_t bits = 0;
    for (size_type k = 0; k < out.width; ++k) {
        const V y = ep.apply(sums[k], o[k]);
        o[k] = y;
        if constexpr (Track) bits |= std::uint64_t(y != V{0}) << k;
    }
    return bits;
}

/// Four consecutive slots of one warp added to its lanes' accumulators `o` (R per lane):
/// R = 1 SIMD over the 32 lanes (a gather from the buffer), R > 1 SIMD over the R columns.
/// Products are added one at a time, in slot order.
template <int R, typename V>
inline void four_slots(const V* val, const std::uint16_t* idx, const V* buf, V* o) {
    constexpr size_type L = 32;
    if constexpr (R == 1) {
#pragma omp simd
        for (size_type lane = 0; lane < L; ++lane) {
            V sum = o[lane];
            sum += val[lane] * buf[idx[lane]];
            sum += val[L + lane] * buf[idx[L + lane]];
            sum += val[2 * L + lane] * buf[idx[2 * L + lane]];
            sum += val[3 * L + lane] * buf[idx[3 * L + lane]];
            o[lane] = sum;
        }
    } else {
        for (size_type lane = 0; lane < L; ++lane) {
            const V v0 = val[lane], v1 = val[L + lane], v2 = val[2 * L + lane], v3 = val[3 * L + lane];
            const V* x0 = buf + size_type(idx[lane]) * R;
            const V* x1 = buf + size_type(idx[L + lane]) * R;
            const V* x2 = buf + size_type(idx[2 * L + lane]) * R;
            const V* x3 = buf + size_type(idx[3 * L + lane]) * R;
            V* ol = o + lane * R;
#pragma omp simd
            for (int k = 0; k < R; ++k) {
                V sum = ol[k];
                sum += v0 * x0[k];
                sum += v1 * x1[k];
                sum += v2 * x2[k];
                sum += v3 * x3[k];
                ol[k] = sum;
            }
        }
    }
}

/// One slot of one warp (the remainder after groups of four).
template <int R, typename V>
inline void one_slot(const V* val, const std::uint16_t* idx, const V* buf, V* o) {
    constexpr size_type L = 32;
    for (size_type lane = 0; lane < L; ++lane) {
        const V v = val[lane];
        const V* x = buf + size_type(idx[lane]) * R;
        V* ol = o + lane * R;
#pragma omp simd
        for (int k = 0; k < R; ++k) ol[k] += v * x[k];
    }
}

/// Slot order (from xct): the block's accumulators (rows x R) stay in L1 while the ELL slots
/// stream past in storage order, four per visit, each slot's 32 lanes read once. Suits long
/// rows, whose slots would otherwise be read once per register group of rows.
template <bool Track, int R, bool Half, typename V, typename I>
std::uint64_t slot_order_block(const TiledEll<V, I>& a, size_type blk, const InputColumns<V>& in,
                               const OutputColumns<V>& out, const Epilogue<V>& ep, BlockScratch<V>& scratch) {
    constexpr size_type L = TiledEll<V, I>::warp_size;
    const size_type warps = a.warps_per_block();
    const size_type first_row = blk * a.config.block_rows;
    const size_type rows = std::min(a.config.block_rows, a.rows - first_row);
    const std::size_t acc_size = std::size_t(a.config.block_rows) * R;
    if (scratch.part.size() < acc_size) scratch.part.resize(acc_size);
    V* acc = scratch.part.data();
    std::fill(acc, acc + acc_size, V{0});
    SlotValues<V, Half> vals{stored_values<Half>(a)};
    for (size_type s = a.buffdispl[blk]; s < a.buffdispl[blk + 1]; ++s) {
        const V* buf = stage_rows<R>(a, s, in, scratch);
        const size_type* wd = a.warpdispl.data() + s * warps;
        for (size_type w = 0; w * L < rows; ++w) {
            V* o = acc + w * L * R;
            size_type m = wd[w];
            const size_type end = wd[w + 1];
            for (; m + 4 <= end; m += 4) {
                prefetch_slots<4, Half>(a, m + prefetch_slots_ahead);
                four_slots<R>(vals.at(m, 4), a.index.data() + m * L, buf, o);
            }
            for (; m < end; ++m) one_slot<R>(vals.at(m, 1), a.index.data() + m * L, buf, o);
        }
    }
    std::uint64_t bits = 0;
    for (size_type r = 0; r < rows; ++r) bits |= write_row<Track, R>(acc + r * R, out, first_row + r, ep);
    return bits;
}

/// The epilogue on whole vectors of one row (a local copy, so its branches are hoisted).
template <typename V, typename Vec>
struct VectorEpilogue {
    Vec alpha, beta, bias, lower, upper;
    bool enabled, scales, reads;

    explicit VectorEpilogue(const Epilogue<V>& ep)
        : alpha(Vec{} * V(0) + ep.alpha), beta(Vec{} * V(0) + ep.beta), bias(Vec{} * V(0) + ep.bias),
          lower(Vec{} * V(0) + ep.lower), upper(Vec{} * V(0) + ep.upper), enabled(ep.enabled),
          scales(ep.scales()), reads(ep.reads_output()) {}

    /// The new value of the vector of C at `o` whose product is y.
    __attribute__((always_inline)) Vec apply(Vec y, const V* o) const {
        if (scales) {
            y = alpha * y;
            if (reads) y += beta * load_vec<Vec>(o);
        }
        if (enabled) {
            y = y + bias;
            y = y < lower ? lower : (y > upper ? upper : y);
        }
        return y;
    }
};

/// A register group's accumulators: zero for the first stage, else the partial sums kept.
template <int G, int C, int VW, int R, typename Vec, typename V>
__attribute__((always_inline)) inline void start_group(Vec (&acc)[G][C], bool first, const V* keep) {
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g)
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) acc[g][c] = first ? Vec{} * V(0) : load_vec<Vec>(keep + g * R + c * VW);
}

/// R >= 2: G rows x R columns in registers per warp group; the epilogue fused into the store.
/// Direct: the rows of B are read in place through the stage's map (no staging copy; needs a
/// full tile, in.width == R).
template <bool Track, int R, bool Direct, bool Half, typename V, typename I>
std::uint64_t register_block(const TiledEll<V, I>& a, size_type blk, const InputColumns<V>& in,
                             const OutputColumns<V>& out, const Epilogue<V>& ep, BlockScratch<V>& scratch) {
    using T = RegisterTile<V, R>;
    using vec = typename T::vec;
    constexpr int C = T::c, G = T::g, VW = T::vw;
    constexpr size_type L = TiledEll<V, I>::warp_size;
    const size_type warps = a.warps_per_block();
    const size_type first_row = blk * a.config.block_rows;
    const size_type rows = std::min(a.config.block_rows, a.rows - first_row);
    const size_type s_begin = a.buffdispl[blk], s_end = a.buffdispl[blk + 1];
    const bool full = out.width == R;
    const vec zero = vec{} * V(0);
    const VectorEpilogue<V, vec> vep(ep);
    vec any[C];
    for (int c = 0; c < C; ++c) any[c] = zero;
    std::uint64_t partial_bits = 0;  // rows written by the scalar path (narrow tiles)
    const std::size_t part_size = std::size_t(a.config.block_rows + G) * R;
    if ((s_end - s_begin > 1 || !full) && scratch.part.size() < part_size) scratch.part.resize(part_size);
    const void* values = stored_values<Half>(a);
    const std::uint16_t* index = a.index.data();

    for (size_type s = s_begin; s < s_end; ++s) {
        const bool first = s == s_begin, last = s + 1 == s_end;
        const V* src = Direct ? nullptr : stage_rows<R>(a, s, in, scratch);
        const I* smap = a.map.data() + a.mapdispl[s];
        const V* direct = in.base + in.k0;
        const size_type* wd = a.warpdispl.data() + s * warps;
        for (size_type wi = 0; wi * L < rows; ++wi) {
            const size_type m0 = wd[wi], m1 = wd[wi + 1];
            for (size_type lane0 = 0; lane0 < L && wi * L + lane0 < rows; lane0 += G) {
                const size_type row0 = wi * L + lane0;
                V* keep = scratch.part.data() + row0 * R;
                vec acc[G][C];
                start_group<G, C, VW, R>(acc, first, keep);
                for (size_type m = m0; m < m1; ++m) {
                    const size_type e0 = m * L + lane0;
                    const std::uint16_t* ix = index + e0;
#pragma GCC unroll 8
                    for (int g = 0; g < G; ++g) {
                        const V* x = Direct ? direct + size_type(smap[ix[g]]) * in.ld : src + size_type(ix[g]) * R;
                        const V w = stored_value<Half, V>(values, e0 + g);
#pragma GCC unroll 8
                        for (int c = 0; c < C; ++c) acc[g][c] += w * load_vec<vec>(x + c * VW);
                    }
                }
                if (!last || !full) {  // kept for the next stage, or for the scalar store
#pragma GCC unroll 8
                    for (int g = 0; g < G; ++g)
#pragma GCC unroll 8
                        for (int c = 0; c < C; ++c) store_vec(keep + g * R + c * VW, acc[g][c]);
                    if (last) {
                        const size_type valid = std::min<size_type>(G, rows - row0);
                        for (size_type g = 0; g < valid; ++g)
                            partial_bits |= write_row<Track, R>(keep + g * R, out, first_row + row0 + g, ep);
                    }
                    continue;
                }
                const int valid = static_cast<int>(std::min<size_type>(G, rows - row0));
#pragma GCC unroll 8
                for (int g = 0; g < G; ++g) {
                    if (g >= valid) break;
                    V* o = out.base + (first_row + row0 + g) * out.ld + out.k0;
#pragma GCC unroll 8
                    for (int c = 0; c < C; ++c) {
                        const vec y = vep.apply(acc[g][c], o + c * VW);
                        if constexpr (sizeof(vec) % cache_line == 0) {
                            if (out.stream) {
                                stream_lines(o + c * VW, &y, sizeof(vec));
                            } else {
                                store_vec(o + c * VW, y);
                            }
                        } else {
                            store_vec(o + c * VW, y);
                        }
                        if constexpr (Track) {
                            const vec mag = y < zero ? -y : y;
                            any[c] = any[c] > mag ? any[c] : mag;
                        }
                    }
                }
            }
        }
    }
    if constexpr (!Track) return 0;
    std::uint64_t bits = partial_bits;
    for (int c = 0; c < C; ++c)
        for (int k = 0; k < VW; ++k)
            if (any[c][k] != V(0)) bits |= std::uint64_t{1} << (c * VW + k);
    return bits;
}

/// One row block for R columns: the visible choice between the two designs (slot order for
/// R = 1 or when `slot_order`), and (when `stage` is false and the tile is full) between staged
/// and in-place rows of B. Half: A's values are IEEE half (widened as they are read).
template <bool Track, int R, bool Half, typename V, typename I>
std::uint64_t block_kernel_of(const TiledEll<V, I>& a, size_type blk, const InputColumns<V>& in,
                              const OutputColumns<V>& out, const Epilogue<V>& ep, BlockScratch<V>& scratch,
                              bool stage, bool slot_order) {
    if constexpr (R == 1) {
        return slot_order_block<Track, 1, Half>(a, blk, in, out, ep, scratch);
    } else {
        if (slot_order) return slot_order_block<Track, R, Half>(a, blk, in, out, ep, scratch);
        if (!stage && in.width == R) return register_block<Track, R, true, Half>(a, blk, in, out, ep, scratch);
        return register_block<Track, R, false, Half>(a, blk, in, out, ep, scratch);
    }
}

/// block_kernel_of for A's value storage.
template <bool Track, int R, typename V, typename I>
std::uint64_t block_kernel(const TiledEll<V, I>& a, size_type blk, const InputColumns<V>& in,
                           const OutputColumns<V>& out, const Epilogue<V>& ep, BlockScratch<V>& scratch,
                           bool stage = true, bool slot_order = false) {
    if (a.stores_half()) return block_kernel_of<Track, R, true>(a, blk, in, out, ep, scratch, stage, slot_order);
    return block_kernel_of<Track, R, false>(a, blk, in, out, ep, scratch, stage, slot_order);
}

/// Calls f.template operator()<R>() for a compiled register factor (cpu::register_factors);
/// throws InvalidInput for any other.
template <typename F>
void dispatch_register_factor(int r, F&& f) {
    switch (r) {
    case 1: return f.template operator()<1>();
    case 2: return f.template operator()<2>();
    case 4: return f.template operator()<4>();
    case 8: return f.template operator()<8>();
    case 12: return f.template operator()<12>();
    case 16: return f.template operator()<16>();
    case 32: return f.template operator()<32>();
    case 64: return f.template operator()<64>();
    default:
        TESSEL_INVALID_INPUT("register factor", 0,
                             std::to_string(r) + " is not one of the compiled factors 1, 2, 4, 8, 12, 16, 32, 64");
    }
}

}  // namespace detail
TESSEL_CPU_ISA_END
