// cuBLAS loaded on first use instead of linked. Linked, libcublas and its libcublasLt (540 MB) were
// mapped, relocated and statically initialised at every start of netwright-cli and the studio, GPU or
// not: 0.4–0.6 s of a 0.66 s `netwright-cli --help`. These definitions of the few cuBLAS functions the
// backend calls (their declarations come from cublas_api.h, so the compiler checks every signature)
// open the library with dlopen the first time one is called and forward to it. Without the library,
// a call answers CUBLAS_STATUS_NOT_INITIALIZED and the status string says why, so cublasCheck's error
// names the missing file.
#include "backend/cuda/cublas_loader.h"

#include <cublas_api.h>
#include <dlfcn.h>
#include <string>

namespace nw {

namespace {

// Every function the stubs below forward to: the library counts as loaded only with all of them.
constexpr const char* kFunctions[] = {
    "cublasCreate_v2",       "cublasDestroy_v2",    "cublasGetProperty",
    "cublasSetWorkspace_v2", "cublasSetStream_v2",  "cublasSetMathMode",
    "cublasSgemm_v2",        "cublasGetStatusName", "cublasGetStatusString"};

struct Library {
    void* handle = nullptr;
    std::string error;
};

const Library& library()
{
    static const Library loaded = [] {
        Library l;
        std::string tried;
        for (const char* name : {NETWRIGHT_CUBLAS_SONAME, NETWRIGHT_CUBLAS_PATH}) {
            if ((l.handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
                break;
            const char* why = dlerror();
            tried += std::string(tried.empty() ? "" : "; ") + (why ? why : name);
        }
        if (!l.handle) {
            l.error = "cannot load cuBLAS (" + tried +
                      "): install the CUDA toolkit's cuBLAS or add its folder to LD_LIBRARY_PATH";
            return l;
        }
        for (const char* function : kFunctions)
            if (!dlsym(l.handle, function)) {
                l.error = std::string("the cuBLAS found (") + NETWRIGHT_CUBLAS_SONAME + ") lacks " +
                          function + ": install a newer cuBLAS of that version";
                dlclose(l.handle);
                l.handle = nullptr;
                return l;
            }
        return l;
    }();
    return loaded;
}

// The library's own `name` (every one is there once loaded), or nullptr without the library.
template <typename Function> Function* resolve(const char* name)
{
    const Library& l = library();
    return l.handle ? reinterpret_cast<Function*>(dlsym(l.handle, name)) : nullptr;
}

// Calls the library's `name` with `arguments`, or answers NOT_INITIALIZED without it.
#define NW_CUBLAS_FORWARD(name, ...)                                                                         \
    static auto* const function = resolve<decltype(name)>(#name);                                            \
    return function ? function(__VA_ARGS__) : CUBLAS_STATUS_NOT_INITIALIZED

} // namespace

std::optional<std::string> cublasLoadError()
{
    const Library& l = library();
    if (l.handle)
        return std::nullopt;
    return l.error;
}

} // namespace nw

using nw::resolve;

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
    static auto* const function = resolve<decltype(cublasGetStatusName)>("cublasGetStatusName");
    return function ? function(status) : "CUBLAS_STATUS_NOT_INITIALIZED (cuBLAS not loaded)";
}

const char* cublasGetStatusString(cublasStatus_t status)
{
    static auto* const function = resolve<decltype(cublasGetStatusString)>("cublasGetStatusString");
    if (function)
        return function(status);
    static const std::string why = nw::cublasLoadError().value_or("");
    return why.c_str();
}

} // extern "C"
#pragma GCC visibility pop
