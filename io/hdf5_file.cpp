// HDF5 file access through the C API: RAII handles, quiet error stack, typed errors.
#include "io/hdf5_file.hpp"

#include <hdf5.h>

#include <algorithm>
#include <filesystem>
#include <numeric>

#include "core/error.hpp"
#include "io/atomic_output.hpp"

namespace tessel::io {

static_assert(std::is_same_v<hid_t, std::int64_t>, "File keeps its hid_t as std::int64_t");

namespace {

/// Our one-line errors replace HDF5's stack dump; the setting is per thread in
/// thread-safe builds, so every entry point calls this.
void silence_hdf5() {
    thread_local bool silenced = false;
    if (!silenced) {
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        silenced = true;
    }
}

herr_t innermost_error(unsigned n, const H5E_error2_t* error, void* data) {
    if (n == 0 && error->desc) *static_cast<std::string*>(data) = error->desc;
    return 0;
}

/// " (what HDF5 said)" for the most specific error on the stack, which is then cleared.
std::string hdf5_detail() {
    std::string detail;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_error, &detail);
    H5Eclear2(H5E_DEFAULT);
    // The file driver's errors read "unable to open file: name = '...', errno = 2, error
    // message = 'No such file or directory', flags = 13, o_flags = 242": keep the reason only.
    const std::string key = "error message = '";
    const auto at = detail.find(key);
    if (at != std::string::npos) {
        const auto end = detail.find('\'', at + key.size());
        detail = detail.substr(at + key.size(), end == std::string::npos ? std::string::npos : end - at - key.size());
    }
    return detail.empty() ? std::string() : " (" + detail + ")";
}

#define TESSEL_HDF5_FAIL(where, what) \
    throw ::tessel::Hdf5Error(__FILE__, __LINE__, (where) + ": " + (what) + hdf5_detail())

/// An HDF5 identifier closed by its own close function.
class Handle {
public:
    Handle() = default;
    Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
    Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
    Handle& operator=(Handle&& o) noexcept {
        std::swap(id_, o.id_);
        std::swap(close_, o.close_);
        return *this;
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() {
        if (id_ >= 0 && close_) close_(id_);
    }
    hid_t get() const { return id_; }
    bool valid() const { return id_ >= 0; }

private:
    hid_t id_ = -1;
    herr_t (*close_)(hid_t) = nullptr;
};

template <typename T>
hid_t memory_type() {
    if constexpr (std::is_same_v<T, float>) return H5T_NATIVE_FLOAT;
    if constexpr (std::is_same_v<T, double>) return H5T_NATIVE_DOUBLE;
    if constexpr (std::is_same_v<T, std::uint8_t>) return H5T_NATIVE_UINT8;
    if constexpr (std::is_same_v<T, std::uint16_t>) return H5T_NATIVE_UINT16;
    if constexpr (std::is_same_v<T, std::int16_t>) return H5T_NATIVE_INT16;
    if constexpr (std::is_same_v<T, std::uint32_t>) return H5T_NATIVE_UINT32;
    if constexpr (std::is_same_v<T, std::int32_t>) return H5T_NATIVE_INT32;
    if constexpr (std::is_same_v<T, std::int64_t>) return H5T_NATIVE_INT64;
    if constexpr (std::is_same_v<T, std::uint64_t>) return H5T_NATIVE_UINT64;
}

/// Portable little-endian file types.
template <typename T>
hid_t file_type() {
    if constexpr (std::is_same_v<T, float>) return H5T_IEEE_F32LE;
    if constexpr (std::is_same_v<T, double>) return H5T_IEEE_F64LE;
    if constexpr (std::is_same_v<T, std::uint8_t>) return H5T_STD_U8LE;
    if constexpr (std::is_same_v<T, std::uint16_t>) return H5T_STD_U16LE;
    if constexpr (std::is_same_v<T, std::int16_t>) return H5T_STD_I16LE;
    if constexpr (std::is_same_v<T, std::uint32_t>) return H5T_STD_U32LE;
    if constexpr (std::is_same_v<T, std::int32_t>) return H5T_STD_I32LE;
    if constexpr (std::is_same_v<T, std::int64_t>) return H5T_STD_I64LE;
    if constexpr (std::is_same_v<T, std::uint64_t>) return H5T_STD_U64LE;
}

DataType classify(hid_t type) {
    const size_t size = H5Tget_size(type);
    switch (H5Tget_class(type)) {
    case H5T_INTEGER: {
        const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
        if (!is_signed && size == 1) return DataType::uint8;
        if (!is_signed && size == 2) return DataType::uint16;
        if (is_signed && size == 2) return DataType::int16;
        if (!is_signed && size == 4) return DataType::uint32;
        if (is_signed && size == 4) return DataType::int32;
        if (is_signed && size == 8) return DataType::int64;
        if (!is_signed && size == 8) return DataType::uint64;
        return DataType::other;
    }
    case H5T_FLOAT:
        return size == 4 ? DataType::float32 : size == 8 ? DataType::float64 : DataType::other;
    default:
        return DataType::other;
    }
}

/// Words for a type in messages: "float32", "int16", "string", "compound", ...
std::string describe(hid_t type) {
    const DataType known = classify(type);
    if (known != DataType::other) return std::string(to_string(known));
    const size_t bits = 8 * H5Tget_size(type);
    switch (H5Tget_class(type)) {
    case H5T_INTEGER:
        return (H5Tget_sign(type) == H5T_SGN_2 ? "int" : "uint") + std::to_string(bits);
    case H5T_FLOAT: return "float" + std::to_string(bits);
    case H5T_STRING: return "string";
    case H5T_COMPOUND: return "compound";
    case H5T_ENUM: return "enum";
    case H5T_ARRAY: return "array";
    case H5T_VLEN: return "variable-length";
    case H5T_REFERENCE: return "reference";
    case H5T_OPAQUE: return "opaque";
    case H5T_BITFIELD: return "bitfield";
    default: return "unknown type";
    }
}

bool is_numeric(hid_t type) {
    const H5T_class_t c = H5Tget_class(type);
    return c == H5T_INTEGER || c == H5T_FLOAT;
}

std::string normalised(const std::string& object) {
    if (object.empty()) return "/";
    return object.front() == '/' ? object : "/" + object;
}

std::string dims_text(const std::vector<size_type>& dims) {
    if (dims.empty()) return "scalar";
    std::string text;
    for (std::size_t d = 0; d < dims.size(); ++d) text += (d ? " x " : "") + std::to_string(dims[d]);
    return text;
}

std::vector<hsize_t> to_hsize(const std::vector<size_type>& v) { return {v.begin(), v.end()}; }

size_type product(const std::vector<size_type>& v) {
    return std::accumulate(v.begin(), v.end(), size_type{1}, std::multiplies<>());
}

std::vector<size_type> extent(hid_t space) {
    const int rank = H5Sget_simple_extent_ndims(space);
    std::vector<hsize_t> dims(rank > 0 ? rank : 0);
    if (rank > 0) H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    return {dims.begin(), dims.end()};
}

Handle simple_space(const std::vector<size_type>& shape) {
    if (shape.empty()) return {H5Screate(H5S_SCALAR), H5Sclose};
    const auto dims = to_hsize(shape);
    return {H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose};
}

}  // namespace

std::string_view to_string(DataType type) {
    switch (type) {
    case DataType::uint8: return "uint8";
    case DataType::uint16: return "uint16";
    case DataType::int16: return "int16";
    case DataType::uint32: return "uint32";
    case DataType::int32: return "int32";
    case DataType::int64: return "int64";
    case DataType::uint64: return "uint64";
    case DataType::float32: return "float32";
    case DataType::float64: return "float64";
    default: return "other";
    }
}

File::File(std::string path, std::int64_t id, std::unique_ptr<AtomicOutput> output)
    : path_(std::move(path)), output_(std::move(output)), id_(id) {}

File::File(File&& other) noexcept
    : path_(std::move(other.path_)), output_(std::move(other.output_)), in_place_(other.in_place_), id_(other.id_) {
    other.id_ = -1;
}

File& File::operator=(File&& other) noexcept {
    if (this != &other) {
        close();
        path_ = std::move(other.path_);
        output_ = std::move(other.output_);
        in_place_ = other.in_place_;
        id_ = other.id_;
        other.id_ = -1;
    }
    return *this;
}

File::~File() { close(); }

void File::close() noexcept {
    if (id_ >= 0) H5Fclose(id_);
    id_ = -1;
    output_.reset();  // an uncommitted temporary file is removed
}

std::string File::where(const std::string& object) const { return path_ + ":" + normalised(object); }

File File::open(const std::string& path) {
    silence_hdf5();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) TESSEL_INVALID_INPUT(path, 0, "cannot open: no such file");
    if (H5Fis_hdf5(path.c_str()) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        TESSEL_INVALID_INPUT(path, 0, "not an HDF5 file");
    }
    const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (id < 0) TESSEL_HDF5_FAIL(path, std::string("cannot open"));
    return File(path, id, nullptr);
}

