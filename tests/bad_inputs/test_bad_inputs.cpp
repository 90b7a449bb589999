// The bad-input catalogue at the library level (issue 14): each case with its exact message.
// The programs' cases (one line on stderr, non-zero exit) are in CMakeLists.txt.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/app/byte_size.hpp"
#include "core/app/machine.hpp"
#include "core/app/memory_check.hpp"
#include "core/error.hpp"
#include "io/atomic_output.hpp"
#include "io/graph_challenge.hpp"
#include "io/hdf5_file.hpp"
#include "io/matrix_market.hpp"
#include "tests/common/temp_dir.hpp"

using namespace tessel;
using Catch::Matchers::Equals;

namespace {
std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.message();
    }
    return "(no error)";
}
}  // namespace

// Finding 3: sizes are checked against memory before allocating, the estimate in the message.
TEST_CASE("require_memory names the estimate and what is available", "[bad_inputs]") {
    setenv("TESSEL_AVAILABLE_MEMORY", "4G", 1);
    CHECK(message_of([] { app::require_memory("--neurons 1073741824", "the network of 120 layers", 3.0e12); }) ==
          "--neurons 1073741824: the network of 120 layers needs 2.7 TiB, more than the 4.0 GiB available on this node");
    CHECK_NOTHROW(app::require_memory("x", "y", 1e9));
    CHECK_THROWS_AS(app::require_memory("x", "y", 1e10), OutOfMemoryBudget);
    unsetenv("TESSEL_AVAILABLE_MEMORY");
    CHECK(available_memory_bytes() > 0);
    CHECK(physical_memory_bytes() >= available_memory_bytes());
    CHECK(message_of([] { app::require_index_range<std::int32_t>("--neurons", 0, "the neuron count", 4294967296.0); }) ==
          "--neurons: the neuron count is 4294967296, beyond the largest index 2147483647 (int32)");
    CHECK_NOTHROW(app::require_index_range<std::int64_t>("--neurons", 0, "the neuron count", 4294967296.0));
}

// Finding 3: a 3-line Matrix Market file declaring 2e9 x 2e9, Graph Challenge images of 1e9 rows.
TEST_CASE("declared sizes beyond memory are refused before allocating", "[bad_inputs]") {
    test::TempDir dir;
    setenv("TESSEL_AVAILABLE_MEMORY", "4G", 1);
    const auto mtx = dir.write("huge.mtx", "%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1\n1 1 1\n");
    CHECK(message_of([&] { io::read_matrix_market_csr<float, std::int32_t>(mtx); }) ==
          mtx + ": the CSR matrix of 2000000000 x 2000000000 needs 44.7 GiB, more than the 4.0 GiB available on this node");
    const auto tsv = dir.write("images.tsv", "1\t1\t1\n");
    CHECK(message_of([&] { io::read_images_tsv<float, std::int32_t>(tsv, 1000000000, 1024); }) ==
          tsv + ": the row pointers of 1000000000 images needs 7.5 GiB, more than the 4.0 GiB available on this node");
    unsetenv("TESSEL_AVAILABLE_MEMORY");
}

// Finding 3 (--memory-limit inf was accepted) and the one byte-size parser of every program.
TEST_CASE("parse_bytes refuses what is not a finite positive size", "[bad_inputs]") {
    CHECK(app::parse_bytes("8G", "--memory-limit") == 8.0 * (1 << 30));
    CHECK(app::parse_bytes("1.5GiB", "x") == 1.5 * (1 << 30));
    CHECK(app::parse_bytes("512m", "x") == 512.0 * (1 << 20));
    CHECK(app::parse_bytes("100000", "x") == 100000.0);
    CHECK(message_of([] { app::parse_bytes("inf", "--memory-limit"); }) ==
          "--memory-limit: 'inf' is not a finite size (for example 2G or 512M)");
    CHECK(message_of([] { app::parse_bytes("nan", "--memory-limit"); }) ==
          "--memory-limit: 'nan' is not a finite size (for example 2G or 512M)");
    CHECK(message_of([] { app::parse_bytes("-5G", "--device-memory"); }) == "--device-memory: '-5G' must be positive");
    CHECK(message_of([] { app::parse_bytes("8X", "--device-memory"); }) ==
          "--device-memory: '8X': unknown unit 'x' (use K, M, G or T)");
    CHECK(message_of([] { app::parse_bytes("", "--device-memory"); }) ==
          "--device-memory: '' is not a size in bytes (for example 2G or 512M)");
    CHECK(message_of([] { app::parse_bytes("9000000P", "--device-memory"); }) ==
          "--device-memory: '9000000P' is beyond 4 EiB");
    CHECK(app::format_bytes(1536) == "1.5 KiB");
    CHECK(app::format_bytes(12) == "12 B");
    CHECK(app::format_bytes(3.0 * (1 << 30)) == "3.0 GiB");
}

