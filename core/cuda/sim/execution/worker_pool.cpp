// A fixed pool of host threads fed one grid at a time through a shared atomic block counter.
#include "core/cuda/sim/execution/worker_pool.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace tessel::sim {

namespace {

class Pool {
public:
    Pool() {
        const char* v = std::getenv("TESSEL_SIM_THREADS");
        const int n = v ? std::max(1, std::atoi(v)) : std::max(1u, std::thread::hardware_concurrency());
        for (int i = 1; i < n; ++i) helpers_.emplace_back([this] { serve(); });
    }
    ~Pool() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (auto& t : helpers_) t.join();
    }

    void run(long long count, const std::function<void(long long)>& task) {
        std::lock_guard grid(grid_mutex_);
        {
            std::lock_guard lock(mutex_);
            task_ = &task;
            count_ = count;
            next_.store(0);
            busy_ = int(helpers_.size());
            ++generation_;
        }
        wake_.notify_all();
        work();
        std::unique_lock lock(mutex_);
        done_.wait(lock, [this] { return busy_ == 0; });
        task_ = nullptr;
    }

private:
    void work() {
        for (long long i = next_.fetch_add(1); i < count_; i = next_.fetch_add(1)) (*task_)(i);
    }
    void serve() {
        unsigned long long seen = 0;
        for (;;) {
            {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
                if (stopping_) return;
                seen = generation_;
            }
            work();
            std::lock_guard lock(mutex_);
            if (--busy_ == 0) done_.notify_all();
        }
    }

    std::vector<std::thread> helpers_;
    std::mutex grid_mutex_, mutex_;
    std::condition_variable wake_, done_;
    const std::function<void(long long)>* task_ = nullptr;
    long long count_ = 0;
    std::atomic<long long> next_{0};
    int busy_ = 0;
    unsigned long long generation_ = 0;
    bool stopping_ = false;
};

}  // namespace

void run_on_pool(long long count, const std::function<void(long long)>& task) {
    static Pool pool;
    pool.run(count, task);
}

}  // namespace tessel::sim
