// The two-electron integrals as the B operand of the ladder GEMM, made tile by tile with libint2
// on the threads that need them and never stored whole. B's rows are the folded AO pairs λσ, its
// columns the folded pairs μν (ao_pairs.hpp), and B(λσ, μν) = ((λμ|σν) ± (λν|σμ)) / 2 between
// pair tiles of the same sign ±. Schwarz bounds decide which tiles exist.
#pragma once

#include <memory>
#include <mutex>
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

private:
    void fill_a(size_type ti, size_type tj, double* out) const;
    void fill_b(size_type ti, size_type tj, double* out) const;
    void add_quartets(libint2::Engine& engine, size_type c, size_type x, size_type d, size_type y,
                      const std::vector<std::int64_t>& rows, const std::vector<std::int64_t>& cols, bool swapped,
                      double factor, size_type ld, double* out) const;
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
};

}  // namespace tessel::abcd
