// HDF5 layer: typed datasets, hyperslabs, compression, attributes, queries and errors.
#include <catch2/catch.hpp>

#include <hdf5.h>

#include <numeric>

#include "io/hdf5_file.hpp"
#include "io_test_helpers.hpp"

using namespace tessel;
using namespace tessel::io;
using tessel::io::test::invalid_input;
using tessel::io::test::TempDir;

TEMPLATE_TEST_CASE("hdf5 datasets of every element type round trip", "[io][hdf5]", float, double, std::uint8_t,
                   std::uint16_t, std::int32_t, std::int64_t) {
    TempDir dir;
    std::vector<TestType> values(2 * 3 * 4);
    std::iota(values.begin(), values.end(), TestType(1));
    {
        auto file = File::create(dir.file("t.h5"));
        file.write<TestType>("/group/sub/values", {2, 3, 4}, values.data());
        file.commit();
    }
    CHECK(dir.listing() == std::vector<std::string>{"t.h5"});
    const auto file = File::open(dir.file("t.h5"));
    CHECK(file.shape("/group/sub/values") == std::vector<size_type>{2, 3, 4});
    CHECK(file.read<TestType>("group/sub/values") == values);
    // Whatever is on disk can be read as double.
    const auto wide = file.read<double>("/group/sub/values");
    CHECK(wide[23] == 24.0);
}

TEST_CASE("hdf5 type, shape and existence queries", "[io][hdf5]") {
    TempDir dir;
    {
        auto file = File::create(dir.file("q.h5"));
        const std::vector<std::uint16_t> u(6, 3);
        const std::vector<float> f(4, 1.5f);
        const double scalar = 2.5;
        file.write<std::uint16_t>("/exchange/data", {1, 2, 3}, u.data());
        file.write<float>("/exchange/theta", {4}, f.data());
        file.write<double>("/scalar", {}, &scalar);
        file.commit();
    }
    const auto file = File::open(dir.file("q.h5"));
    CHECK(file.type("/exchange/data") == DataType::uint16);
    CHECK(file.type("/exchange/theta") == DataType::float32);
    CHECK(to_string(file.type("/scalar")) == "float64");
    CHECK(file.shape("/scalar").empty());
    CHECK(file.read<double>("/scalar") == std::vector<double>{2.5});
    CHECK(file.exists("/exchange"));
    CHECK(file.exists("/exchange/data"));
    CHECK(file.exists("/"));
    CHECK_FALSE(file.exists("/exchange/data_white"));
    CHECK_FALSE(file.exists("/nothing/here/at/all"));
    CHECK(file.require("/exchange/data", 3) == std::vector<size_type>{1, 2, 3});
    const std::string where = dir.file("q.h5") + ":/exchange/data";
    CHECK(invalid_input([&] { file.require("/exchange/data", 2); }) == where + ": expected rank 2, found 3");
    CHECK(invalid_input([&] { file.shape("/exchange/missing"); }) ==
          dir.file("q.h5") + ":/exchange/missing: dataset not found");
    CHECK(invalid_input([&] { file.read<float>("/nope/deeper"); }) ==
          dir.file("q.h5") + ":/nope/deeper: dataset not found");
    CHECK(invalid_input([&] { file.read<float>("/exchange"); }) ==
          dir.file("q.h5") + ":/exchange: is a group, expected a dataset");
}

TEST_CASE("hdf5 hyperslabs read and write boxes", "[io][hdf5]") {
    TempDir dir;
    std::vector<float> values(3 * 4 * 5);
    std::iota(values.begin(), values.end(), 0.0f);
    {
        auto file = File::create(dir.file("s.h5"));
        file.create_dataset<float>("/d", {3, 4, 5}, {{1, 4, 5}, 6, true});
        // Written slice by slice.
        for (size_type k = 0; k < 3; ++k) file.write_slab<float>("/d", {{k, 0, 0}, {1, 4, 5}}, values.data() + k * 20);
        file.commit();
    }
    const auto file = File::open(dir.file("s.h5"));
    CHECK(file.read<float>("/d") == values);
    const auto box = file.read_slab<float>("/d", {{1, 2, 1}, {2, 2, 3}});
    // box(a, b, c) = values(1 + a, 2 + b, 1 + c)
    CHECK(box == std::vector<float>{31, 32, 33, 36, 37, 38, 51, 52, 53, 56, 57, 58});
    const std::string where = dir.file("s.h5") + ":/d";
    CHECK(invalid_input([&] { file.read_slab<float>("/d", {{2, 0, 0}, {2, 4, 5}}); }) ==
          where + ": hyperslab [2, 4) x [0, 4) x [0, 5) outside shape 3 x 4 x 5");
    CHECK(invalid_input([&] { file.read_slab<float>("/d", {{0, 0}, {1, 1}}); }) ==
          where + ": hyperslab of rank 2 for a dataset of rank 3");
}

