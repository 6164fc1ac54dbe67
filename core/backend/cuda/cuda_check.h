#pragma once
// CUDA, cuBLAS and cuDNN failures as exceptions with a message a user can act on ("out of GPU memory
// ...", the call and the library's own words), so a run stops cleanly instead of computing on garbage.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <stdexcept>
#include <string>

namespace nw {

class GpuError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

void cudaCheck(cudaError_t status, const char* what);
void cublasCheck(cublasStatus_t status, const char* what);
void cudnnCheck(cudnnStatus_t status, const char* what);
// Whether cuDNN failed for want of GPU (or host) memory.
bool cudnnOutOfMemory(cudnnStatus_t status);

} // namespace nw