bool File::is_hdf5(const std::string& path) {
    silence_hdf5();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return false;
    const bool yes = H5Fis_hdf5(path.c_str()) > 0;
    H5Eclear2(H5E_DEFAULT);
    return yes;
}

File File::create_in_place(const std::string& path) {
    silence_hdf5();
    check_writable(path, "");
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (!fapl.valid() || H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0)
        TESSEL_HDF5_FAIL(path, std::string("cannot set file access properties"));
    const hid_t id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
    if (id < 0) TESSEL_HDF5_FAIL(path, std::string("cannot create"));
    File f(path, id, nullptr);
    f.in_place_ = true;
    return f;
}

File File::open_for_update(const std::string& path) {
    File readable = open(path);  // the same checks and messages as reading
    readable.close();
    const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    if (id < 0) TESSEL_HDF5_FAIL(path, std::string("cannot open for writing"));
    File f(path, id, nullptr);
    f.in_place_ = true;
    return f;
}

void File::flush() {
    if (H5Fflush(id_, H5F_SCOPE_GLOBAL) < 0) TESSEL_HDF5_FAIL(path_, std::string("flush failed"));
}

File File::create(const std::string& path) {
    silence_hdf5();
    check_writable(path, "");  // "cannot write: folder out does not exist", not HDF5's internals
    auto output = std::make_unique<AtomicOutput>(path);
    // The 1.8 object format stores large attributes (long residual histories) densely.
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (!fapl.valid() || H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0)
        TESSEL_HDF5_FAIL(path, std::string("cannot set file access properties"));
    const hid_t id = H5Fcreate(output->temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
    if (id < 0) TESSEL_HDF5_FAIL(path, std::string("cannot create"));
    return File(path, id, std::move(output));
}

void File::commit() {
    silence_hdf5();
    if (!output_) TESSEL_HDF5_FAIL(path_, std::string("commit of a file that was not created for writing"));
    if (H5Fflush(id_, H5F_SCOPE_GLOBAL) < 0) TESSEL_HDF5_FAIL(path_, std::string("flush failed"));
    const herr_t closed = H5Fclose(id_);
    id_ = -1;
    if (closed < 0) TESSEL_HDF5_FAIL(path_, std::string("close failed"));
    output_->commit();
    output_.reset();
}

namespace {

/// Opens an object that must exist. Throws InvalidInput "file:/o: what not found".
Handle open_object(hid_t file, const std::string& where, const std::string& object, const char* kind) {
    silence_hdf5();
    if (file < 0) TESSEL_HDF5_FAIL(where, std::string("file is closed"));
    // H5Lexists fails on a missing intermediate group, so walk the path link by link.
    if (object != "/") {
        for (std::size_t slash = object.find('/', 1);; slash = object.find('/', slash + 1)) {
            const std::string prefix = object.substr(0, slash);
            if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0) {
                H5Eclear2(H5E_DEFAULT);
                TESSEL_INVALID_INPUT(where, 0, std::string(kind) + " not found");
            }
            if (slash == std::string::npos) break;
        }
    }
    Handle h(H5Oopen(file, object.c_str(), H5P_DEFAULT), H5Oclose);
    if (!h.valid()) TESSEL_HDF5_FAIL(where, std::string("cannot open"));
    return h;
}

Handle open_dataset(hid_t file, const std::string& where, const std::string& object) {
    Handle h = open_object(file, where, object, "dataset");
    if (H5Iget_type(h.get()) != H5I_DATASET) {
        const bool group = H5Iget_type(h.get()) == H5I_GROUP;
        TESSEL_INVALID_INPUT(where, 0, group ? "is a group, expected a dataset" : "is not a dataset");
    }
    return h;
}

void require_numeric(hid_t dataset, const std::string& where) {
    Handle type(H5Dget_type(dataset), H5Tclose);
    if (!type.valid()) TESSEL_HDF5_FAIL(where, std::string("cannot get type"));
    if (!is_numeric(type.get()))
        TESSEL_INVALID_INPUT(where, 0, "expected a numeric dataset, found " + describe(type.get()));
}

/// The file dataspace of `dataset` with `slab` selected, after checking it fits.
Handle select_slab(hid_t dataset, const std::string& where, const Hyperslab& slab) {
    Handle space(H5Dget_space(dataset), H5Sclose);
    if (!space.valid()) TESSEL_HDF5_FAIL(where, std::string("cannot get dataspace"));
    const auto dims = extent(space.get());
    if (slab.offset.size() != dims.size() || slab.count.size() != dims.size())
        TESSEL_INVALID_INPUT(where, 0, "hyperslab of rank " + std::to_string(slab.count.size()) +
                                           " for a dataset of rank " + std::to_string(dims.size()));
    bool fits = true;
    std::string box;
    for (std::size_t d = 0; d < dims.size(); ++d) {
        fits = fits && slab.offset[d] >= 0 && slab.count[d] >= 0 && slab.offset[d] + slab.count[d] <= dims[d];
        box += (d ? " x [" : "[") + std::to_string(slab.offset[d]) + ", " +
               std::to_string(slab.offset[d] + slab.count[d]) + ")";
    }
    if (!fits) TESSEL_INVALID_INPUT(where, 0, "hyperslab " + box + " outside shape " + dims_text(dims));
    if (!dims.empty()) {
        const auto start = to_hsize(slab.offset), count = to_hsize(slab.count);
        if (H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0)
            TESSEL_HDF5_FAIL(where, std::string("cannot select hyperslab"));
    }
    return space;
}

Handle open_attribute(hid_t file, const std::string& where, const std::string& object, const std::string& name) {
    Handle obj = open_object(file, where, object, "object");
    const htri_t exists = H5Aexists(obj.get(), name.c_str());
    if (exists < 0) TESSEL_HDF5_FAIL(where, "cannot look up attribute '" + name + "'");
    if (exists == 0) TESSEL_INVALID_INPUT(where, 0, "attribute '" + name + "' not found");
    Handle attr(H5Aopen(obj.get(), name.c_str(), H5P_DEFAULT), H5Aclose);
    if (!attr.valid()) TESSEL_HDF5_FAIL(where, "cannot open attribute '" + name + "'");
    return attr;
}

/// Writes an attribute of file type `ftype` over dataspace `space` from memory of `mtype`.
void put_attribute(hid_t file, const std::string& where, const std::string& object, const std::string& name,
                   hid_t ftype, hid_t mtype, hid_t space, const void* data) {
    Handle obj = open_object(file, where, object, "object");
    const htri_t exists = H5Aexists(obj.get(), name.c_str());
    if (exists > 0 && H5Adelete(obj.get(), name.c_str()) < 0)
        TESSEL_HDF5_FAIL(where, "cannot replace attribute '" + name + "'");
    Handle attr(H5Acreate2(obj.get(), name.c_str(), ftype, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!attr.valid()) TESSEL_HDF5_FAIL(where, "cannot create attribute '" + name + "'");
    if (H5Awrite(attr.get(), mtype, data) < 0) TESSEL_HDF5_FAIL(where, "cannot write attribute '" + name + "'");
}

/// Number of elements of an attribute, after checking that it is numeric.
hssize_t numeric_attribute_size(hid_t attr, const std::string& where, const std::string& name) {
    Handle type(H5Aget_type(attr), H5Tclose);
    if (!type.valid() || !is_numeric(type.get()))
        TESSEL_INVALID_INPUT(where, 0, "attribute '" + name + "' is not numeric" +
                                           (type.valid() ? " (" + describe(type.get()) + ")" : std::string()));
    Handle space(H5Aget_space(attr), H5Sclose);
    return H5Sget_simple_extent_npoints(space.get());
}

}  // namespace

bool File::exists(const std::string& object) const {
    silence_hdf5();
    const std::string name = normalised(object);
    if (id_ < 0) return false;
    if (name == "/") return true;
    for (std::size_t slash = name.find('/', 1);; slash = name.find('/', slash + 1)) {
        if (H5Lexists(id_, name.substr(0, slash).c_str(), H5P_DEFAULT) <= 0) {
            H5Eclear2(H5E_DEFAULT);
            return false;
        }
        if (slash == std::string::npos) return true;
    }
}

std::vector<size_type> File::shape(const std::string& dataset) const {
    const std::string name = normalised(dataset);
    Handle ds = open_dataset(id_, where(name), name);
    Handle space(H5Dget_space(ds.get()), H5Sclose);
    if (!space.valid()) TESSEL_HDF5_FAIL(where(name), std::string("cannot get dataspace"));
    return extent(space.get());
}

DataType File::type(const std::string& dataset) const {
    const std::string name = normalised(dataset);
    Handle ds = open_dataset(id_, where(name), name);
    Handle type(H5Dget_type(ds.get()), H5Tclose);
    if (!type.valid()) TESSEL_HDF5_FAIL(where(name), std::string("cannot get type"));
    return classify(type.get());
}

std::vector<size_type> File::require(const std::string& dataset, int rank) const {
    const std::string name = normalised(dataset);
    Handle ds = open_dataset(id_, where(name), name);
    const auto dims = shape(name);
    if (static_cast<int>(dims.size()) != rank)
        TESSEL_INVALID_INPUT(where(name), 0, "expected rank " + std::to_string(rank) + ", found " +
                                                 std::to_string(dims.size()));
    require_numeric(ds.get(), where(name));
    return dims;
}

template <Hdf5Number T>
std::vector<T> File::read(const std::string& dataset) const {
    const auto dims = shape(dataset);
    return read_slab<T>(dataset, Hyperslab{std::vector<size_type>(dims.size(), 0), dims});
}

template <Hdf5Number T>
std::vector<T> File::read_slab(const std::string& dataset, const Hyperslab& slab) const {
    std::vector<T> out(static_cast<std::size_t>(product(slab.count) > 0 ? product(slab.count) : 0));
    read_slab_into<T>(dataset, slab, out.data());
    return out;
}

template <Hdf5Number T>
void File::read_slab_into(const std::string& dataset, const Hyperslab& slab, T* out) const {
    const std::string name = normalised(dataset);
    Handle ds = open_dataset(id_, where(name), name);
    require_numeric(ds.get(), where(name));
    Handle file_space = select_slab(ds.get(), where(name), slab);
    if (product(slab.count) == 0) return;
    Handle mem_space = simple_space(slab.count);
    if (H5Dread(ds.get(), memory_type<T>(), mem_space.get(), file_space.get(), H5P_DEFAULT, out) < 0)
        TESSEL_HDF5_FAIL(where(name), std::string("read failed"));
}

template <Hdf5Number T>
void File::create_dataset(const std::string& dataset, const std::vector<size_type>& shape,
                          const DatasetOptions& options) {
    silence_hdf5();
    const std::string name = normalised(dataset);
    if (!writable()) TESSEL_HDF5_FAIL(where(name), std::string("file is not open for writing"));
    if (exists(name)) TESSEL_HDF5_FAIL(where(name), std::string("already exists"));
    for (auto d : shape)
        if (d < 0) TESSEL_HDF5_FAIL(where(name), "negative shape " + dims_text(shape));
    Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    const bool has_zero = std::find(shape.begin(), shape.end(), 0) != shape.end();
    if ((!options.chunk.empty() || options.deflate > 0 || options.fletcher32) && !shape.empty() && !has_zero) {
        if (!options.chunk.empty() && options.chunk.size() != shape.size())
            TESSEL_HDF5_FAIL(where(name), "chunk rank " + std::to_string(options.chunk.size()) +
                                              " differs from dataset rank " + std::to_string(shape.size()));
        // Default chunk: one slice of the leading index; chunks never exceed the shape.
        std::vector<hsize_t> chunk(shape.size());
        for (std::size_t d = 0; d < shape.size(); ++d) {
            size_type c = options.chunk.empty() ? (d == 0 && shape.size() > 1 ? 1 : shape[d])
                                                : options.chunk[d];
            chunk[d] = static_cast<hsize_t>(std::clamp<size_type>(c, 1, shape[d]));
        }
        if (H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()) < 0)
            TESSEL_HDF5_FAIL(where(name), std::string("cannot set chunk shape"));
        if (options.deflate > 0) {
            if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0)
                TESSEL_HDF5_FAIL(where(name), std::string("deflate compression is not available in this HDF5"));
            if (options.shuffle && H5Pset_shuffle(dcpl.get()) < 0)
                TESSEL_HDF5_FAIL(where(name), std::string("cannot set shuffle filter"));
            if (H5Pset_deflate(dcpl.get(), static_cast<unsigned>(std::min(options.deflate, 9))) < 0)
                TESSEL_HDF5_FAIL(where(name), std::string("cannot set deflate filter"));
        }
        if (options.fletcher32 && H5Pset_fletcher32(dcpl.get()) < 0)
            TESSEL_HDF5_FAIL(where(name), std::string("cannot set fletcher32 filter"));
    }
    Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    Handle space = simple_space(shape);
    Handle ds(H5Dcreate2(id_, name.c_str(), file_type<T>(), space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT),
              H5Dclose);
    if (!ds.valid()) TESSEL_HDF5_FAIL(where(name), std::string("cannot create dataset"));
}

