// cuBLAS and cuSPARSE are opened at their first call (core/cuda/libraries/opened_libraries.cpp),
// not at the process's start: a cpu run does not carry them. Each case runs in a process of its
// own (ctest), so what it finds mapped at its start is what the start mapped.
#include <catch2/catch.hpp>
#include <link.h>

#include <cublas_v2.h>
#include <cusparse.h>

#include <string>

namespace {

// Whether a loaded object's path holds `name`.
bool mapped(const std::string& name) {
    struct Search {
        const std::string* name;
        bool found;
    } search{&name, false};
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
            auto* s = static_cast<Search*>(data);
            if (std::string(info->dlpi_name).find(*s->name) != std::string::npos) s->found = true;
            return 0;
        },
        &search);
    return search.found;
}

}  // namespace

TEST_CASE("cuBLAS is opened at its first call, not at the start", "[cuda-libraries]") {
    REQUIRE_FALSE(mapped("libcublas"));
    // Without a device the library answers with an error status: its own answer, through the
    // forwarding definition.
    cublasHandle_t handle = nullptr;
    const cublasStatus_t created = cublasCreate(&handle);
    CHECK(mapped("libcublas.so"));
    if (created == CUBLAS_STATUS_SUCCESS) cublasDestroy(handle);
    CHECK(std::string(cublasGetStatusName(CUBLAS_STATUS_NOT_INITIALIZED)) == "CUBLAS_STATUS_NOT_INITIALIZED");
}

TEST_CASE("cuSPARSE is opened at its first call, not at the start", "[cuda-libraries]") {
    REQUIRE_FALSE(mapped("libcusparse"));
    CHECK(std::string(cusparseGetErrorName(CUSPARSE_STATUS_INVALID_VALUE)) == "CUSPARSE_STATUS_INVALID_VALUE");
    CHECK(mapped("libcusparse.so"));
}
