// HDF5 files: RAII handles, typed n-d datasets (whole or by hyperslab), chunked and compressed
// creation, attributes; every failure is a tessel::Hdf5Error or InvalidInput naming
// "file.h5:/object", and HDF5's own error printing is switched off.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/types.hpp"

namespace tessel::io {

class AtomicOutput;

/// Element types of datasets as stored on disk (`other` for anything else).
enum class DataType { uint8, uint16, int16, uint32, int32, int64, uint64, float32, float64, other };

std::string_view to_string(DataType type);

/// Element types that datasets and attributes are read into and written from; HDF5
/// converts between them and what is on disk (uint16 on disk read as float, ...).
template <typename T>
concept Hdf5Number = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                     std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t> ||
                     std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::uint32_t> ||
                     std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
                     std::is_same_v<T, std::uint64_t>;

/// A box of a dataset: `offset` and `count` per dimension.
struct Hyperslab {
    std::vector<size_type> offset;
    std::vector<size_type> count;
};

/// Storage of a new dataset: chunk shape (empty: contiguous, or one leading-index slice per
/// chunk when compressing), deflate level 0-9 (0: none), byte shuffle before deflate, a
/// Fletcher-32 checksum per chunk (verified by HDF5 on every read).
struct DatasetOptions {
    std::vector<size_type> chunk;
    int deflate = 0;
    bool shuffle = true;
    bool fletcher32 = false;
};

/// An open HDF5 file. Objects are named by absolute paths ("/exchange/data"; a missing
/// leading '/' is added; "/" is the file itself, for attributes).
class File {
public:
    /// Opens an existing file read-only. Throws InvalidInput "file: cannot open: ..." or
    /// "file: not an HDF5 file", Hdf5Error when HDF5 fails.
    static File open(const std::string& path);
    /// Whether `path` is an HDF5 file (its signature, as H5Fis_hdf5 finds it); false for a
    /// missing or unreadable file.
    static bool is_hdf5(const std::string& path);
    /// Creates a new file under a temporary name next to `path`; commit() renames it onto
    /// `path` (replacing an old file). Destroyed without commit(), nothing is left behind.
    /// Throws Hdf5Error.
    static File create(const std::string& path);
    /// Creates (replacing) a file written in place, not atomically: for stores that grow while
    /// a long run goes on and are reopened by open_for_update (a resumed run). Throws
    /// InvalidInput (cannot write), Hdf5Error.
    static File create_in_place(const std::string& path);
    /// Opens an existing file for reading and writing in place. Throws as open().
    static File open_for_update(const std::string& path);

    File(File&& other) noexcept;
    File& operator=(File&& other) noexcept;
    File(const File&) = delete;
    File& operator=(const File&) = delete;
    ~File();

    const std::string& path() const { return path_; }
    bool writable() const { return output_ != nullptr || in_place_; }
    /// Writes what HDF5 buffers to the disk (a killed process keeps what was flushed).
    void flush();
    /// Flushes and closes a created file and renames it into place. Throws Hdf5Error,
    /// InvalidInput (rename failed).
    void commit();

    /// True when every link on the way to `object` exists.
    bool exists(const std::string& object) const;
    /// Dimensions of a dataset (empty for a scalar). Throws InvalidInput "file:/d: dataset
    /// not found" / "...: is a group, expected a dataset".
    std::vector<size_type> shape(const std::string& dataset) const;
    /// On-disk element type. Throws as shape().
    DataType type(const std::string& dataset) const;
    /// Checks that `dataset` exists, is numeric and has rank `rank`; returns its shape.
    /// Throws InvalidInput "file:/d: expected rank 3, found 2", "...: expected a numeric
    /// dataset, found string", "...: dataset not found".
    std::vector<size_type> require(const std::string& dataset, int rank) const;

    /// The whole dataset, row-major, converted to T. Throws InvalidInput (not found, not
    /// numeric), Hdf5Error.
    template <Hdf5Number T>
    std::vector<T> read(const std::string& dataset) const;
    /// A hyperslab, row-major over `slab.count`. Throws InvalidInput "file:/d: hyperslab
    /// [0, 5) x [0, 2) outside shape 4 x 2" (or wrong rank), Hdf5Error.
    template <Hdf5Number T>
    std::vector<T> read_slab(const std::string& dataset, const Hyperslab& slab) const;
    /// read_slab into caller memory of product(slab.count) elements.
    template <Hdf5Number T>
    void read_slab_into(const std::string& dataset, const Hyperslab& slab, T* out) const;

    /// Creates a dataset of T (little-endian on disk) with parent groups as needed.
    /// Throws Hdf5Error (exists already, read-only file, deflate missing, HDF5 failure).
    template <Hdf5Number T>
    void create_dataset(const std::string& dataset, const std::vector<size_type>& shape,
                        const DatasetOptions& options = {});
    /// create_dataset, then writes product(shape) elements from `data` (row-major).
    template <Hdf5Number T>
    void write(const std::string& dataset, const std::vector<size_type>& shape, const T* data,
               const DatasetOptions& options = {});
    /// Writes product(slab.count) elements into a box of an existing dataset. Throws as
    /// read_slab, Hdf5Error.
    template <Hdf5Number T>
    void write_slab(const std::string& dataset, const Hyperslab& slab, const T* data);

    /// Attributes of `object` ("/" for the file); writing replaces an attribute of the same
    /// name. Strings are fixed-length, NUL-terminated. Throw InvalidInput "file:/o: object not
    /// found", Hdf5Error.
    void write_attribute(const std::string& object, const std::string& name, const std::string& value);
    void write_attribute(const std::string& object, const std::string& name, const char* value);
    template <Hdf5Number T>
    void write_attribute(const std::string& object, const std::string& name, T value);
    template <Hdf5Number T>
    void write_attribute(const std::string& object, const std::string& name, const std::vector<T>& values);

    bool has_attribute(const std::string& object, const std::string& name) const;
    /// Removes attribute `name` of `object` when it exists (bookkeeping of a file written in
    /// place that the finished file must not carry). Throws Hdf5Error.
    void remove_attribute(const std::string& object, const std::string& name);
    /// A string attribute, fixed or variable length, scalar or one element. Throws
    /// InvalidInput "file:/o: attribute 'axes' not found" / "... is not a string".
    std::string read_string_attribute(const std::string& object, const std::string& name) const;
    /// A numeric attribute holding one value. Throws InvalidInput (missing, not numeric,
    /// holds several values).
    template <Hdf5Number T>
    T read_attribute(const std::string& object, const std::string& name) const;
    /// A numeric attribute as a flat array. Throws InvalidInput (missing, not numeric).
    template <Hdf5Number T>
    std::vector<T> read_array_attribute(const std::string& object, const std::string& name) const;

private:
    File(std::string path, std::int64_t id, std::unique_ptr<AtomicOutput> output);
    void close() noexcept;
    std::string where(const std::string& object) const;

    std::string path_;
    std::unique_ptr<AtomicOutput> output_;  // set for created files until commit()
    bool in_place_ = false;                 // create_in_place / open_for_update
    std::int64_t id_ = -1;                  // hid_t of the open file
};

}  // namespace tessel::io
