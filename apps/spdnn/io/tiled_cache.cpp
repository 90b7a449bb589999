// Stored tiled ELL layers of a network cache (tiled_cache.hpp): one group per layer, checked
// against each other, the memory and the checksum before the kernels see them.
#include "apps/spdnn/io/tiled_cache.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "apps/spdnn/io/cache.hpp"
#include "core/app/memory_check.hpp"
#include "core/error.hpp"
#include "core/formats/tiled_ell_check.hpp"

namespace tessel::spdnn {

const char* const tiled_cache_format = "tessel-spdnn tiled ELL layers";

namespace {

constexpr size_type warp = TiledEll<Value, Index>::warp_size;

// Any contiguous array: std::vector or SlotArray.
template <typename Array>
std::uint64_t chain(const Array& v, std::uint64_t h) {
    return checksum(v.data(), v.size() * sizeof(v[0]), h);
}

template <typename Array>
void put(io::File& file, const std::string& name, const Array& v) {
    using T = typename Array::value_type;
    const auto n = static_cast<size_type>(v.size());
    file.create_dataset<T>(name, {n});
    if (n > 0) file.write_slab<T>(name, {{0}, {n}}, v.data());
}

std::string reorder_name(bool reorder) { return reorder ? "locality" : "none"; }

// Reads one stored layer group, every failure one line naming the file and the object.
class LayerReader {
public:
    LayerReader(const io::File& file, size_type k) : file_(file), group_(tiled_layer_group(k)) {}

