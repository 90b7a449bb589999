// cuda::gemm in builds without CUDA: every entry point throws NotCompiled.
#include <string>

#include "core/error.hpp"
#include "core/kernels/gemm_kernels.hpp"

namespace tessel::cuda {

namespace {
[[noreturn]] void gemm_not_compiled(const char* what) {
    TESSEL_THROW(NotCompiled, std::string(what) +
                                  ": this build of tessel has no CUDA backend (nvcc was not found at configure time)");
}
}  // namespace

GemmHandle::GemmHandle(void*) { gemm_not_compiled("cuda::GemmHandle"); }
GemmHandle::~GemmHandle() = default;
GemmHandle::GemmHandle(GemmHandle&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
GemmHandle& GemmHandle::operator=(GemmHandle&& other) noexcept {
    handle_ = other.handle_;
    other.handle_ = nullptr;
    return *this;
}

void gemm(GemmHandle&, size_type, size_type, size_type, double, const double*, size_type, const double*, size_type,
          double, double*, size_type) {
    gemm_not_compiled("cuda::gemm");
}
void gemm(GemmHandle&, size_type, size_type, size_type, float, const float*, size_type, const float*, size_type, float,
          float*, size_type) {
    gemm_not_compiled("cuda::gemm");
}

}  // namespace tessel::cuda