template <Hdf5Number T>
void File::write(const std::string& dataset, const std::vector<size_type>& shape, const T* data,
                 const DatasetOptions& options) {
    create_dataset<T>(dataset, shape, options);
    write_slab<T>(dataset, Hyperslab{std::vector<size_type>(shape.size(), 0), shape}, data);
}

template <Hdf5Number T>
void File::write_slab(const std::string& dataset, const Hyperslab& slab, const T* data) {
    const std::string name = normalised(dataset);
    if (!writable()) TESSEL_HDF5_FAIL(where(name), std::string("file is not open for writing"));
    Handle ds = open_dataset(id_, where(name), name);
    Handle file_space = select_slab(ds.get(), where(name), slab);
    if (product(slab.count) == 0) return;
    Handle mem_space = simple_space(slab.count);
    if (H5Dwrite(ds.get(), memory_type<T>(), mem_space.get(), file_space.get(), H5P_DEFAULT, data) < 0)
        TESSEL_HDF5_FAIL(where(name), std::string("write failed"));
}

void File::write_attribute(const std::string& object, const std::string& name, const std::string& value) {
    const std::string obj = normalised(object);
    if (!writable()) TESSEL_HDF5_FAIL(where(obj), std::string("file is not open for writing"));
    Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), value.size() + 1);
    H5Tset_strpad(type.get(), H5T_STR_NULLTERM);
    H5Tset_cset(type.get(), H5T_CSET_UTF8);
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    put_attribute(id_, where(obj), obj, name, type.get(), type.get(), space.get(), value.c_str());
}

