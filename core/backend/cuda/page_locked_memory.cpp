#include "backend/cuda/page_locked_memory.h"

#include "backend/cuda/cuda_check.h"

#include <string>

namespace nw {

void* PageLockedMemory::allocate(std::size_t bytes)
{
    if (bytes == 0)
        return nullptr;
    cudaCheck(cudaSetDevice(device_), "selecting the GPU");
    void* memory = nullptr;
    cudaCheck(
        cudaHostAlloc(&memory, bytes, cudaHostAllocPortable),
        ("allocating " + std::to_string(bytes >> 20) + " MiB of page-locked memory for a training batch")
            .c_str());
    return memory;
}

void PageLockedMemory::release(void* memory) noexcept
{
    if (memory)
        cudaFreeHost(memory);
}

} // namespace nw
