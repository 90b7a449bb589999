// TESSEL_HOST_DEVICE: functions written once for the host and the device (__host__ __device__
// under nvcc, nothing for the host compiler and the CUDA simulator).
#pragma once

#if !defined(TESSEL_HOST_DEVICE)
#if defined(__CUDACC__)
#define TESSEL_HOST_DEVICE __host__ __device__
#else
#define TESSEL_HOST_DEVICE
#endif
#endif
