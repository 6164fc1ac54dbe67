#include "backend/cuda/device_buffer.h"

#include "backend/cuda/cuda_check.h"

#include <utility>

namespace nw {

DeviceBuffer::~DeviceBuffer()
{
    if (data_)
        cudaFree(data_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0))
{
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept
{
    if (this != &other) {
        if (data_)
            cudaFree(data_);
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
    }
    return *this;
}

void DeviceBuffer::resize(std::size_t floats)
{
    if (floats == size_)
        return;
    if (data_)
        cudaFree(data_);
    data_ = nullptr;
    size_ = 0;
    if (floats == 0)
        return;
    void* memory = nullptr;
    cudaCheck(cudaMalloc(&memory, floats * sizeof(float)), "allocating GPU memory");
    data_ = static_cast<float*>(memory);
    size_ = floats;
}

void DeviceBuffer::reserve(std::size_t floats)
{
    if (floats > size_)
        resize(floats);
}

void DeviceBuffer::zero(cudaStream_t stream)
{
    if (size_)
        cudaCheck(cudaMemsetAsync(data_, 0, size_ * sizeof(float), stream), "clearing GPU memory");
}

void DeviceBuffer::upload(std::span<const float> host, cudaStream_t stream, std::size_t offset)
{
    if (offset + host.size() > size_)
        throw GpuError("internal error: an upload past the end of a GPU buffer");
    cudaCheck(cudaMemcpyAsync(data_ + offset, host.data(), host.size_bytes(), cudaMemcpyHostToDevice, stream),
              "copying to the GPU");
}

void DeviceBuffer::download(std::span<float> host, cudaStream_t stream, std::size_t offset) const
{
    if (offset + host.size() > size_)
        throw GpuError("internal error: a download past the end of a GPU buffer");
    cudaCheck(cudaMemcpyAsync(host.data(), data_ + offset, host.size_bytes(), cudaMemcpyDeviceToHost, stream),
              "copying from the GPU");
}

} // namespace nw
