// Occupied pairs as rows: i <= j when t2 allows it.
#include "apps/ccsd_abcd/integrals/pair_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tessel::abcd {

std::vector<std::pair<size_type, size_type>> PairRows::pairs() const {
    std::vector<std::pair<size_type, size_type>> out;
    out.reserve(static_cast<std::size_t>(count()));
    for (size_type i = 0; i < nocc; ++i)
        for (size_type j = symmetric ? i : 0; j < nocc; ++j) out.emplace_back(i, j);
    return out;
}

Tiling PairRows::tiling(size_type target) const {
    const size_type m = count();
    const size_type tiles = std::max<size_type>(1, (m + std::max<size_type>(1, target) - 1) / std::max<size_type>(1, target));
    std::vector<size_type> sizes;
    for (size_type t = 0; t < tiles; ++t) sizes.push_back(m * (t + 1) / tiles - m * t / tiles);
    return Tiling::from_sizes(std::move(sizes), "ij pairs");
}

double pair_asymmetry(const Amplitudes& amp) {
    const size_type no = amp.nocc, nv = amp.nvir;
    auto at = [&](size_type i, size_type j, size_type c, size_type d) {
        return amp.t2[static_cast<std::size_t>(((i * no + j) * nv + c) * nv + d)];
    };
    double largest = 0, worst = 0;
    for (double x : amp.t2) largest = std::max(largest, std::abs(x));
    for (size_type i = 0; i < no; ++i)
        for (size_type j = i; j < no; ++j)
            for (size_type c = 0; c < nv; ++c)
                for (size_type d = 0; d < nv; ++d) worst = std::max(worst, std::abs(at(i, j, c, d) - at(j, i, d, c)));
    return largest > 0 ? worst / largest : 0.0;
}

PairRows choose_pair_rows(const Amplitudes& amp, bool allow_symmetry, std::string* note) {
    PairRows rows{amp.nocc, false};
    if (note) note->clear();
    if (!allow_symmetry) return rows;
    const double asym = pair_asymmetry(amp);
    rows.symmetric = asym <= pair_symmetry_tolerance;
    if (!rows.symmetric && note) {
        char text[320];
        std::snprintf(text, sizeof text,
                      "t2 is not symmetric (|t2[i,j,c,d] - t2[j,i,d,c]| up to %.1e of max |t2|, above %.0e): "
                      "all %lld pairs ij are contracted, not the %lld with i <= j",
                      asym, pair_symmetry_tolerance, static_cast<long long>(amp.nocc * amp.nocc),
                      static_cast<long long>(amp.nocc * (amp.nocc + 1) / 2));
        *note = text;
    }
    return rows;
}

}  // namespace tessel::abcd
