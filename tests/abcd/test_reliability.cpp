// Bad input refused at once with one clear line (issue 14): grids whose product overflows,
// generators whose sizes cannot fit, failed verifications, unwritable outputs.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "apps/ccsd_abcd/inspector/process_grid.hpp"
#include "apps/ccsd_abcd/problem/generator_size.hpp"
#include "apps/ccsd_abcd/results/dense_verification.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"
#include "io/atomic_output.hpp"

using namespace tessel;
using namespace tessel::abcd;

TEST_CASE("process grids whose product overflows are refused, not wrapped", "[abcd]") {
    CHECK_THROWS_WITH(ProcessGrid::parse("4294967296x4294967296", 1),
                      Catch::Contains("--grid: 4294967296x4294967296 needs 4294967296 x 4294967296 processes, the run has 1"));
    CHECK_THROWS_WITH(ProcessGrid::parse("3037000500x3037000500", 4),
                      Catch::Contains("--grid: 3037000500x3037000500 needs 3037000500 x 3037000500 processes, the run has 4"));
    CHECK_THROWS_WITH(ProcessGrid::parse("99999999999999999999999x2", 2),
                      Catch::Contains("needs 99999999999999999999999 x 2 processes, the run has 2"));
    CHECK_THROWS_WITH(ProcessGrid::parse("2147483648x1", 8), Catch::Contains("needs 2147483648 x 1 processes"));
    CHECK_THROWS_WITH(ProcessGrid::parse("2147483647x2147483647", 8), Catch::Contains("needs 4611686014132420609 processes"));
    const ProcessGrid g = ProcessGrid::parse("2x2", 4);
    CHECK(g.p == 2);
    CHECK(g.q == 2);
}

TEST_CASE("generator sizes are checked before allocating, with the estimate", "[abcd]") {
    const size_type memory = size_type(24) << 30;
    SyntheticOptions s;
    s.m = 1000000000000;
    Timer t;
    CHECK_THROWS_WITH(check_synthetic_size(s, memory),
                      Catch::Contains(": --m: the synthetic generator needs about ") &&
                          Catch::Contains("for M=1000000000000 N=K=4096 in tiles of 512..2048 (up to 1953125001 x 9 tile "
                                          "positions in A), more than the 24.0 GiB of memory of this machine"));
    CHECK(synthetic_bytes_estimate(s) > 1e11);
    CHECK_NOTHROW(check_synthetic_size(SyntheticOptions{}, memory));
    MoleculeOptions m;
    m.length = 1000000;
    CHECK_THROWS_WITH(check_molecule_size(m, memory),
                      Catch::Contains(": --length: the molecule generator needs at least ") &&
                          Catch::Contains("for C1000000 in clusters of ~26 (923077 AO clusters, so 852071147929 tiles of "
                                          "cd), more than the 24.0 GiB of memory of this machine"));
    MoleculeOptions paper;
    paper.length = 65;
    CHECK_NOTHROW(check_molecule_size(paper, memory));
    CHECK(molecule_bytes_estimate(paper) < 1e8);
    CHECK(t.seconds() < 1.0);  // answered from the options alone
}

TEST_CASE("a failed or NaN verification is a failure with a line that says so", "[abcd]") {
    Verification v;
    v.relative_error = std::numeric_limits<double>::quiet_NaN();
    v.tolerance = 1e-12;
    v.passed = false;
    CHECK(verification_failure(v) ==
          "verify: relative error nan against the dense reference is not within the tolerance 1e-12");
    v.passed = true;  // a NaN never passes, whatever the flag says
    CHECK(verification_failure(v) != "");
    v.relative_error = 3e-15;
    CHECK(verification_failure(v) == "");
}

TEST_CASE("outputs in a missing directory are refused before any work", "[abcd]") {
    CHECK_THROWS_WITH(io::check_writable("no-such-dir/b.json", "--json"),
                      Catch::EndsWith("--json no-such-dir/b.json: cannot write: folder no-such-dir does not exist"));
}
