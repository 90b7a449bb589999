// Progress line implementation.
#include "core/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace tessel {

Progress::Progress(std::string label, size_type total, int enabled)
    : label_(std::move(label)), total_(total),
      enabled_(enabled < 0 ? isatty(fileno(stderr)) != 0 : enabled != 0) {}

Progress::~Progress() {
    if (enabled_ && !finished_ && last_draw_ >= 0) std::fputc('\n', stderr);
}

void Progress::update(size_type done, const std::string& extra) {
    if (!enabled_) return;
    const double now = timer_.seconds();
    if (last_draw_ >= 0 && now - last_draw_ < 0.2 && done < total_) return;
    last_draw_ = now;
    draw(done, extra);
}

void Progress::finish(const std::string& extra) {
    if (!enabled_ || finished_) return;
    draw(total_, extra);
    std::fputc('\n', stderr);
    finished_ = true;
}

void Progress::draw(size_type done, const std::string& extra) {
    const double elapsed = timer_.seconds();
    const double pct = total_ > 0 ? 100.0 * double(done) / double(total_) : 100.0;
    const double eta = done > 0 ? elapsed * double(total_ - done) / double(done) : 0.0;
    std::fprintf(stderr, "\r%s: %lld/%lld (%.0f%%) %.1fs eta %.1fs %s\033[K", label_.c_str(),
                 static_cast<long long>(done), static_cast<long long>(total_), pct, elapsed, eta,
                 extra.c_str());
    std::fflush(stderr);
}

}  // namespace tessel
