// Where the values of the tiles of A and B come from: the seeded function of their coordinates,
// or the tiles stored in a problem file.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "apps/ccsd_abcd/problem/tile_shape.hpp"
#include "apps/ccsd_abcd/problem/tile_values.hpp"
#include "apps/ccsd_abcd/problem/tiling.hpp"

namespace tessel::io {
class File;
}

namespace tessel::abcd {

/// Makes tile (ti, tj) of an operand, column-major, into `out` (size(ti) x size(tj) entries).
/// Implementations are safe to call from several threads at once.
class TileSource {
public:
    virtual ~TileSource() = default;
    virtual void fill(Operand which, size_type ti, size_type tj, double* out) const = 0;
    virtual void fill(Operand which, size_type ti, size_type tj, float* out) const = 0;
    /// "seeded function (seed 7)" or "stored in problem.h5".
    virtual std::string describe() const = 0;
};

/// The seeded function of element coordinates (tile_values.hpp): nothing is stored, any rank
/// makes any tile.
class GeneratedTiles final : public TileSource {
public:
    /// The tilings of A (rows m, columns k) and B (rows k, columns n).
    GeneratedTiles(std::uint64_t seed, Tiling m, Tiling k, Tiling n);
    void fill(Operand which, size_type ti, size_type tj, double* out) const override;
    void fill(Operand which, size_type ti, size_type tj, float* out) const override;
    std::string describe() const override;
    std::uint64_t seed() const { return seed_; }

private:
    template <typename T>
    void fill_any(Operand which, size_type ti, size_type tj, T* out) const;
    std::uint64_t seed_;
    Tiling m_, k_, n_;
};

/// Tiles read from a problem file: datasets /a/values and /b/values hold the non-zero tiles
/// one after the other in shape order, each column-major. Reads are serialised (the HDF5
/// library is not thread-safe).
class StoredTiles final : public TileSource {
public:
    /// Opens `path` for the operands with these tilings and shapes. Throws InvalidInput
    /// "path:/a/values: holds 10 values, the shape needs 12", Hdf5Error.
    StoredTiles(const std::string& path, Tiling m, Tiling k, Tiling n, TileShape a, TileShape b);
    ~StoredTiles() override;
    void fill(Operand which, size_type ti, size_type tj, double* out) const override;
    void fill(Operand which, size_type ti, size_type tj, float* out) const override;
    std::string describe() const override;

private:
    std::vector<double> read(Operand which, size_type ti, size_type tj) const;
    std::string path_;
    std::unique_ptr<io::File> file_;
    Tiling m_, k_, n_;
    TileShape a_, b_;
    std::vector<size_type> a_offsets_, b_offsets_;  // start of every tile in the values
    mutable std::mutex mutex_;
};

}  // namespace tessel::abcd