void File::remove_attribute(const std::string& object, const std::string& name) {
    const std::string obj = normalised(object);
    if (!writable()) TESSEL_HDF5_FAIL(where(obj), std::string("file is not open for writing"));
    Handle handle = open_object(id_, where(obj), obj, "object");
    const htri_t exists = H5Aexists(handle.get(), name.c_str());
    if (exists > 0 && H5Adelete(handle.get(), name.c_str()) < 0)
        TESSEL_HDF5_FAIL(where(obj), "cannot remove attribute '" + name + "'");
}

void File::write_attribute(const std::string& object, const std::string& name, const char* value) {
    write_attribute(object, name, std::string(value));
}

template <Hdf5Number T>
void File::write_attribute(const std::string& object, const std::string& name, T value) {
    const std::string obj = normalised(object);
    if (!writable()) TESSEL_HDF5_FAIL(where(obj), std::string("file is not open for writing"));
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    put_attribute(id_, where(obj), obj, name, file_type<T>(), memory_type<T>(), space.get(), &value);
}

template <Hdf5Number T>
void File::write_attribute(const std::string& object, const std::string& name, const std::vector<T>& values) {
    const std::string obj = normalised(object);
    if (!writable()) TESSEL_HDF5_FAIL(where(obj), std::string("file is not open for writing"));
    const hsize_t n = values.size();
    Handle space(values.empty() ? H5Screate(H5S_NULL) : H5Screate_simple(1, &n, nullptr), H5Sclose);
    const T none{};  // HDF5 refuses a null buffer even for an empty (H5S_NULL) attribute
    put_attribute(id_, where(obj), obj, name, file_type<T>(), memory_type<T>(), space.get(),
                  values.empty() ? &none : values.data());
}

