#pragma once
// DeviceBuffer: floats in GPU memory, owned (cudaMalloc/cudaFree), with explicit copies to and from the
// host on a stream — the device half of a tensor; nothing moves unless asked.
#include <cstddef>
#include <cuda_runtime.h>
#include <span>

namespace nw {

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t floats) { resize(floats); }
    ~DeviceBuffer();
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept;
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

    // Exactly `floats` (contents undefined); throws GpuError when the GPU is out of memory.
    void resize(std::size_t floats);
    // At least `floats`, keeping the allocation when it is large enough (workspaces).
    void reserve(std::size_t floats);
    float* data() { return data_; }
    const float* data() const { return data_; }
    std::size_t size() const { return size_; }

    // All zeros, queued on the stream.
    void zero(cudaStream_t stream);
    // The first `floats` as another type of the same or a smaller alignment need (cudaMalloc aligns to
    // 256 bytes): max-pool's 64-bit winner indexes live in a float buffer of twice the length.
    template <typename T> T* as() { return reinterpret_cast<T*>(data_); }

    void upload(std::span<const float> host, cudaStream_t stream, std::size_t offset = 0);
    void download(std::span<float> host, cudaStream_t stream, std::size_t offset = 0) const;

private:
    float* data_ = nullptr;
    std::size_t size_ = 0;
};

} // namespace nw
