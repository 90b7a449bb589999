// Writing R's shape, norms and tiles to HDF5.
#include "apps/ccsd_abcd/results/result_file.hpp"

#include "io/hdf5_file.hpp"

namespace tessel::abcd {

template <typename T>
void write_result(const std::string& path, const Problem& p, const TileShape& cs, const std::vector<double>& norms,
                  double flops, const TileStore<T>* tiles) {
    io::File f = io::File::create(path);
    f.write_attribute("/", "format", "tessel-abcd result");
    f.write_attribute("/", "problem", p.description);
    f.write_attribute<double>("/", "flops", flops);
    auto tiling = [&](const std::string& name, const Tiling& t) {
        std::vector<std::int64_t> s(t.sizes().begin(), t.sizes().end());
        f.write<std::int64_t>(name, {t.count()}, s.data());
    };
    tiling("/r/row_tiling", p.m_tiling);
    tiling("/r/col_tiling", p.n_tiling);
    f.write_attribute<std::int64_t>("/r", "rows", p.m());
    f.write_attribute<std::int64_t>("/r", "cols", p.n());
    std::vector<std::int64_t> pairs;
    for (size_type i = 0; i < cs.rows(); ++i)
        for (size_type e = cs.row_ptr()[i]; e < cs.row_ptr()[i + 1]; ++e) {
            pairs.push_back(i);
            pairs.push_back(cs.col_idx()[e]);
        }
    f.write<std::int64_t>("/r/tiles", {cs.nnz(), 2}, pairs.data());
    f.write<double>("/r/norms", {static_cast<size_type>(norms.size())}, norms.data());
    if (tiles) {
        std::vector<double> all;
        for (const auto& t : *tiles) all.insert(all.end(), t.begin(), t.end());
        f.write<double>("/r/values", {static_cast<size_type>(all.size())}, all.data());
    }
    f.commit();
}

template void write_result<double>(const std::string&, const Problem&, const TileShape&, const std::vector<double>&,
                                   double, const TileStore<double>*);
template void write_result<float>(const std::string&, const Problem&, const TileShape&, const std::vector<double>&,
                                  double, const TileStore<float>*);

}  // namespace tessel::abcd
