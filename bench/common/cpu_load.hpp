// How much of the machine other processes used while a benchmark ran (Linux /proc), so that
// timings taken on a shared machine can be flagged or re-taken when it was quiet.
#pragma once

namespace tessel::bench {

/// CPU time of the whole machine and of this process, in clock ticks, at one instant.
struct CpuSample {
    long long machine_busy = 0;   // user+nice+system+irq+softirq+steal over all CPUs
    long long machine_total = 0;  // the above plus idle and iowait
    long long self = 0;           // this process: utime + stime (all threads)
    bool valid = false;
};

/// Reads /proc/stat and /proc/self/stat; valid == false where they cannot be read.
CpuSample sample_cpu();

/// Fraction (0..1) of the machine's CPU capacity that other processes used between two
/// samples; 0 when either sample is invalid or no time passed.
double others_fraction(const CpuSample& before, const CpuSample& after);

/// Waits until other processes use less than `threshold` of the machine over a 0.25 s
/// window, or `max_seconds` passed. Returns the seconds waited.
double wait_for_quiet(double max_seconds, double threshold = 0.10);

}  // namespace tessel::bench
