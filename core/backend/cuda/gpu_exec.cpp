#include "backend/cuda/gpu_exec.h"

#include "backend/cuda/cuda_check.h"
#include "kernels/cuda/inference_kernels.h"

#include <atomic>
#include <string>

namespace nw {

namespace {

std::uint64_t nextExecId()
{
    static std::atomic<std::uint64_t> last{0};
    return ++last;
}

} // namespace

GpuExec::GpuExec(int device) : device_(device), id_(nextExecId())
{
    try {
        start();
    } catch (...) {
        release(); // a constructor that throws runs no destructor
        throw;
    }
}

void GpuExec::start()
{
    cudaCheck(cudaSetDevice(device_), "selecting the GPU");
    cudaCheck(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a CUDA stream");
    cublasCheck(cublasCreate(&cublas_), "starting cuBLAS");
    cublasCheck(cublasSetStream(cublas_, stream_), "cublasSetStream");
    // FP32 as on the CPU: no TF32 tensor-core rounding (10-bit mantissas) behind the user's back.
    cublasCheck(cublasSetMathMode(cublas_, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    // cuBLAS's scratch of our own, so a CUDA graph capture never sees it allocate (32 MiB: NVIDIA's
    // advice for Hopper).
    cublasWorkspace_.resize((std::size_t(32) << 20) / sizeof(float));
    cublasCheck(cublasSetWorkspace(cublas_, cublasWorkspace_.data(), cublasWorkspace_.size() * sizeof(float)),
                "cublasSetWorkspace");
    cudnnCheck(cudnnCreate(&cudnn_), "starting cuDNN");
    cudnnCheck(cudnnSetStream(cudnn_, stream_), "cudnnSetStream");
}

GpuExec::~GpuExec()
{
    release();
}

void GpuExec::release()
{
    cudaSetDevice(device_); // the handles and stream are destroyed on their own device
    if (cudnn_)
        cudnnDestroy(cudnn_);
    if (cublas_)
        cublasDestroy(cublas_);
    if (stream_)
        cudaStreamDestroy(stream_);
    cudnn_ = nullptr;
    cublas_ = nullptr;
    stream_ = nullptr;
}

void GpuExec::makeCurrent() const
{
    cudaCheck(cudaSetDevice(device_), "selecting the GPU");
}

float* GpuExec::workspace(std::size_t floats)
{
    if (floats > workspace_.size()) {
        synchronize();          // a layer queued before may still read the old buffer
        ++workspaceGeneration_; // first: a graph must not replay the freed buffer if the allocation fails
        workspace_.resize(floats);
    }
    return workspace_.data();
}

void* GpuExec::halfScratch(int slot, std::size_t halves)
{
    if (slot < 0 || slot > 1)
        throw GpuError("internal error: half scratch slot " + std::to_string(slot));
    DeviceBuffer& buffer = halfScratch_[slot];
    const std::size_t floats = (halves + 1) / 2;
    if (floats > buffer.size()) {
        synchronize(); // as workspace(): a queued layer may still read the old buffer
        ++workspaceGeneration_;
        buffer.resize(floats);
    }
    return buffer.data();
}

void GpuExec::setHalfPrecision(bool on)
{
    if (on && tf32_)
        throw GpuError("internal error: FP16 asked for while TF32 is on");
    if (half_ && !on) {
        synchronize(); // a queued convolution may still read them
        ++workspaceGeneration_;
        for (DeviceBuffer& buffer : halfScratch_)
            buffer.resize(0);
        halfCopies_.clear();
    }
    half_ = on;
}

void GpuExec::setTensorFloat32(bool on)
{
    if (on && half_)
        throw GpuError("internal error: TF32 asked for while FP16 is on");
    if (on == tf32_)
        return;
    synchronize(); // products queued before keep the math they were queued with
    cublasCheck(cublasSetMathMode(cublas_, on ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH),
                "cublasSetMathMode");
    tf32_ = on;
}

void GpuExec::mirrorParameters(std::span<const float> hostValues)
{
    ++parameterGeneration_;
    parameters_.resize(hostValues.size());
    parameters_.upload(hostValues, stream_);
    hostParameters_ = hostValues.data();
    parameterCount_ = hostValues.size();
}

namespace {

// `array`'s place in a device buffer mirroring the host buffer at `hostBase` (count floats).
float* mirrored(const ParamArray& array, const float* hostBase, std::size_t count, DeviceBuffer& device,
                const char* what)
{
    const float* at = array.data();
    if (!hostBase || at < hostBase || at + array.size() > hostBase + count)
        throw GpuError(std::string("internal error: a layer's array is not in the net's ") + what);
    return device.data() + (at - hostBase);
}

} // namespace

float* GpuExec::device(const ParamArray& array)
{
    return mirrored(array, hostParameters_, parameterCount_, parameters_, "parameter store");
}

const void* GpuExec::halfCopy(const ParamArray& array)
{
    const float* source = device(array);
    HalfCopy& copy = halfCopies_[array.data()];
    if (copy.generation != parameterGeneration_ || copy.values.size() * 2 < array.size()) {
        // Converted now, outside any CUDA graph: a conversion captured into a graph that then fails
        // would never run, yet count as done. The capture fails instead, and is tried again later.
        cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
        cudaCheck(cudaStreamIsCapturing(stream_, &capturing), "cudaStreamIsCapturing");
        if (capturing != cudaStreamCaptureStatusNone)
            throw GpuError("half weights to convert while capturing a CUDA graph");
        copy.values.resize((array.size() + 1) / 2);
        cuda::toHalf(source, copy.values.data(), array.size(), stream_);
        copy.generation = parameterGeneration_;
    }
    return copy.values.data();
}

std::size_t GpuExec::halfBytes() const
{
    std::size_t bytes = (halfScratch_[0].size() + halfScratch_[1].size()) * sizeof(float);
    for (const auto& [address, copy] : halfCopies_)
        bytes += copy.values.size() * sizeof(float);
    return bytes;
}

void GpuExec::downloadParameters(std::span<float> hostValues) const
{
    parameters_.download(hostValues, stream_);
    synchronize();
}

void GpuExec::mirrorGradients(std::span<const float> hostGradients)
{
    gradients_.resize(hostGradients.size());
    gradients_.zero(stream_);
    hostGradients_ = hostGradients.data();
}

float* GpuExec::gradient(const ParamArray& gradientArray)
{
    return mirrored(gradientArray, hostGradients_, gradients_.size(), gradients_, "gradient buffer");
}

void GpuExec::downloadGradients(std::span<float> hostGradients) const
{
    gradients_.download(hostGradients, stream_);
    synchronize();
}

void GpuExec::copyToHost(const float* device, std::span<float> host) const
{
    cudaCheck(cudaMemcpyAsync(host.data(), device, host.size_bytes(), cudaMemcpyDeviceToHost, stream_),
              "copying from the GPU");
    synchronize();
}

void GpuExec::copyToDevice(std::span<const float> host, float* device) const
{
    cudaCheck(cudaMemcpyAsync(device, host.data(), host.size_bytes(), cudaMemcpyHostToDevice, stream_),
              "copying to the GPU");
    synchronize(); // the host buffer may change right after
}

void GpuExec::copyOnDevice(const float* from, float* to, std::size_t n, const char* layer) const
{
    cudaCheck(cudaMemcpyAsync(to, from, n * sizeof(float), cudaMemcpyDeviceToDevice, stream_),
              (std::string(layer) + " copying on the GPU").c_str());
}

void GpuExec::synchronize() const
{
    cudaCheck(cudaStreamSynchronize(stream_), "running on the GPU");
}

} // namespace nw
