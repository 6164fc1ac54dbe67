#pragma once
// InputStager: training batches onto the GPU without making it wait. Two device buffers take batches in
// turn, each copied on a stream of its own, so batch k + 1 uploads while batch k's backward pass (queued,
// reading the other buffer) still runs. From page-locked memory (the batch loader's, given by
// PageLockedMemory) the copy is a DMA the host does not wait for; from pageable memory it still works,
// the driver then staging it.
#include "backend/cuda/device_buffer.h"
#include "backend/cuda/gpu_exec.h"

#include <cstddef>

namespace nw {

class InputStager {
public:
    InputStager() = default;
    ~InputStager();
    InputStager(const InputStager&) = delete;
    InputStager& operator=(const InputStager&) = delete;

    // `floats` of `host` onto the device; returns the device copy, which the exec's stream reads only
    // after the copy (it waits for it). The host memory must stay unchanged until work queued after
    // this has been waited for (GpuNet's training pass ends with a synchronize).
    const float* stage(GpuExec& gpu, const float* host, std::size_t floats);
    std::size_t deviceBytes() const;

private:
    void start(GpuExec& gpu);
    void release();

    cudaStream_t upload_ = nullptr;
    cudaEvent_t uploaded_[2] = {nullptr, nullptr};
    cudaEvent_t readersQueued_[2] = {nullptr, nullptr}; // the exec's work that may read each buffer
    DeviceBuffer buffers_[2];
    int next_ = 0;
};

} // namespace nw
