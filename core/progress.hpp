// One progress line for long loops, redrawn in place; silent when stderr is not a terminal.
#pragma once

#include <string>

#include "core/timer.hpp"
#include "core/types.hpp"

namespace tessel {

/// Prints "label: done/total (pct%) eta Ns [extra]" to stderr, at most every 0.2 s.
class Progress {
public:
    /// `enabled` defaults to whether stderr is a terminal.
    Progress(std::string label, size_type total, int enabled = -1);
    ~Progress();
    /// Sets the number of finished steps and an optional free-form tail (residual, rate).
    void update(size_type done, const std::string& extra = "");
    /// Prints the final state and a newline.
    void finish(const std::string& extra = "");
    bool enabled() const { return enabled_; }

private:
    void draw(size_type done, const std::string& extra);

    std::string label_;
    size_type total_;
    bool enabled_;
    bool finished_ = false;
    Timer timer_;
    double last_draw_ = -1.0;
};

}  // namespace tessel
