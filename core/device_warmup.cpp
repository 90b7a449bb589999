#include "core/device_warmup.hpp"

#include "core/backend.hpp"

namespace tessel {

DeviceWarmup::DeviceWarmup(bool start) {
    if (start) thread_ = std::thread([this] { seconds_ = cuda::create_context(); });
}

DeviceWarmup::~DeviceWarmup() {
    if (thread_.joinable()) thread_.join();
}

double DeviceWarmup::seconds() {
    if (thread_.joinable()) thread_.join();
    return seconds_;
}

}  // namespace tessel
