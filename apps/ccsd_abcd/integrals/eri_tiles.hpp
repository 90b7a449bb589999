// The two-electron integrals as the B operand of the ladder GEMM, made tile by tile with libint2
// on the threads that need them and never stored whole. B's rows are the folded AO pairs λσ, its
// columns the folded pairs μν (ao_pairs.hpp), and B(λσ, μν) = ((λμ|σν) ± (λν|σμ)) / 2 between
// pair tiles of the same sign ±. Schwarz bounds decide which tiles exist.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "apps/ccsd_abcd/integrals/ao_pairs.hpp"
#include "apps/ccsd_abcd/integrals/atom_clusters.hpp"
#include "apps/ccsd_abcd/problem/tile_shape.hpp"
#include "apps/ccsd_abcd/problem/tile_source.hpp"

namespace libint2 {
class Engine;  // libint2/engine.h is heavy: only eri_tiles.cpp includes it
}

namespace tessel::abcd {

/// Schwarz bounds: Q(s, t) = sqrt(max |(st|st)|) over shell pairs, so |(λμ|σν)| <= Q(λμ) Q(σν).
struct SchwarzBounds {
    size_type shells = 0;
    std::vector<double> shell_pair;    ///< shells x shells
    size_type clusters = 0;
    std::vector<double> cluster_pair;  ///< max over the shell pairs of two clusters
    double max = 0;
    double pair(size_type s, size_type t) const { return shell_pair[static_cast<std::size_t>(s * shells + t)]; }
    double cluster(size_type c, size_type a) const {
        return cluster_pair[static_cast<std::size_t>(c * clusters + a)];
    }
};

/// The diagonal integrals (st|st) of every shell pair, over the OpenMP threads.
SchwarzBounds schwarz_bounds(const AoBasis& basis, const AoClusters& clusters);

/// B's shape over the pair tiles: tile ((c, d, ±), (a, b, ±)) exists when its signs agree and
/// Q(c, a) Q(d, b) or Q(c, b) Q(d, a) is at least threshold · max Q².
TileShape screened_b_shape(const SchwarzBounds& q, const AoPairs& pairs, double threshold);

/// libint2 needs one initialisation per process; this does it once, from any thread.
void initialize_libint();

/// A's tiles from a dense M x K matrix (column-major, K the folded pairs as B's rows), given once
/// the amplitudes are known; B's tiles from libint2 on demand (every shell quartet of a tile).
/// Tiles ((c,d,+),(a,b,+)) and ((c,d,-),(a,b,-)) need the same integrals: the pass that makes one
/// makes the other too and keeps it (up to a byte limit) until it is asked for.
class EriTiles final : public TileSource {
public:
    EriTiles(std::shared_ptr<const AoBasis> basis, std::shared_ptr<const AoClusters> clusters,
             std::shared_ptr<const SchwarzBounds> q, std::shared_ptr<const AoPairs> pairs, Tiling m);
    ~EriTiles() override;
    /// A = T_AO(ij, λσ) column-major, m.extent() x k.extent().
    void set_a(std::vector<double> a);
    void fill(Operand which, size_type ti, size_type tj, double* out) const override;
    void fill(Operand which, size_type ti, size_type tj, float* out) const override;
    std::string describe() const override;
    /// Bytes of tiles made ahead for the other sign that may be kept at once (default 256 MiB).
    void set_spare_limit(size_type bytes) { spare_limit_ = bytes; }
    /// The B tiles (row, column) this process will ask for: tiles of the other sign are kept
    /// only when they are among them (with MPI the other sign's column may be another rank's).
    /// Until it is called every tile counts as asked for.
    void set_planned(std::set<std::pair<size_type, size_type>> tiles);
    struct Counts {
        size_type made = 0;        ///< B tiles made by a libint2 pass
        size_type from_spare = 0;  ///< B tiles taken from the other sign's pass
        size_type spare_peak_bytes = 0;
    };
    Counts counts() const;

private:
    struct Target;
    bool take_spare(size_type ti, size_type tj, double* out) const;
    void fill_a(size_type ti, size_type tj, double* out) const;
    void fill_b(size_type ti, size_type tj, double* out) const;
    void add_quartets(libint2::Engine& engine, size_type c, size_type x, size_type d, size_type y, bool swapped,
                      const std::vector<Target>& targets) const;
    std::unique_ptr<libint2::Engine> take_engine() const;
    void give_back(std::unique_ptr<libint2::Engine> e) const;

    std::shared_ptr<const AoBasis> basis_;
    std::shared_ptr<const AoClusters> clusters_;
    std::shared_ptr<const SchwarzBounds> q_;
    std::shared_ptr<const AoPairs> pairs_;
    Tiling m_, k_;
    std::vector<double> a_;
    size_type max_nprim_ = 0;
    int max_l_ = 0;
    mutable std::mutex mutex_;
    mutable std::vector<std::unique_ptr<libint2::Engine>> engines_;  // idle ones, reused
    // Tiles made ahead for the other sign, by position; positions made already (never kept).
    mutable std::map<std::pair<size_type, size_type>, std::vector<double>> spare_;
    mutable std::set<std::pair<size_type, size_type>> made_;
    std::set<std::pair<size_type, size_type>> planned_;
    bool all_planned_ = true;
    mutable size_type spare_bytes_ = 0;
    size_type spare_limit_ = size_type(256) << 20;
    mutable Counts counts_;
};

}  // namespace tessel::abcd
