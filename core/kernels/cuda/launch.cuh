#pragma once
// What every CUDA kernel file's launchers share: the block size, the grid for n elements, and the check
// right after a launch (a bad configuration surfaces there; faults while running, at the next sync).
// Called only after a launch that happened: a skipped one would report an earlier error as its own.
#include "backend/cuda/cuda_check.h"

#include <cstddef>

namespace nw::cuda {

constexpr int kThreads = 256;

inline unsigned blocksFor(std::size_t n)
{
    return unsigned((n + kThreads - 1) / kThreads);
}

inline void launched(const char* kernel)
{
    cudaCheck(cudaGetLastError(), kernel);
}

} // namespace nw::cuda
