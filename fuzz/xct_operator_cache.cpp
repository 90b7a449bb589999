// Fuzzes the reader of tessel-xct's operator cache files: each input is tried as it is and
// resealed (its length field and checksum made right), so that mutations also reach the array
// parsing and the structure check behind the checksum. A file is refused with a reason or
// loaded whole; when loaded, its arrays must pass the structure check and every slot is read.
#include <cstdint>
#include <cstring>
#include <string>

#include "apps/xct/cache/operator_cache_file.hpp"
#include "core/formats/tiled_ell_check.hpp"
#include "fuzz/fuzz_file.hpp"

namespace {

// The key of fuzz/corpus/xct_operator_cache/*.bin (written by tessel-xct-test-tool
// operator-cache-seed).
const tessel::xct::OperatorCacheKey key{"fuzz seed operator"};

// The input with bytes 16..23 (the file's length) and the last 8 (the checksum) made right.
std::string resealed(const std::uint8_t* data, std::size_t size) {
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (size < 32) return bytes;
    const std::uint64_t length = size;
    std::memcpy(bytes.data() + 16, &length, 8);
    const std::uint64_t sum =
        tessel::xct::operator_cache_checksum(reinterpret_cast<const unsigned char*>(bytes.data()) + 8, size - 16);
    std::memcpy(bytes.data() + size - 8, &sum, 8);
    return bytes;
}

void load(const std::string& path, bool with_transpose) {
    std::string why;
    const auto ops = tessel::xct::load_tiled_operators<float>(path, key, with_transpose, why);
    if (!ops) return;
    for (const auto* m : {&ops->a, &ops->at}) {
        if (!with_transpose && m == &ops->at) continue;
        if (!tessel::tiled_ell_structure_error(*m).empty()) __builtin_trap();
        float sum = 0;
        for (std::size_t e = 0; e < m->index.size(); ++e) sum += m->value(static_cast<tessel::size_type>(e));
        (void)sum;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string sealed = resealed(data, size);
    for (const std::string* bytes : {static_cast<const std::string*>(nullptr), &sealed}) {
        const auto* p = bytes ? reinterpret_cast<const std::uint8_t*>(bytes->data()) : data;
        const auto path = tessel::fuzz::input_file(p, bytes ? bytes->size() : size, "input.op.bin");
        load(path, true);
        load(path, false);
    }
    return 0;
}