TEST_CASE("llc_bytes reads the last-level cache from sysfs", "[bad_inputs]") {
    std::ifstream probe("/sys/devices/system/cpu/cpu0/cache/index0/size");
    if (probe) CHECK(llc_bytes() >= 4096);  // at least the L1 data cache of cpu0
}

// Finding 4: outputs are checked before the work, with the reason.
TEST_CASE("check_writable refuses outputs that cannot be written", "[bad_inputs]") {
    test::TempDir dir;
    CHECK(message_of([] { io::check_writable("nodir/r.h5", "--output"); }) ==
          "--output nodir/r.h5: cannot write: folder nodir does not exist");
    CHECK(message_of([&] { io::check_writable(dir.file(""), "--output"); }).find("cannot write: it is a folder") !=
          std::string::npos);
    const std::string file = dir.write("plain", "x");
    CHECK(message_of([&] { io::check_writable(file + "/r.h5", "--metrics"); }) ==
          "--metrics " + file + "/r.h5: cannot write: " + file + " is not a folder");
    CHECK_NOTHROW(io::check_writable(dir.file("new.h5"), "--output"));
    CHECK_NOTHROW(io::check_writable("relative-in-cwd.h5", "--output"));
}

// Finding 9: HDF5 outputs in a missing folder name the reason, not HDF5's internals
// ("flags = 13, o_flags = 242").
TEST_CASE("an HDF5 file in a missing folder says so", "[bad_inputs]") {
    CHECK(message_of([] { io::File::create("nodir/volume.h5"); }) ==
          "nodir/volume.h5: cannot write: folder nodir does not exist");
}

// Finding 4: a killed writer's "out.tmp.PID.N" is removed by the next writer of "out".
TEST_CASE("stale temporaries of an output are removed, live ones kept", "[bad_inputs]") {
    test::TempDir dir;
    const std::string out = dir.file("volume.h5");
    // A pid that cannot run: above the kernel's pid_max (4194304 at most).
    dir.write("volume.h5.tmp.99999999.0", "stale");
    dir.write("volume.h5.tmp." + std::to_string(getpid()) + ".7", "live");
    dir.write("other.h5.tmp.99999999.0", "another output's");
    dir.write("volume.h5.tmp.notapid.0", "not ours");
    CHECK(io::remove_stale_temporaries(out) == 1);
    CHECK_FALSE(std::filesystem::exists(dir.file("volume.h5.tmp.99999999.0")));
    CHECK(std::filesystem::exists(dir.file("volume.h5.tmp." + std::to_string(getpid()) + ".7")));
    CHECK(std::filesystem::exists(dir.file("other.h5.tmp.99999999.0")));
    CHECK(std::filesystem::exists(dir.file("volume.h5.tmp.notapid.0")));
    dir.write("volume.h5.tmp.99999998.3", "stale");
    io::write_bytes_atomically(out, "abc", 3);  // the writer cleans up before it writes
    CHECK_FALSE(std::filesystem::exists(dir.file("volume.h5.tmp.99999998.3")));
}

// Finding 7: Graph Challenge layers cut inside a value, or with entries written twice.
TEST_CASE("Graph Challenge TSV: cut records and duplicates are refused", "[bad_inputs]") {
    test::TempDir dir;
    const auto cut = dir.write("cut.tsv", "1\t2\t0.0625\n2\t3\t0.06");
    CHECK(message_of([&] { io::read_layer_tsv<float, std::int32_t>(cut, 4); }) ==
          cut + ":2: file ends inside a record (no newline after the last line): truncated?");
    const auto twice = dir.write("twice.tsv", "1\t2\t0.0625\n2\t3\t0.0625\n1\t2\t0.0625\n");
    CHECK(message_of([&] { io::read_layer_tsv<float, std::int32_t>(twice, 4); }) ==
          twice + ":3: entry (1, 2) repeats line 1 (duplicates are refused, not summed)");
    const auto nan = dir.write("nan.tsv", "1\t2\tnan\n");
    CHECK(message_of([&] { io::read_layer_tsv<float, std::int32_t>(nan, 4); }).rfind(nan + ":1:", 0) == 0);
    const auto good = dir.write("good.tsv", "1\t2\t0.0625\n2\t3\t0.0625\n\n");
    CHECK(io::read_layer_tsv<float, std::int32_t>(good, 4).nnz() == 2);
}
