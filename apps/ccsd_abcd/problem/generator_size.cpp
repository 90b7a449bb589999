// Memory estimates of the generators from their options (no allocation).
#include "apps/ccsd_abcd/problem/generator_size.hpp"

#include <algorithm>
#include <sstream>

#include "core/app/byte_size.hpp"
#include "core/error.hpp"

namespace tessel::abcd {

namespace {
// Per tile position while a shape is drawn: alive flag, shuffled order, the kept pair and the
// shape's column index.
constexpr double bytes_per_position = 1 + 8 + 16 + 8;
// Per tile of a tiling: size and offset, in the problem and in the tile source's copies.
constexpr double bytes_per_tile = 16 * 3;

double max_tiles(size_type extent, size_type tile_min) {
    return double(extent) / double(std::max<size_type>(1, tile_min)) + 1;
}
}  // namespace

double synthetic_bytes_estimate(const SyntheticOptions& o) {
    const double rows = max_tiles(o.m, o.tile_min), cols = max_tiles(o.n, o.tile_min);
    return (rows * cols + cols * cols) * bytes_per_position + (rows + 2 * cols) * bytes_per_tile;
}

namespace {
struct MoleculeCounts {
    double functions = 0, bonds = 0, ao_clusters = 0, occupied_clusters = 0;
};
MoleculeCounts molecule_counts(const MoleculeOptions& o) {
    const double per_c = o.basis == "minimal" ? 5 : 14, per_h = o.basis == "minimal" ? 1 : 5;
    const double cs = double(std::max<size_type>(1, o.cluster_size));
    MoleculeCounts c;
    c.functions = per_c * o.length + per_h * (2.0 * o.length + 2);
    c.bonds = 3.0 * o.length + 1;
    // As the generator rounds: (count + size / 2) / size, at least one.
    c.ao_clusters = std::max(1.0, double(static_cast<long long>((c.functions + double(o.cluster_size / 2)) / cs)));
    c.occupied_clusters = std::max(1.0, double(static_cast<long long>((c.bonds + double(o.cluster_size / 2)) / cs)));
    return c;
}
}  // namespace

double molecule_bytes_estimate(const MoleculeOptions& o) {
    const MoleculeCounts c = molecule_counts(o);
    const double cd = c.ao_clusters * c.ao_clusters;
    const double ij = c.occupied_clusters * c.occupied_clusters;
    // cd tiles in the K and N tilings (and their copies), V with at least one tile per cd,
    // and up to one ij pair per pair of occupied clusters.
    return cd * (2 * bytes_per_tile + bytes_per_position) + ij * (bytes_per_tile + bytes_per_position);
}

void check_synthetic_size(const SyntheticOptions& o, size_type memory) {
    const double need = synthetic_bytes_estimate(o);
    if (need <= double(memory)) return;
    std::ostringstream s;
    s << "the synthetic generator needs about " << app::format_bytes(need) << " for M=" << o.m << " N=K=" << o.n
      << " in tiles of " << o.tile_min << ".." << o.tile_max << " (up to " << static_cast<long long>(max_tiles(o.m, o.tile_min))
      << " x " << static_cast<long long>(max_tiles(o.n, o.tile_min)) << " tile positions in A), more than the "
      << app::format_bytes(double(memory)) << " of memory of this machine";
    TESSEL_INVALID_INPUT(double(o.m) >= double(o.n) ? "--m" : "--n", 0, s.str());
}

void check_molecule_size(const MoleculeOptions& o, size_type memory) {
    const double need = molecule_bytes_estimate(o);
    if (need <= double(memory)) return;
    const MoleculeCounts c = molecule_counts(o);
    std::ostringstream s;
    s << "the molecule generator needs at least " << app::format_bytes(need) << " for C" << o.length << " in clusters of ~"
      << o.cluster_size << " (" << static_cast<long long>(c.ao_clusters) << " AO clusters, so "
      << static_cast<long long>(c.ao_clusters * c.ao_clusters) << " tiles of cd), more than the "
      << app::format_bytes(double(memory)) << " of memory of this machine";
    TESSEL_INVALID_INPUT("--length", 0, s.str());
}

}  // namespace tessel::abcd