TEST_CASE("hdf5 files written in place are reopened for update and lose their bookkeeping", "[io][hdf5]") {
    TempDir dir;
    const std::string path = dir.file("partial.h5");
    std::vector<float> values(2 * 3 * 3);
    std::iota(values.begin(), values.end(), 1.0f);
    {
        auto file = File::create_in_place(path);
        file.create_dataset<float>("/d", {2, 3, 3}, {{1, 3, 3}, 0, false});
        file.write_slab<float>("/d", {{0, 0, 0}, {1, 3, 3}}, values.data());
        file.write_attribute("/d", "done", std::int64_t{1});
        file.flush();
    }  // closed unfinished: the file stays (a stopped run)
    {
        auto file = File::open_for_update(path);
        CHECK(file.writable());
        CHECK(file.read_attribute<std::int64_t>("/d", "done") == 1);
        file.write_slab<float>("/d", {{1, 0, 0}, {1, 3, 3}}, values.data() + 9);
        file.remove_attribute("/d", "done");
        file.remove_attribute("/d", "never-there");
    }
    const auto file = File::open(path);
    CHECK(file.read<float>("/d") == values);
    CHECK_FALSE(file.has_attribute("/d", "done"));
    CHECK(invalid_input([&] { File::open_for_update(dir.file("absent.h5")); }) ==
          dir.file("absent.h5") + ": cannot open: no such file");
}

TEST_CASE("hdf5 compressed datasets are smaller and read back exactly", "[io][hdf5]") {
    TempDir dir;
    std::vector<std::int32_t> zeros(64 * 64 * 16, 0);
    zeros[100] = 7;
    {
        auto plain = File::create(dir.file("plain.h5"));
        plain.write<std::int32_t>("/z", {16, 64, 64}, zeros.data());
        plain.commit();
        auto packed = File::create(dir.file("packed.h5"));
        packed.write<std::int32_t>("/z", {16, 64, 64}, zeros.data(), {{}, 4, true});
        packed.commit();
    }
    CHECK(std::filesystem::file_size(dir.file("packed.h5")) * 4 < std::filesystem::file_size(dir.file("plain.h5")));
    CHECK(File::open(dir.file("packed.h5")).read<std::int32_t>("/z") == zeros);
}

TEST_CASE("hdf5 attributes on files and datasets", "[io][hdf5]") {
    TempDir dir;
    std::vector<double> history(20000);  // larger than HDF5's 64 KiB compact attribute limit
    std::iota(history.begin(), history.end(), 0.5);
    {
        auto file = File::create(dir.file("a.h5"));
        const std::vector<float> recon(4, 0.0f);
        file.write<float>("/exchange/recon", {1, 2, 2}, recon.data());
        file.write_attribute("/", "algorithm", "cgls");
        file.write_attribute("/", "command_line", std::string("tessel-xct --iterations 30"));
        file.write_attribute("/", "iterations", std::int32_t{30});
        file.write_attribute("/exchange/recon", "voxel_size", 0.65);
        file.write_attribute("/exchange/recon", "residual_history", history);
        file.write_attribute("/exchange/recon", "axes", "z:y:x");
        file.write_attribute("/exchange/recon", "axes", "slice:y:x");  // replaces
        file.write_attribute("/", "empty", std::vector<float>{});
        file.commit();
    }
    const auto file = File::open(dir.file("a.h5"));
    CHECK(file.read_string_attribute("/", "algorithm") == "cgls");
    CHECK(file.read_string_attribute("/", "command_line") == "tessel-xct --iterations 30");
    CHECK(file.read_attribute<std::int32_t>("/", "iterations") == 30);
    CHECK(file.read_attribute<double>("/", "iterations") == 30.0);
    CHECK(file.read_attribute<double>("/exchange/recon", "voxel_size") == 0.65);
    CHECK(file.read_array_attribute<double>("/exchange/recon", "residual_history") == history);
    CHECK(file.read_string_attribute("/exchange/recon", "axes") == "slice:y:x");
    CHECK(file.read_array_attribute<float>("/", "empty").empty());
    CHECK(file.has_attribute("/exchange/recon", "axes"));
    CHECK_FALSE(file.has_attribute("/exchange/recon", "nothing"));
    CHECK_FALSE(file.has_attribute("/missing", "axes"));

    const std::string root = dir.file("a.h5") + ":/";
    CHECK(invalid_input([&] { file.read_string_attribute("/", "nothing"); }) == root + ": attribute 'nothing' not found");
    CHECK(invalid_input([&] { file.read_string_attribute("/", "iterations"); }) ==
          root + ": attribute 'iterations' is not a string (int32)");
    CHECK(invalid_input([&] { file.read_attribute<double>("/", "algorithm"); }) ==
          root + ": attribute 'algorithm' is not numeric (string)");
    CHECK(invalid_input([&] { file.read_attribute<double>("/exchange/recon", "residual_history"); }) ==
          dir.file("a.h5") + ":/exchange/recon: attribute 'residual_history' holds 20000 values, expected one");
    CHECK(invalid_input([&] { file.read_attribute<double>("/nowhere", "x"); }) ==
          dir.file("a.h5") + ":/nowhere: object not found");
}

