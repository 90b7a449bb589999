// Integral tiles: Schwarz bounds, the screened shape of B, and B's tiles shell quartet by shell
// quartet from a pool of libint2 engines (an engine is not thread-safe; making one per tile would
// cost more than small tiles).
#include "apps/ccsd_abcd/integrals/eri_tiles.hpp"

#include <omp.h>

#include <libint2/engine.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.hpp"

namespace tessel::abcd {

namespace {

libint2::Engine coulomb_engine(size_type max_nprim, int max_l) {
    return libint2::Engine(libint2::Operator::coulomb, static_cast<int>(max_nprim), max_l, 0);
}

size_type max_nprim(const AoBasis& b) {
    size_type n = 1;
    for (const auto& s : b.shells) n = std::max(n, static_cast<size_type>(s.nprim()));
    return n;
}

int max_l(const AoBasis& b) {
    int l = 0;
    for (const auto& s : b.shells) l = std::max(l, s.contr[0].l);
    return l;
}

}  // namespace

void initialize_libint() {
    static std::once_flag once;
    std::call_once(once, [] { libint2::initialize(); });
}

SchwarzBounds schwarz_bounds(const AoBasis& basis, const AoClusters& clusters) {
    initialize_libint();
    SchwarzBounds q;
    q.shells = static_cast<size_type>(basis.shells.size());
    q.shell_pair.assign(static_cast<std::size_t>(q.shells * q.shells), 0.0);
    const size_type nprim = max_nprim(basis);
    const int l = max_l(basis);
#pragma omp parallel
    {
        libint2::Engine engine = coulomb_engine(nprim, l);
        const auto& buf = engine.results();
#pragma omp for schedule(dynamic, 1)
        for (size_type s = 0; s < q.shells; ++s)
            for (size_type t = 0; t <= s; ++t) {
                const auto& a = basis.shells[s];
                const auto& b = basis.shells[t];
                engine.compute(a, b, a, b);
                double m = 0;
                if (buf[0]) {
                    const std::size_t n = a.size() * b.size();
                    for (std::size_t x = 0; x < n; ++x) m = std::max(m, std::abs(buf[0][x * n + x]));
                }
                q.shell_pair[s * q.shells + t] = q.shell_pair[t * q.shells + s] = std::sqrt(m);
            }
    }
    q.clusters = clusters.functions.count();
    q.cluster_pair.assign(static_cast<std::size_t>(q.clusters * q.clusters), 0.0);
    for (size_type c = 0; c < q.clusters; ++c)
        for (size_type a = 0; a < q.clusters; ++a) {
            double m = 0;
            for (size_type s : clusters.shells[c])
                for (size_type t : clusters.shells[a]) m = std::max(m, q.pair(s, t));
            q.cluster_pair[c * q.clusters + a] = m;
        }
    q.max = q.cluster_pair.empty() ? 0 : *std::max_element(q.cluster_pair.begin(), q.cluster_pair.end());
    return q;
}

TileShape screened_b_shape(const SchwarzBounds& q, const AoPairs& pairs, double threshold) {
    const double cutoff = threshold * q.max * q.max;
    const auto n = static_cast<size_type>(pairs.tiles.size());
    std::vector<std::pair<size_type, size_type>> tiles;
    for (size_type k = 0; k < n; ++k)
        for (size_type t = 0; t < n; ++t) {
            const AoPairTile &r = pairs.tiles[k], &s = pairs.tiles[t];
            if (r.sign != s.sign) continue;
            const double bound = std::max(q.cluster(r.c, s.c) * q.cluster(r.d, s.d), q.cluster(r.c, s.d) * q.cluster(r.d, s.c));
            if (bound >= cutoff) tiles.emplace_back(k, t);
        }
    return TileShape::from_pairs(n, n, std::move(tiles), "B (screened integrals)");
}

EriTiles::EriTiles(std::shared_ptr<const AoBasis> basis, std::shared_ptr<const AoClusters> clusters,
                   std::shared_ptr<const SchwarzBounds> q, std::shared_ptr<const AoPairs> pairs, Tiling m)
    : basis_(std::move(basis)), clusters_(std::move(clusters)), q_(std::move(q)), pairs_(std::move(pairs)),
      m_(std::move(m)), k_(pairs_->tiling) {
    initialize_libint();
    max_nprim_ = max_nprim(*basis_);
    max_l_ = max_l(*basis_);
}

EriTiles::~EriTiles() = default;

void EriTiles::set_a(std::vector<double> a) {
    TESSEL_ENSURE_DIMS(static_cast<size_type>(a.size()) == m_.extent() * k_.extent(),
                       "A holds " + std::to_string(a.size()) + " values, M x K is " +
                           std::to_string(m_.extent() * k_.extent()));
    a_ = std::move(a);
}

std::unique_ptr<libint2::Engine> EriTiles::take_engine() const {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!engines_.empty()) {
            auto e = std::move(engines_.back());
            engines_.pop_back();
            return e;
        }
    }
    return std::make_unique<libint2::Engine>(coulomb_engine(max_nprim_, max_l_));
}

