// The matrices the SpMM benchmark runs on: built-in generator sets and Matrix Market files.
#pragma once

#include <string>
#include <vector>

#include "bench/spmm/kernels.hpp"

namespace tessel::bench {

/// One input: a generator with its parameters, or a Matrix Market file.
struct MatrixSpec {
    std::string kind;        // "stencil", "random", "powerlaw", "banded" or "file"
    size_type size = 0;      // rows (stencil: rounded to a square grid)
    size_type per_row = 8;   // random: entries per row; powerlaw: mean; banded: 2·half width
    std::string path;        // kind == "file"

    /// "stencil_2d 1024x1024", "random 1048576 x8", the file name, ...
    std::string label() const;
};

/// The default set: about 1M rows each, so that A + B + C are many times a 32 MB L3 for
/// K >= 16. quick = the small set for scripts/demo.sh (64K rows).
std::vector<MatrixSpec> builtin_matrices(bool quick);

/// Throws InvalidInput for an unknown generator name.
MatrixSpec generator_spec(const std::string& kind, size_type size, size_type per_row);

/// Builds (or reads) the matrix with 32-bit indices, columns sorted. Reading a file needs
/// the io library; without it this throws NotCompiled.
template <typename V>
Csr<V, Index> make_matrix(const MatrixSpec& spec);

}  // namespace tessel::bench
