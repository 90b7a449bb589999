// The ladder term: problem, AO amplitudes, R back in the MO basis.
#include "apps/ccsd_abcd/integrals/ladder.hpp"

#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "apps/ccsd_abcd/inspector/inspector.hpp"
#include "core/app/machine.hpp"
#include "core/error.hpp"
#include "core/kernels/gemm_kernels.hpp"

namespace tessel::abcd {

namespace {

// The virtual coefficients in cluster order: column-major nbf x nvir and nvir x nbf.
struct Coefficients {
    std::vector<double> c;   // (λ, a) at λ + a·nbf
    std::vector<double> ct;  // (a, λ) at a + λ·nvir
};

Coefficients cluster_coefficients(const LadderProblem& lp, const Amplitudes& amp) {
    const auto pos = ao_positions(lp.basis->kinds(), amp.order, lp.basis->spherical);
    const size_type nbf = amp.nbf, nv = amp.nvir;
    Coefficients k;
    k.c.resize(static_cast<std::size_t>(nbf * nv));
    k.ct.resize(k.c.size());
    for (size_type p = 0; p < nbf; ++p) {
        const size_type row = pos[lp.clusters->libint_index[p]];
        for (size_type a = 0; a < nv; ++a) {
            k.c[p + a * nbf] = amp.c_vir[row * nv + a];
            k.ct[a + p * nv] = amp.c_vir[row * nv + a];
        }
    }
    return k;
}

}  // namespace

LadderProblem make_ladder_problem(const XyzMolecule& mol, const PairRows& rows, const LadderOptions& o) {
    if (!(o.threshold >= 0 && o.threshold < 1))
        TESSEL_INVALID_INPUT("--threshold", 0, "must be in [0, 1), not " + std::to_string(o.threshold));
    const size_type nocc = rows.nocc;
    if (nocc < 1) TESSEL_INVALID_INPUT(o.molecule_name, 0, "no occupied orbitals");
    LadderProblem lp;
    lp.nocc = nocc;
    lp.rows = rows;
    auto basis = std::make_shared<AoBasis>(load_basis(o.basis, mol, o.molecule_name, basis_directory(o.basis_dir)));
    auto clusters = std::make_shared<AoClusters>(cluster_atoms(*basis, mol, o.cluster_size, o.seed));
    auto bounds = std::make_shared<SchwarzBounds>(schwarz_bounds(*basis, *clusters));
    const Tiling mt = rows.tiling(o.pair_rows);
    auto pairs = std::make_shared<AoPairs>(make_ao_pairs(clusters->functions));
    const Tiling kt = pairs->tiling;
    TileShape b_shape = screened_b_shape(*bounds, *pairs, o.threshold);
    lp.problem = make_problem(mt, kt, TileShape::dense(mt.count(), kt.count()), kt, kt, std::move(b_shape));
    lp.tiles = std::make_shared<EriTiles>(basis, clusters, bounds, pairs, mt);
    lp.pairs = std::move(pairs);
    lp.problem.values = lp.tiles;
    lp.problem.seed = o.seed;
    std::ostringstream d;
    d << "ladder term of " << mol.formula() << " (" << o.molecule_name << ", " << basis->name << ", "
      << basis->functions << " basis functions in " << clusters->functions.count() << " atom clusters, "
      << nocc << " occupied, " << (rows.symmetric ? "pairs i <= j" : "all pairs ij") << ", Schwarz threshold " << o.threshold << ")";
    lp.problem.description = d.str();
    lp.basis = std::move(basis);
    lp.clusters = std::move(clusters);
    lp.bounds = std::move(bounds);
    return lp;
}

ScreenedB screened_b(const LadderProblem& lp) {
    const AoPairs& ao = *lp.pairs;
    const Tiling& kt = ao.tiling;
    ScreenedB out;
    double all = 0, kept = 0;
    for (int sign : {1, -1}) {
        double extent = 0;
        size_type count = 0;
        for (size_type t = 0; t < kt.count(); ++t)
            if (ao.tiles[static_cast<std::size_t>(t)].sign == sign) extent += double(kt.size(t)), ++count;
        all += extent * extent;
        out.tiles += count * count;
    }
    const TileShape& b = lp.problem.b_shape;
    out.kept_tiles = b.nnz();
    for (size_type k = 0; k < b.rows(); ++k)
        for (size_type e = b.row_ptr()[k]; e < b.row_ptr()[k + 1]; ++e)
            kept += double(kt.size(k)) * double(kt.size(b.col_idx()[e]));
    out.density = all > 0 ? kept / all : 0.0;
    return out;
}

void set_amplitudes(LadderProblem& lp, const Amplitudes& amp, const std::string& where) {
    if (amp.nbf != lp.basis->functions)
        TESSEL_INVALID_INPUT(where + ":/c_vir", 0,
                             std::to_string(amp.nbf) + " rows, but basis " + lp.basis->name + " has " +
                                 std::to_string(lp.basis->functions) + " functions on this molecule");
    if (amp.nocc != lp.nocc)
        TESSEL_INVALID_INPUT(where + ":/t2", 0, "nocc = " + std::to_string(amp.nocc) + ", the problem was made for " +
                                                    std::to_string(lp.nocc));
    if (lp.rows.symmetric) {
        const double asym = pair_asymmetry(amp);
        if (asym > pair_symmetry_tolerance) {
            char text[200];
            std::snprintf(text, sizeof text,
                          "the problem was made for pairs i <= j, but t2[i,j,c,d] - t2[j,i,d,c] is up to %.1e of "
                          "max |t2| (at most %.0e)",
                          asym, pair_symmetry_tolerance);
            TESSEL_INVALID_INPUT(where + ":/t2", 0, text);
        }
    }
    const Coefficients k = cluster_coefficients(lp, amp);
    const AoPairs& ao = *lp.pairs;
    const size_type K = ao.tiling.extent();
    const auto pairs = lp.rows.pairs();
    const size_type nbf = amp.nbf, nv = amp.nvir, M = lp.rows.count();
    std::vector<double> a(static_cast<std::size_t>(M * K));
    std::vector<int> sign(static_cast<std::size_t>(K));
    for (size_type x = 0; x < K; ++x) sign[x] = ao.sign_of(x);
    std::vector<double> u(static_cast<std::size_t>(nbf * nv)), y(static_cast<std::size_t>(nbf * nbf));
    for (size_type row = 0; row < M; ++row) {
        const auto [i, j] = pairs[static_cast<std::size_t>(row)];
        // t2[i,j] row-major is t_ijᵀ column-major: U = C · t_ijᵀ, then Y = U · Cᵀ = (C t Cᵀ)ᵀ
        // column-major, so y[λ·nbf + σ] = T(ij, λσ).
        const double* t = amp.t2.data() + (i * amp.nocc + j) * nv * nv;
        cpu::gemm(nbf, nv, nv, 1.0, k.c.data(), nbf, t, nv, 0.0, u.data(), nbf);
        cpu::gemm(nbf, nbf, nv, 1.0, u.data(), nbf, k.ct.data(), nv, 0.0, y.data(), nbf);
        // The folded pairs (ao_pairs.hpp): T(λσ) ± T(σλ), T(λλ) once.
        for (size_type x = 0; x < K; ++x) {
            const size_type l = ao.first[x], s = ao.second[x];
            a[x * M + row] = l == s ? y[l * nbf + l] : y[l * nbf + s] + sign[x] * y[s * nbf + l];
        }
    }
    lp.tiles->set_a(std::move(a));
}

void plan_b_tiles(LadderProblem& lp, const Plan& plan, int rank) {
    std::set<std::pair<size_type, size_type>> tiles;
    const TileShape& b = lp.problem.b_shape;
    for (const BlockPlan& block : plan.processes[static_cast<std::size_t>(rank)].blocks)
        for (size_type pos : block.b_tiles) tiles.emplace(b.row_of(pos), b.col_idx()[pos]);
    lp.tiles->set_planned(std::move(tiles));
}

template <typename T>
std::vector<double> ladder_from_tiles(const LadderProblem& lp, const Amplitudes& amp, const TileShape& c_shape,
                                      const TileStore<T>& c_tiles) {
    const AoPairs& ao = *lp.pairs;
    const Tiling& mt = lp.problem.m_tiling;
    const size_type nbf = amp.nbf, nv = amp.nvir, no = amp.nocc;
    const auto pairs = lp.rows.pairs();
    const Coefficients k = cluster_coefficients(lp, amp);
    std::vector<double> out(static_cast<std::size_t>(no * no * nv * nv));
    std::vector<double> v(static_cast<std::size_t>(nbf * nv)), r_mo(static_cast<std::size_t>(nv * nv));
    // One tile row of C at a time: R(ij, μν) dense for its rows, [ij][μ][ν] in cluster order
    // (tiles C does not have are zero), then back to the MO basis.
    for (size_type ti = 0; ti < c_shape.rows(); ++ti) {
        const size_type rows = mt.size(ti);
        std::vector<double> r_ao(static_cast<std::size_t>(rows * nbf * nbf), 0.0);
        // R(μν) = R+(μν) + R-(μν), R(νμ) = R+(μν) - R-(μν) (ao_pairs.hpp).
        for (size_type e = c_shape.row_ptr()[ti]; e < c_shape.row_ptr()[ti + 1]; ++e) {
            const size_type tj = c_shape.col_idx()[e];
            const T* tile = c_tiles[static_cast<std::size_t>(e)].data();
            const int sign = ao.tiles[static_cast<std::size_t>(tj)].sign;
            for (size_type x = 0; x < ao.tiling.size(tj); ++x) {
                const size_type g = ao.tiling.offset(tj) + x, mu = ao.first[g], nu = ao.second[g];
                const T* col = tile + x * rows;
                double* r_mn = r_ao.data() + mu * nbf + nu;
                double* r_nm = r_ao.data() + nu * nbf + mu;
                for (size_type r = 0; r < rows; ++r) r_mn[r * nbf * nbf] += col[r];
                if (mu == nu) continue;
                for (size_type r = 0; r < rows; ++r) r_nm[r * nbf * nbf] += sign * double(col[r]);
            }
        }
        for (size_type r = 0; r < rows; ++r) {
            const auto [i, j] = pairs[static_cast<std::size_t>(mt.offset(ti) + r)];
            // r_ao_ij read column-major is R_ijᵀ; Cᵀ R_ijᵀ C column-major is R_ij row-major.
            cpu::gemm(nbf, nv, nbf, 1.0, r_ao.data() + r * nbf * nbf, nbf, k.c.data(), nbf, 0.0, v.data(), nbf);
            cpu::gemm(nv, nv, nbf, 1.0, k.ct.data(), nv, v.data(), nbf, 0.0, r_mo.data(), nv);
            double* ij = out.data() + (i * no + j) * nv * nv;
            std::copy(r_mo.begin(), r_mo.end(), ij);
            if (!lp.rows.symmetric || i == j) continue;
            double* ji = out.data() + (j * no + i) * nv * nv;  // R[j,i,b,a] = R[i,j,a,b]
            for (size_type x = 0; x < nv; ++x)
                for (size_type y = 0; y < nv; ++y) ji[y * nv + x] = r_mo[x * nv + y];
        }
    }
    return out;
}

template std::vector<double> ladder_from_tiles<double>(const LadderProblem&, const Amplitudes&, const TileShape&,
                                                       const TileStore<double>&);
template std::vector<double> ladder_from_tiles<float>(const LadderProblem&, const Amplitudes&, const TileShape&,
                                                      const TileStore<float>&);

std::vector<double> evaluate_ladder(const XyzMolecule& mol, const Amplitudes& amp, const LadderOptions& o,
                                    Backend backend) {
    LadderProblem lp = make_ladder_problem(mol, choose_pair_rows(amp, !o.all_pairs), o);
    set_amplitudes(lp, amp, "amplitudes");
    InspectorOptions io;
    io.device_memory = static_cast<size_type>(host_memory_bytes()) / 4;
    const Plan plan = inspect(lp.problem, io);
    plan_b_tiles(lp, plan, 0);
    auto a = make_local_a<double>(lp.problem, plan.grid, 0);
    TileStore<double> c;
    ExecutorOptions eo;
    eo.backend = backend;
    execute<double>(lp.problem, plan, a, c, eo);
    return ladder_from_tiles(lp, amp, plan.product.c_shape, c);
}

}  // namespace tessel::abcd