void EriTiles::give_back(std::unique_ptr<libint2::Engine> e) const {
    std::lock_guard<std::mutex> lock(mutex_);
    engines_.push_back(std::move(e));
}

void EriTiles::fill_a(size_type ti, size_type tj, double* out) const {
    if (a_.empty()) TESSEL_INVALID_INPUT("amplitudes", 0, "A's tiles were asked for before the amplitudes were given");
    const size_type rows = m_.size(ti), r0 = m_.offset(ti), M = m_.extent();
    for (size_type c = 0; c < k_.size(tj); ++c)
        std::memcpy(out + c * rows, a_.data() + (k_.offset(tj) + c) * M + r0, sizeof(double) * rows);
}

// One tile a pass of shell quartets adds to: its entries of the local pairs (λσ) and (μν)
// (-1: none), its sign, where it goes (column-major, leading dimension ld).
struct EriTiles::Target {
    std::vector<std::int64_t> rows, cols;
    double sign = 1;
    size_type ld = 0;
    double* out = nullptr;
};

// Adds (λμ|σν) / 2 for λ in cluster c, μ in x, σ in d, ν in y to every target at the entry
// (rows[l·|d| + s], cols[m·|y| + v]); swapped: sign · (λν|σμ) / 2, at cols[v·|x| + m] (the second
// term of B±). libint2 gives a quartet row-major over λ, μ, σ, ν.
void EriTiles::add_quartets(libint2::Engine& engine, size_type c, size_type x, size_type d, size_type y,
                            bool swapped, const std::vector<Target>& targets) const {
    const auto& buf = engine.results();
    const auto& shells = basis_->shells;
    const Tiling& f = clusters_->functions;
    const size_type nd = f.size(d), ny = f.size(y), nx = f.size(x);
    // Each shell's first function inside its cluster.
    auto starts = [&](size_type cluster) {
        std::vector<size_type> out;
        size_type at = 0;
        for (size_type s : clusters_->shells[cluster]) {
            out.push_back(at);
            at += static_cast<size_type>(shells[s].size());
        }
        return out;
    };
    const auto lc = starts(c), lx = starts(x), ld = starts(d), ly = starts(y);
    const auto &sc = clusters_->shells[c], &sx = clusters_->shells[x], &sd = clusters_->shells[d],
               &sy = clusters_->shells[y];
    // Whether any pair of the two shells' functions is an entry of a target (a diagonal pair
    // tile holds only λ <= σ: half of its shell pairs have none).
    auto any = [&](bool of_rows, size_type p0, size_type np, size_type q0, size_type nq, size_type width) {
        for (const Target& t : targets) {
            const auto& index = of_rows ? t.rows : t.cols;
            for (size_type p = p0; p < p0 + np; ++p)
                for (size_type q = q0; q < q0 + nq; ++q)
                    if (index[static_cast<std::size_t>(p * width + q)] >= 0) return true;
        }
        return false;
    };
    for (std::size_t i = 0; i < sc.size(); ++i)
        for (std::size_t k = 0; k < sd.size(); ++k) {
            const auto &S1 = shells[sc[i]], &S3 = shells[sd[k]];
            const size_type n1 = S1.size(), n3 = S3.size();
            if (!any(true, lc[i], n1, ld[k], n3, nd)) continue;
            for (std::size_t j = 0; j < sx.size(); ++j)
                for (std::size_t l = 0; l < sy.size(); ++l) {
                    const auto &S2 = shells[sx[j]], &S4 = shells[sy[l]];
                    const size_type n2 = S2.size(), n4 = S4.size();
                    if (swapped ? !any(false, ly[l], n4, lx[j], n2, nx) : !any(false, lx[j], n2, ly[l], n4, ny)) continue;
                    engine.compute(S1, S2, S3, S4);
                    if (!buf[0]) continue;  // libint2 screened it out: zero
                    const double* v = buf[0];
                    for (const Target& t : targets) {
                        const double factor = 0.5 * (swapped ? t.sign : 1.0);
                        for (size_type f1 = 0; f1 < n1; ++f1)
                            for (size_type f3 = 0; f3 < n3; ++f3) {
                                const std::int64_t row = t.rows[static_cast<std::size_t>((lc[i] + f1) * nd + ld[k] + f3)];
                                if (row < 0) continue;
                                double* out = t.out + row;
                                for (size_type f2 = 0; f2 < n2; ++f2) {
                                    const double* src = v + ((f1 * n2 + f2) * n3 + f3) * n4;
                                    for (size_type f4 = 0; f4 < n4; ++f4) {
                                        const size_type m = lx[j] + f2, nu = ly[l] + f4;
                                        const std::int64_t col = swapped ? t.cols[static_cast<std::size_t>(nu * nx + m)]
                                                                         : t.cols[static_cast<std::size_t>(m * ny + nu)];
                                        if (col >= 0) out[static_cast<size_type>(col) * t.ld] += factor * src[f4];
                                    }
                                }
                            }
                    }
                }
        }
}

