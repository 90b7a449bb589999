// The matrix of tessel-bench-dist: a generator (tomography, stencil, random, power law) or a
// Matrix Market file, in one of several orders, and the table comparing the orders.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/comm/topology.hpp"
#include "core/formats/csr.hpp"

namespace tessel::bench {

using BenchCsr = Csr<float, std::int32_t>;

struct MatrixSpec {
    std::string file;                 // Matrix Market file (needs tessel::io), else generator
    std::string generator = "tomo";  // tomo | stencil | random | powerlaw
    size_type n = 128;                // tomo: pixels (= angles = channels); stencil: side; others: rows
    bool transpose = false;           // tomo: the back-projection Aᵀ
    std::string order = "auto";      // auto | natural | hilbert | kmeans | metis | random
    size_type tile = 8;               // Hilbert tile
    std::uint64_t seed = 1;
};

/// The matrix in its natural order, a label, and the Hilbert orders when it has geometry.
struct BenchMatrix {
    std::string label;
    BenchCsr natural;
    bool geometric = false;
    std::vector<size_type> hilbert_rows, hilbert_cols;
};

/// Builds the matrix (identical on every rank). Throws InvalidInput on an unknown generator or
/// a file when this build has no tessel::io.
BenchMatrix build_matrix(const MatrixSpec& spec);

/// The matrix in `order` ("auto": hilbert when geometric, else natural). Throws InvalidInput
/// (hilbert without geometry, metis in a build without METIS, unknown order).
BenchCsr ordered(const BenchMatrix& m, const std::string& order, const MatrixSpec& spec);

/// One row per order (natural, random, hilbert when geometric, kmeans, metis when this build
/// has METIS): the seconds taken to compute the order and permute the matrix, tiled-ELL reuse
/// with 32-row blocks (the thesis's toy) and with 256-row blocks, and the inter-node bytes of direct and hierarchical reduction plans on `topology`
/// (sender-multiplies partition, one batch, 4-byte values, per column of B).
nlohmann::json reorder_table(const BenchMatrix& m, const MatrixSpec& spec,
                             const comm::Topology& topology);

}  // namespace tessel::bench
