// The cuSPARSE stand-in's handle and descriptors (internal to core/cuda/sim).
#pragma once

#include <cusparse.h>

#include <cstdint>
#include <string>

#include "core/formats/csr.hpp"

struct cusparseContext {
    cudaStream_t stream = nullptr;
};
struct cusparseSpMatDescr {
    std::int64_t rows, cols, nnz;
    void *offsets, *columns, *values;
    cusparseIndexType_t offset_type, column_type;
    cudaDataType type;
};
struct cusparseDnMatDescr {
    std::int64_t rows, cols, ld;
    void* values;
    cudaDataType type;
    cusparseOrder_t order;
};
struct cusparseSpGEMMDescr {
    bool estimated = false, computed = false;
    tessel::Csr<double, std::int32_t> product_d;
    tessel::Csr<float, std::int32_t> product_f;
};

namespace tessel::sim {
/// Reports a bad argument of a cuSPARSE call (one line on stderr) and returns INVALID_VALUE.
cusparseStatus_t cusparse_invalid(const std::string& why);
/// The documented requirements of a CSR descriptor, with its arrays on the device; "" when met.
std::string csr_problem(const cusparseSpMatDescr& a, bool arrays_needed);
}  // namespace tessel::sim