TEST_CASE("hdf5 reads variable-length string attributes as h5py writes them", "[io][hdf5]") {
    TempDir dir;
    {
        auto file = File::create(dir.file("v.h5"));
        const std::vector<float> d(1, 0.0f);
        file.write<float>("/d", {1}, d.data());
        file.commit();
    }
    // Add a variable-length UTF-8 attribute with the C API, as h5py does for Python str.
    {
        const hid_t f = H5Fopen(dir.file("v.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
        const hid_t d = H5Dopen2(f, "/d", H5P_DEFAULT);
        const hid_t type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, H5T_VARIABLE);
        H5Tset_cset(type, H5T_CSET_UTF8);
        const hid_t space = H5Screate(H5S_SCALAR);
        const hid_t a = H5Acreate2(d, "axes", type, space, H5P_DEFAULT, H5P_DEFAULT);
        const char* text = "y:theta:x";
        H5Awrite(a, type, &text);
        H5Aclose(a);
        H5Sclose(space);
        H5Tclose(type);
        H5Dclose(d);
        H5Fclose(f);
    }
    CHECK(File::open(dir.file("v.h5")).read_string_attribute("/d", "axes") == "y:theta:x");
}

TEST_CASE("hdf5 errors: missing files, other files, non-numeric data, write misuse", "[io][hdf5]") {
    TempDir dir;
    CHECK(invalid_input([&] { File::open(dir.file("none.h5")); }) == dir.file("none.h5") + ": cannot open: no such file");
    const auto text = dir.write("text.h5", "not hdf5 at all\n");
    CHECK(invalid_input([&] { File::open(text); }) == text + ": not an HDF5 file");
    {
        auto file = File::create(dir.file("e.h5"));
        const std::vector<float> d(2, 0.0f);
        file.write<float>("/d", {2}, d.data());
        CHECK_THROWS_AS(file.write<float>("/d", {2}, d.data()), Hdf5Error);
        CHECK_THROWS_WITH(file.write<float>("/d", {2}, d.data()), Catch::Contains("e.h5:/d: already exists"));
        file.commit();
    }
    {
        // A string dataset, written with the C API.
        const hid_t f = H5Fopen(dir.file("e.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
        const hid_t type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, 8);
        const hid_t space = H5Screate(H5S_SCALAR);
        const hid_t d = H5Dcreate2(f, "/implements", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, "exchange");
        H5Dclose(d);
        H5Sclose(space);
        H5Tclose(type);
        H5Fclose(f);
    }
    auto file = File::open(dir.file("e.h5"));
    CHECK(invalid_input([&] { file.read<float>("/implements"); }) ==
          dir.file("e.h5") + ":/implements: expected a numeric dataset, found string");
    CHECK(invalid_input([&] { file.require("/implements", 0); }) ==
          dir.file("e.h5") + ":/implements: expected a numeric dataset, found string");
    CHECK_THROWS_AS(file.write_attribute("/", "x", 1.0), Hdf5Error);
    CHECK_THROWS_WITH(file.write_attribute("/", "x", 1.0), Catch::Contains("file is not open for writing"));
}

TEST_CASE("hdf5 files are renamed into place only on commit", "[io][hdf5]") {
    TempDir dir;
    {
        auto file = File::create(dir.file("out.h5"));
        const std::vector<float> d(3, 1.0f);
        file.write<float>("/d", {3}, d.data());
        CHECK_FALSE(std::filesystem::exists(dir.file("out.h5")));
        CHECK(dir.listing().size() == 1);  // the temporary file
        // Abandoned: no commit.
    }
    CHECK(dir.listing().empty());
    {
        auto file = File::create(dir.file("out.h5"));
        File moved = std::move(file);
        const std::vector<float> d(3, 2.0f);
        moved.write<float>("/d", {3}, d.data());
        moved.commit();
    }
    CHECK(dir.listing() == std::vector<std::string>{"out.h5"});
    CHECK(File::open(dir.file("out.h5")).read<float>("/d") == std::vector<float>{2, 2, 2});
}