    [[noreturn]] void fail(const std::string& dataset, const std::string& what) const {
        TESSEL_INVALID_INPUT(file_.path() + ":" + group_ + (dataset.empty() ? "" : "/" + dataset), 0, what);
    }
    void require_group() const {
        if (!file_.exists(group_)) fail("", "missing (the stored tiled layers are incomplete)");
    }
    template <typename T>
    T attribute(const std::string& name) const {
        if (!file_.has_attribute(group_, name)) fail("", "attribute '" + name + "' not found");
        return file_.read_attribute<T>(group_, name);
    }
    // The length of a 1-d dataset, which must be `expected` (checked before reading it).
    size_type length(const std::string& name, size_type expected) const {
        const std::string path = group_ + "/" + name;
        if (!file_.exists(path)) fail(name, "dataset not found");
        const size_type n = file_.require(path, 1)[0];
        if (n != expected)
            fail(name, "holds " + std::to_string(n) + " entries, expected " + std::to_string(expected));
        return n;
    }
    template <typename T>
    std::vector<T> read(const std::string& name, size_type expected) const {
        return length(name, expected) == 0 ? std::vector<T>() : file_.read<T>(group_ + "/" + name);
    }
    // read into the tiled ELL's own (huge-page) arrays.
    template <typename T>
    void read_into(const std::string& name, size_type expected, SlotArray<T>& out) const {
        out.resize(static_cast<std::size_t>(length(name, expected)));
        if (!out.empty()) file_.read_slab_into<T>(group_ + "/" + name, {{0}, {expected}}, out.data());
    }
    // Offsets: start at 0, each step in [low, high].
    void offsets(const std::string& name, const std::vector<size_type>& d, size_type low, size_type high,
                 const char* step) const {
        if (d.front() != 0) fail(name, "starts at " + std::to_string(d.front()) + ", expected 0");
        for (std::size_t i = 0; i + 1 < d.size(); ++i)  // d[i] is bounded already: d[i] + high cannot overflow
            if (d[i + 1] < d[i] + low || d[i + 1] > d[i] + high)
                fail(name, std::string(step) + " " + std::to_string(i) + " spans " + std::to_string(d[i]) + ".." +
                               std::to_string(d[i + 1]) + ", expected " + std::to_string(low) + " to " +
                               std::to_string(high) + " entries");
    }

private:
    const io::File& file_;
    std::string group_;
};

// Every column, local index (core's structure check), value and the order of a layer whose
// sizes agree.
void check_entries(const LayerReader& r, const PreparedLayer& p, size_type neurons) {
    const auto& t = p.ell;
    if (const std::string error = tiled_ell_structure_error(t); !error.empty()) r.fail("", error);
    for (std::size_t e = 0; e < t.values.size(); ++e)
        if (!std::isfinite(t.values[e])) r.fail("values", "value at " + std::to_string(e) + " is not finite");
    if (p.order.empty()) return;
    std::vector<char> seen(static_cast<std::size_t>(neurons), 0);
    for (std::size_t i = 0; i < p.order.size(); ++i) {
        const Index q = p.order[i];
        if (q < 0 || q >= neurons || seen[q])
            r.fail("order", "entry " + std::to_string(i) + " (" + std::to_string(q) +
                                ") makes it no permutation of 0.." + std::to_string(neurons - 1));
        seen[q] = 1;
    }
}

}  // namespace

std::string tiled_layer_group(size_type k) { return std::string(tiled_group) + "/layer" + std::to_string(k + 1); }

std::uint64_t tiled_layer_checksum(const PreparedLayer& layer) {
    const auto& t = layer.ell;
    const std::vector<size_type> sizes{t.rows, t.cols, t.nnz};
    std::uint64_t h = chain(sizes, 11);
    h = chain(t.buffdispl, h);
    h = chain(t.mapdispl, h);
    h = chain(t.warpdispl, h);
    h = chain(t.map, h);
    h = chain(t.index, h);
    h = chain(t.values, h);
    return chain(layer.order, h);
}

void write_tiled_layer(io::File& file, size_type k, const PreparedLayer& layer) {
    const auto& t = layer.ell;
    TESSEL_ENSURE_DIMS(!t.stores_half(), "stored tiled layers hold float values");
    const std::string g = tiled_layer_group(k);
    put(file, g + "/buffdispl", t.buffdispl);
    put(file, g + "/mapdispl", t.mapdispl);
    put(file, g + "/warpdispl", t.warpdispl);
    put(file, g + "/map", t.map);
    put(file, g + "/index", t.index);
    put(file, g + "/values", t.values);
    if (!layer.order.empty()) put(file, g + "/order", layer.order);
    file.write_attribute<std::int64_t>(g, "rows", t.rows);
    file.write_attribute<std::int64_t>(g, "cols", t.cols);
    file.write_attribute<std::int64_t>(g, "nnz", t.nnz);
    file.write_attribute<std::uint64_t>(g, "checksum", tiled_layer_checksum(layer));
}

void write_tiled_header(io::File& file, size_type neurons, size_type layers, const WeightLayout& layout) {
    file.write_attribute(tiled_group, "format", tiled_cache_format);
    file.write_attribute<std::int64_t>(tiled_group, "version", tiled_cache_version);
    file.write_attribute<std::int64_t>(tiled_group, "neurons", neurons);
    file.write_attribute<std::int64_t>(tiled_group, "layers", layers);
    file.write_attribute<std::int64_t>(tiled_group, "block_rows", layout.ell.block_rows);
    file.write_attribute<std::int64_t>(tiled_group, "buffer_entries", layout.ell.buffer_entries);
    file.write_attribute<std::int64_t>(tiled_group, "warp_size", warp);
    file.write_attribute(tiled_group, "reorder", reorder_name(layout.reorder));
    file.write_attribute(tiled_group, "value_type", "float32");
    file.write_attribute(tiled_group, "index_type", "int32");
    file.write_attribute(tiled_group, "local_index_type", "uint16");
}

StoredTiled probe_stored_tiled(const std::string& path, size_type neurons, size_type layers,
                               const WeightLayout& wanted) {
    check_tiled_ell_config(wanted.ell);
    const auto file = io::File::open(path);
    if (!file.exists(tiled_group)) return {false, "the cache " + path + " has no stored tiled-ELL layers"};
    const std::string where = path + ":" + tiled_group;
    for (const char* name : {"format", "version", "neurons", "layers", "block_rows", "buffer_entries", "warp_size",
                             "reorder", "value_type", "index_type", "local_index_type"})
        if (!file.has_attribute(tiled_group, name))
            TESSEL_INVALID_INPUT(where, 0, std::string("attribute '") + name +
                                               "' not found (the stored tiled layers are incomplete)");
    if (file.read_string_attribute(tiled_group, "format") != tiled_cache_format)
        TESSEL_INVALID_INPUT(where, 0, std::string("format is not '") + tiled_cache_format + "'");
    if (file.read_attribute<std::int64_t>(tiled_group, "version") != tiled_cache_version)
        TESSEL_INVALID_INPUT(where, 0, "version " +
                                           std::to_string(file.read_attribute<std::int64_t>(tiled_group, "version")) +
                                           ", this build reads " + std::to_string(tiled_cache_version));
    const auto n = file.read_attribute<std::int64_t>(tiled_group, "neurons");
    const auto l = file.read_attribute<std::int64_t>(tiled_group, "layers");
    if (n != neurons || l != layers)
        TESSEL_INVALID_INPUT(where, 0, "holds N = " + std::to_string(n) + ", L = " + std::to_string(l) +
                                           ", the network is N = " + std::to_string(neurons) +
                                           ", L = " + std::to_string(layers));
    // Options of the conversion: a difference is no error, the run converts instead.
    std::string diff;
    auto compare = [&](const char* name, const std::string& stored, const std::string& asked) {
        if (stored != asked) diff += std::string(diff.empty() ? "" : ", ") + name + " " + stored + " (this run: " + asked + ")";
    };
    auto number = [&](const char* name) { return std::to_string(file.read_attribute<std::int64_t>(tiled_group, name)); };
    auto text = [&](const char* name) { return file.read_string_attribute(tiled_group, name); };
    compare("block_rows", number("block_rows"), std::to_string(wanted.ell.block_rows));
    compare("buffer_entries", number("buffer_entries"), std::to_string(wanted.ell.buffer_entries));
    compare("warp_size", number("warp_size"), std::to_string(warp));
    compare("reorder", text("reorder"), reorder_name(wanted.reorder));
    compare("value_type", text("value_type"), "float32");
    compare("index_type", text("index_type"), "int32");
    compare("local_index_type", text("local_index_type"), "uint16");
    if (!diff.empty()) return {false, "the stored tiled-ELL layers of " + path + " were converted with " + diff};
    return {true, ""};
}

PreparedLayer read_tiled_layer(const io::File& file, size_type k, size_type neurons, const WeightLayout& layout,
                               bool verify_checksum) {
    const LayerReader r(file, k);
    r.require_group();
    const auto rows = r.attribute<std::int64_t>("rows"), cols = r.attribute<std::int64_t>("cols");
    const auto nnz = r.attribute<std::int64_t>("nnz");
    const auto sum = r.attribute<std::uint64_t>("checksum");
    if (rows != neurons || cols != neurons)
        r.fail("", "is " + std::to_string(rows) + " x " + std::to_string(cols) + ", expected " +
                       std::to_string(neurons) + " x " + std::to_string(neurons));
    PreparedLayer p;
    auto& t = p.ell;
    t.rows = t.cols = neurons;
    t.config = layout.ell;
    const size_type br = layout.ell.block_rows, be = layout.ell.buffer_entries, warps = br / warp;
    const size_type blocks = (neurons + br - 1) / br;
    // Sizes before allocating: each array's length follows from the offsets read before it.
    t.buffdispl = r.read<size_type>("buffdispl", blocks + 1);
    r.offsets("buffdispl", t.buffdispl, 1, (neurons + be - 1) / be, "block");
    const size_type stages = t.buffdispl.back();
    t.mapdispl = r.read<size_type>("mapdispl", stages + 1);
    r.offsets("mapdispl", t.mapdispl, 0, be, "stage");
    const size_type max_width = std::numeric_limits<std::int32_t>::max();
    r.length("warpdispl", stages * warps + 1);
    app::require_memory(file.path() + ":" + tiled_layer_group(k), "the warp offsets", 8.0 * double(stages * warps + 1));
    t.warpdispl = r.read<size_type>("warpdispl", stages * warps + 1);
    r.offsets("warpdispl", t.warpdispl, 0, max_width, "warp");
    const size_type map_entries = t.mapdispl.back(), slots = t.warpdispl.back();
    app::require_index_range<std::int64_t>(file.path() + ":" + tiled_layer_group(k), 0, "the slot count",
                                           double(slots) * warp * 8);
    const size_type stored = slots * warp;
    r.length("map", map_entries);
    r.length("index", stored);
    r.length("values", stored);
    if (layout.reorder) r.length("order", neurons);
    app::require_memory(file.path() + ":" + tiled_layer_group(k), "the stored tiled layer",
                        double(map_entries) * 4 + double(stored) * 6 + (layout.reorder ? 4.0 * neurons : 0.0));
    if (nnz < 0 || nnz > stored)
        r.fail("", "nnz " + std::to_string(nnz) + " outside 0.." + std::to_string(stored) + " (the slots)");
    t.nnz = nnz;
    t.map = r.read<Index>("map", map_entries);
    r.read_into<std::uint16_t>("index", stored, t.index);
    r.read_into<Value>("values", stored, t.values);
    if (layout.reorder) p.order = r.read<Index>("order", neurons);
    if (verify_checksum && tiled_layer_checksum(p) != sum)
        r.fail("", "checksum mismatch (the layer was torn or edited)");
    check_entries(r, p, neurons);
    return p;
}

}  // namespace tessel::spdnn