bool File::has_attribute(const std::string& object, const std::string& name) const {
    const std::string obj = normalised(object);
    if (!exists(obj)) return false;
    Handle h = open_object(id_, where(obj), obj, "object");
    const htri_t found = H5Aexists(h.get(), name.c_str());
    if (found < 0) TESSEL_HDF5_FAIL(where(obj), "cannot look up attribute '" + name + "'");
    return found > 0;
}

std::string File::read_string_attribute(const std::string& object, const std::string& name) const {
    const std::string obj = normalised(object);
    Handle attr = open_attribute(id_, where(obj), obj, name);
    Handle type(H5Aget_type(attr.get()), H5Tclose);
    if (!type.valid() || H5Tget_class(type.get()) != H5T_STRING)
        TESSEL_INVALID_INPUT(where(obj), 0, "attribute '" + name + "' is not a string" +
                                                (type.valid() ? " (" + describe(type.get()) + ")" : std::string()));
    Handle space(H5Aget_space(attr.get()), H5Sclose);
    const hssize_t points = H5Sget_simple_extent_npoints(space.get());
    if (points != 1)
        TESSEL_INVALID_INPUT(where(obj), 0, "attribute '" + name + "' holds " + std::to_string(points) +
                                                " strings, expected one");
    std::string value;
    if (H5Tis_variable_str(type.get()) > 0) {
        Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
        H5Tset_size(mem.get(), H5T_VARIABLE);
        H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
        char* text = nullptr;
        if (H5Aread(attr.get(), mem.get(), &text) < 0)
            TESSEL_HDF5_FAIL(where(obj), "cannot read attribute '" + name + "'");
        if (text) value = text;
        H5free_memory(text);
    } else {
        std::vector<char> buffer(H5Tget_size(type.get()) + 1, '\0');
        if (H5Aread(attr.get(), type.get(), buffer.data()) < 0)
            TESSEL_HDF5_FAIL(where(obj), "cannot read attribute '" + name + "'");
        value.assign(buffer.data());  // stops at the first NUL (NULLTERM and NULLPAD)
        if (H5Tget_strpad(type.get()) == H5T_STR_SPACEPAD)
            value.erase(value.find_last_not_of(' ') + 1);
    }
    return value;
}

