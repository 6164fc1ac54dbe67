#pragma once
// Page-locked host memory (cudaHostAlloc) for the batch loader's buffers: the GPU copies from it by DMA,
// asynchronously, at full bus speed; pageable memory goes through the driver's staging copies and
// blocks the caller. Allocated as portable memory with `device` selected, so the loader's thread never
// starts a context on another GPU.
#include "data/host_memory.h"

namespace nw {

class PageLockedMemory final : public HostMemory {
public:
    explicit PageLockedMemory(int device) : device_(device) {}
    void* allocate(std::size_t bytes) override; // GpuError when the driver refuses
    void release(void* memory) noexcept override;

private:
    int device_;
};

} // namespace nw
