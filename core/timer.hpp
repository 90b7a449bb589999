// Wall-clock timing: a stopwatch and named phase accumulators for metrics.
#pragma once

#include <chrono>
#include <map>
#include <string>

namespace tessel {

/// Seconds since construction or the last restart().
class Timer {
public:
    Timer() : start_(clock::now()) {}
    void restart() { start_ = clock::now(); }
    double seconds() const { return std::chrono::duration<double>(clock::now() - start_).count(); }

private:
    using clock = std::chrono::steady_clock;
    clock::time_point start_;
};

/// Total seconds per named phase (read, build, iterate, ...), in insertion-independent order.
class PhaseTimes {
public:
    void add(const std::string& phase, double seconds) { totals_[phase] += seconds; }
    double get(const std::string& phase) const {
        auto it = totals_.find(phase);
        return it == totals_.end() ? 0.0 : it->second;
    }
    const std::map<std::string, double>& all() const { return totals_; }

    /// Times the enclosing scope into `phase`.
    class Scope {
    public:
        Scope(PhaseTimes& times, std::string phase) : times_(times), phase_(std::move(phase)) {}
        ~Scope() { times_.add(phase_, timer_.seconds()); }
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        PhaseTimes& times_;
        std::string phase_;
        Timer timer_;
    };
    Scope scope(std::string phase) { return Scope(*this, std::move(phase)); }

private:
    std::map<std::string, double> totals_;
};

}  // namespace tessel
