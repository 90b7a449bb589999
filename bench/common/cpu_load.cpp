// CPU load of other processes from /proc/stat and /proc/self/stat.
#include "bench/common/cpu_load.hpp"

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "core/timer.hpp"

namespace tessel::bench {

CpuSample sample_cpu() {
    CpuSample s;
    std::ifstream stat("/proc/stat");
    std::string cpu;
    long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (!(stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) ||
        cpu != "cpu")
        return s;
    s.machine_busy = user + nice + system + irq + softirq + steal;
    s.machine_total = s.machine_busy + idle + iowait;
    // /proc/self/stat: the command name is in parentheses and may hold spaces; utime and
    // stime are fields 14 and 15, i.e. the 12th and 13th after the closing parenthesis.
    std::ifstream self("/proc/self/stat");
    std::string line;
    if (!std::getline(self, line)) return s;
    const auto close = line.rfind(')');
    if (close == std::string::npos) return s;
    std::istringstream rest(line.substr(close + 1));
    std::string field;
    long long utime = 0, stime = 0;
    for (int i = 1; i <= 13 && rest >> field; ++i) {
        if (i == 12) utime = std::stoll(field);
        if (i == 13) stime = std::stoll(field);
    }
    s.self = utime + stime;
    s.valid = true;
    return s;
}

double others_fraction(const CpuSample& before, const CpuSample& after) {
    if (!before.valid || !after.valid) return 0;
    const long long total = after.machine_total - before.machine_total;
    if (total <= 0) return 0;
    const long long others =
        (after.machine_busy - before.machine_busy) - (after.self - before.self);
    return others <= 0 ? 0 : double(others) / double(total);
}

double wait_for_quiet(double max_seconds, double threshold) {
    Timer waited;
    while (true) {
        const CpuSample a = sample_cpu();
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
        const CpuSample b = sample_cpu();
        if (!a.valid || others_fraction(a, b) < threshold || waited.seconds() >= max_seconds)
            return waited.seconds();
    }
}

}  // namespace tessel::bench
