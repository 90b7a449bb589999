// --operator-cache DIR for a run: the operator loaded from the folder when a trusted file is
// there, else built and stored (the file itself: operator_cache_file.cpp).
#include <cstdio>
#include <filesystem>

#include "apps/xct/cache/operator_cache.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"

namespace tessel::xct {

template <typename V>
std::unique_ptr<LocalProjector<V>> cached_local_projector(const std::string& dir, const Geometry& g,
                                                          const Ordering& ordering, const ProjectorOptions& options,
                                                          PhaseTimes* times, std::ostream& log, bool talk) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) TESSEL_INVALID_INPUT(dir, 0, "operator cache: cannot create folder: " + ec.message());
    const OperatorCacheKey key = operator_cache_key(g, ordering, options, int(sizeof(V)));
    const std::string path = (std::filesystem::path(dir) / key.file_name()).string();
    const bool with_transpose = !options.scatter_transpose;
    std::string why_not;
    Timer timer;
    std::optional<TiledOperators<V>> loaded;
    {
        PhaseTimes local;
        auto scope = (times ? *times : local).scope("load");
        loaded = load_tiled_operators<V>(path, key, with_transpose, why_not);
    }
    if (loaded) {
        if (talk) log << "operator: loaded from " << path << " (mapped, checked) in " << timer.seconds() << " s\n";
        return std::make_unique<LocalProjector<V>>(std::move(loaded->a), std::move(loaded->at), options, times);
    }
    if (!why_not.empty()) std::fprintf(stderr, "tessel-xct: note: operator cache %s: %s; rebuilt\n", path.c_str(), why_not.c_str());
    TiledOperators<V> built;
    {
        PhaseTimes local;
        auto scope = (times ? *times : local).scope("build");
        built = build_tiled_operators<V>(g, ordering, options.tiles, options.half_values, with_transpose);
    }
    {
        PhaseTimes local;
        auto scope = (times ? *times : local).scope("cache");
        save_tiled_operators<V>(path, key, built.a, with_transpose ? &built.at : nullptr);
    }
    if (talk) log << "operator: stored in " << path << "\n";
    return std::make_unique<LocalProjector<V>>(std::move(built.a), std::move(built.at), options, times);
}

#define TESSEL_XCT_CACHE(V)                                                                                          \
    template std::unique_ptr<LocalProjector<V>> cached_local_projector<V>(const std::string&, const Geometry&,       \
                                                                          const Ordering&, const ProjectorOptions&, \
                                                                          PhaseTimes*, std::ostream&, bool);
TESSEL_XCT_CACHE(float)
TESSEL_XCT_CACHE(double)
#undef TESSEL_XCT_CACHE

}  // namespace tessel::xct
