#include "backend/cuda/cuda_check.h"

namespace nw {

void cudaCheck(cudaError_t status, const char* what)
{
    if (status == cudaSuccess)
        return;
    cudaGetLastError(); // clear it, so the next call reports its own
    if (status == cudaErrorMemoryAllocation)
        throw GpuError(std::string("out of GPU memory in ") + what +
                       ": lower batch (or raise subdivisions) or width/height in [net], or use a GPU with "
                       "more free memory (netwright-cli devices)");
    throw GpuError(std::string("CUDA error in ") + what + ": " + cudaGetErrorName(status) + " (" +
                   cudaGetErrorString(status) + ")");
}

void cublasCheck(cublasStatus_t status, const char* what)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return;
    if (status == CUBLAS_STATUS_ALLOC_FAILED)
        throw GpuError(std::string("out of GPU memory in ") + what + " (cuBLAS)");
    throw GpuError(std::string("cuBLAS error in ") + what + ": " + cublasGetStatusName(status) + " (" +
                   cublasGetStatusString(status) + ")");
}

bool cudnnOutOfMemory(cudnnStatus_t status)
{
    return status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED ||
           status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
}

void cudnnCheck(cudnnStatus_t status, const char* what)
{
    if (status == CUDNN_STATUS_SUCCESS)
        return;
    if (cudnnOutOfMemory(status))
        throw GpuError(std::string("out of GPU memory in ") + what + " (cuDNN)");
    throw GpuError(std::string("cuDNN error in ") + what + ": " + cudnnGetErrorString(status));
}

} // namespace nw