bool EriTiles::take_spare(size_type ti, size_type tj, double* out) const {
    std::lock_guard<std::mutex> lock(mutex_);
    made_.emplace(ti, tj);
    const auto it = spare_.find({ti, tj});
    if (it == spare_.end()) return false;
    std::copy(it->second.begin(), it->second.end(), out);
    spare_bytes_ -= static_cast<size_type>(it->second.size() * sizeof(double));
    spare_.erase(it);
    ++counts_.from_spare;
    return true;
}

void EriTiles::set_planned(std::set<std::pair<size_type, size_type>> tiles) {
    std::lock_guard<std::mutex> lock(mutex_);
    planned_ = std::move(tiles);
    all_planned_ = false;
}

EriTiles::Counts EriTiles::counts() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return counts_;
}

// Tile ((c, d, ±), (a, b, ±)): rows λσ (λ in c, σ in d), columns μν (μ in a, ν in b), value
// ((λμ|σν) ± (λν|σμ)) / 2, column-major: the shell quartets of (c a|d b), then those of (c b|d a),
// which make the tile of the other sign as well: kept when there is room and it was not made yet.
// Every quartet of a kept tile is made: skipping those below the tile's cutoff too cost 3e-7 of
// max |R| on butane / cc-pVDZ (the bounds of single quartets add up over λσ).
void EriTiles::fill_b(size_type ti, size_type tj, double* out) const {
    const AoPairTile &r = pairs_->tiles[static_cast<std::size_t>(ti)], &s = pairs_->tiles[static_cast<std::size_t>(tj)];
    std::fill(out, out + k_.size(ti) * k_.size(tj), 0.0);
    if (r.sign != s.sign) return;  // B is block diagonal in the sign
    if (take_spare(ti, tj, out)) return;
    std::vector<Target> targets{{pairs_->local_index(ti), pairs_->local_index(tj), double(r.sign), k_.size(ti), out}};
    const std::int64_t pi = pairs_->partner(ti), pj = pairs_->partner(tj);
    std::vector<double> other;
    if (pi >= 0 && pj >= 0) {
        const auto oi = static_cast<size_type>(pi), oj = static_cast<size_type>(pj);
        const size_type bytes = k_.size(oi) * k_.size(oj) * static_cast<size_type>(sizeof(double));
        bool keep = false;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            keep = spare_bytes_ + bytes <= spare_limit_ && !made_.count({oi, oj}) && !spare_.count({oi, oj}) &&
                   (all_planned_ || planned_.count({oi, oj}));
            if (keep) spare_bytes_ += bytes;  // reserved now, so that threads together stay under the limit
        }
        if (keep) {
            other.assign(static_cast<std::size_t>(k_.size(oi) * k_.size(oj)), 0.0);
            targets.push_back({pairs_->local_index(oi), pairs_->local_index(oj), double(-r.sign), k_.size(oi), other.data()});
        }
    }
    auto engine = take_engine();
    add_quartets(*engine, r.c, s.c, r.d, s.d, false, targets);
    add_quartets(*engine, r.c, s.d, r.d, s.c, true, targets);
    give_back(std::move(engine));
    std::lock_guard<std::mutex> lock(mutex_);
    ++counts_.made;
    if (other.empty()) return;
    const std::pair<size_type, size_type> at{static_cast<size_type>(pi), static_cast<size_type>(pj)};
    if (made_.count(at)) {  // another thread made it meanwhile
        spare_bytes_ -= static_cast<size_type>(other.size() * sizeof(double));
        return;
    }
    spare_.emplace(at, std::move(other));
    counts_.spare_peak_bytes = std::max(counts_.spare_peak_bytes, spare_bytes_);
}

void EriTiles::fill(Operand which, size_type ti, size_type tj, double* out) const {
    if (which == Operand::a) fill_a(ti, tj, out);
    else fill_b(ti, tj, out);
}

void EriTiles::fill(Operand which, size_type ti, size_type tj, float* out) const {
    const Tiling& rows = which == Operand::a ? m_ : k_;
    const Tiling& cols = k_;
    std::vector<double> tmp(static_cast<std::size_t>(rows.size(ti) * cols.size(tj)));
    fill(which, ti, tj, tmp.data());
    std::transform(tmp.begin(), tmp.end(), out, [](double x) { return static_cast<float>(x); });
}

std::string EriTiles::describe() const {
    return "two-electron integrals (" + basis_->name + ") from libint2 on demand, amplitudes in the AO basis";
}

}  // namespace tessel::abcd
