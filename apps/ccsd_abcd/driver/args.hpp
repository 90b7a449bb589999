// tessel-abcd's command line: the options it takes and their parsing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "apps/ccsd_abcd/problem/molecule_generator.hpp"
#include "apps/ccsd_abcd/problem/synthetic_generator.hpp"

namespace tessel::abcd::driver {

struct Args {
    std::string generator, problem_file, grid, device_memory, output, metrics, backend = "auto", precision = "double",
        save_problem, column_assignment = "refined";
    SyntheticOptions synthetic;
    MoleculeOptions molecule;
    std::uint64_t seed = 1;
    int threads = 0;
    int repeat = 1;  // executor runs on the same A tiles, the best reported
    size_type dgemm_size = 2048;
    bool verify = false, output_tiles = false, save_tiles = false, plan_only = false, verbose = false, quiet = false;
    // Tile-size advice (issue 17).
    std::string tiling = "given", rate_table;
    bool advise_tiles = false, measure_candidates = false, calibrate = false;
    // A real molecule (issue 34): XYZ file, amplitudes, Schwarz threshold; --basis given or not.
    std::string molecule_file, amplitudes;
    double threshold = 1e-12;
    bool all_pairs = false;  // every pair ij, not only i <= j
    bool basis_given = false;
};

/// Parses the command line into `a`. Returns the exit code when the program should stop
/// here (--help: 0; a bad option: 1, its line printed by `rank` 0), else nothing.
std::optional<int> parse_args(int argc, char** argv, int rank, Args& a);

}  // namespace tessel::abcd::driver
