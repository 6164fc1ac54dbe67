#include "backend/cuda/gpu_exec.h"

#include "backend/cuda/cuda_check.h"

namespace nw {

GpuExec::GpuExec(int device) : device_(device)
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
    cudnnCheck(cudnnCreate(&cudnn_), "starting cuDNN");
    cudnnCheck(cudnnSetStream(cudnn_, stream_), "cudnnSetStream");
}

GpuExec::~GpuExec()
{
    release();
}

void GpuExec::release()
{
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
        synchronize(); // a layer queued before may still read the old buffer
        workspace_.resize(floats);
    }
    return workspace_.data();
}

void GpuExec::mirrorParameters(std::span<const float> hostValues)
{
    parameters_.resize(hostValues.size());
    parameters_.upload(hostValues, stream_);
    hostParameters_ = hostValues.data();
    parameterCount_ = hostValues.size();
}

const float* GpuExec::device(const ParamArray& array) const
{
    const float* at = array.data();
    if (!hostParameters_ || at < hostParameters_ || at + array.size() > hostParameters_ + parameterCount_)
        throw GpuError("internal error: a layer's array is not in the net's parameter store");
    return parameters_.data() + (at - hostParameters_);
}

void GpuExec::synchronize() const
{
    cudaCheck(cudaStreamSynchronize(stream_), "running on the GPU");
}

} // namespace nw
