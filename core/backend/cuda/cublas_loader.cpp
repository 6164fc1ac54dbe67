// cuBLAS loaded on first use instead of linked. Linked, libcublas and its libcublasLt (540 MB) were
// mapped, relocated and statically initialised at every start of netwright-cli and the studio, GPU or
// not: 0.4–0.6 s of a 0.66 s `netwright-cli --help`. These definitions of the few cuBLAS functions the
// backend calls (their declarations come from cublas_api.h, so the compiler checks every signature)
// open the library with dlopen the first time one is called and forward to it. Without the library,
// a call answers CUBLAS_STATUS_NOT_INITIALIZED and the status string says why, so cublasCheck's error
// names the missing file.
#include "backend/cuda/cublas_loader.h"
#include "util/lazy_library.h"

#include <cublas_api.h>

namespace nw {

namespace {

const LazyLibrary& cublasLibrary()
{
    static const LazyLibrary loaded =
        openLazily({NETWRIGHT_CUBLAS_SONAME, NETWRIGHT_CUBLAS_PATH},
                   {"cublasCreate_v2", "cublasDestroy_v2", "cublasGetProperty", "cublasSetWorkspace_v2",
                    "cublasSetStream_v2", "cublasSetMathMode", "cublasSgemm_v2", "cublasGetStatusName",
                    "cublasGetStatusString"},
                   "cuBLAS", "install the CUDA toolkit's cuBLAS or add its folder to LD_LIBRARY_PATH");
    return loaded;
}

} // namespace

std::optional<std::string> cublasLoadError()
{
    return cublasLibrary().problem();
}

} // namespace nw

// Calls the library's `name`, or answers NOT_INITIALIZED without it.
#define NW_CUBLAS_FORWARD(name, ...)                                                                         \
    NW_LAZY_FORWARD(nw::cublasLibrary(), CUBLAS_STATUS_NOT_INITIALIZED, name, __VA_ARGS__)

// Hidden: the definitions serve this program's own calls and never stand in for cuBLAS towards another
// library that links it.
#pragma GCC visibility push(hidden)
extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle)
{
    NW_CUBLAS_FORWARD(cublasCreate_v2, handle);
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    NW_CUBLAS_FORWARD(cublasDestroy_v2, handle);
}

cublasStatus_t cublasGetProperty(libraryPropertyType type, int* value)
{
    NW_CUBLAS_FORWARD(cublasGetProperty, type, value);
}

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void* workspace, size_t bytes)
{
    NW_CUBLAS_FORWARD(cublasSetWorkspace_v2, handle, workspace, bytes);
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream)
{
    NW_CUBLAS_FORWARD(cublasSetStream_v2, handle, stream);
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    NW_CUBLAS_FORWARD(cublasSetMathMode, handle, mode);
}

cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                              int m, int n, int k, const float* alpha, const float* A, int lda,
                              const float* B, int ldb, const float* beta, float* C, int ldc)
{
    NW_CUBLAS_FORWARD(cublasSgemm_v2, handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

const char* cublasGetStatusName(cublasStatus_t status)
{
    NW_LAZY_FORWARD(nw::cublasLibrary(), "CUBLAS_STATUS_NOT_INITIALIZED (cuBLAS not loaded)",
                    cublasGetStatusName, status);
}

const char* cublasGetStatusString(cublasStatus_t status)
{
    NW_LAZY_FORWARD(nw::cublasLibrary(), nw::cublasLibrary().error.c_str(), cublasGetStatusString, status);
}

} // extern "C"
#pragma GCC visibility pop