template <Hdf5Number T>
T File::read_attribute(const std::string& object, const std::string& name) const {
    const std::string obj = normalised(object);
    Handle attr = open_attribute(id_, where(obj), obj, name);
    const hssize_t points = numeric_attribute_size(attr.get(), where(obj), name);
    if (points != 1)
        TESSEL_INVALID_INPUT(where(obj), 0, "attribute '" + name + "' holds " + std::to_string(points) +
                                                " values, expected one");
    T value{};
    if (H5Aread(attr.get(), memory_type<T>(), &value) < 0)
        TESSEL_HDF5_FAIL(where(obj), "cannot read attribute '" + name + "'");
    return value;
}

template <Hdf5Number T>
std::vector<T> File::read_array_attribute(const std::string& object, const std::string& name) const {
    const std::string obj = normalised(object);
    Handle attr = open_attribute(id_, where(obj), obj, name);
    const hssize_t points = numeric_attribute_size(attr.get(), where(obj), name);
    std::vector<T> values(static_cast<std::size_t>(points > 0 ? points : 0));
    if (!values.empty() && H5Aread(attr.get(), memory_type<T>(), values.data()) < 0)
        TESSEL_HDF5_FAIL(where(obj), "cannot read attribute '" + name + "'");
    return values;
}

#define TESSEL_INSTANTIATE(T)                                                                              \
    template std::vector<T> File::read<T>(const std::string&) const;                                       \
    template std::vector<T> File::read_slab<T>(const std::string&, const Hyperslab&) const;                \
    template void File::read_slab_into<T>(const std::string&, const Hyperslab&, T*) const;                 \
    template void File::create_dataset<T>(const std::string&, const std::vector<size_type>&,               \
                                          const DatasetOptions&);                                          \
    template void File::write<T>(const std::string&, const std::vector<size_type>&, const T*,              \
                                 const DatasetOptions&);                                                   \
    template void File::write_slab<T>(const std::string&, const Hyperslab&, const T*);                     \
    template void File::write_attribute<T>(const std::string&, const std::string&, T);                     \
    template void File::write_attribute<T>(const std::string&, const std::string&, const std::vector<T>&); \
    template T File::read_attribute<T>(const std::string&, const std::string&) const;                      \
    template std::vector<T> File::read_array_attribute<T>(const std::string&, const std::string&) const;
TESSEL_INSTANTIATE(float)
TESSEL_INSTANTIATE(double)
TESSEL_INSTANTIATE(std::uint8_t)
TESSEL_INSTANTIATE(std::uint16_t)
TESSEL_INSTANTIATE(std::int16_t)
TESSEL_INSTANTIATE(std::uint32_t)
TESSEL_INSTANTIATE(std::int32_t)
TESSEL_INSTANTIATE(std::int64_t)
TESSEL_INSTANTIATE(std::uint64_t)
#undef TESSEL_INSTANTIATE

}  // namespace tessel::io
