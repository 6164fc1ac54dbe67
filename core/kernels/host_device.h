#pragma once
// Marks a formula that both the CPU kernels and the CUDA ones compile (one definition for both sides).
#ifdef __CUDACC__
#define NW_HOST_DEVICE __host__ __device__
#else
#define NW_HOST_DEVICE
#endif
