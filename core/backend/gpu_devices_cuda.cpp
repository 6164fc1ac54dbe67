// The CUDA backend's device list, through the CUDA runtime (which loads the driver's libcuda.so.1).
#include "backend/gpu_devices.h"

#include "backend/cuda/cublas_loader.h"
#include "backend/cuda/cudnn_loader.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

namespace nw {

namespace {

// cudaGetDeviceCount's failures in the words a user can act on.
std::string deviceCountProblem(cudaError_t error, int driverVersion, int runtimeVersion)
{
    switch (error) {
    case cudaErrorInsufficientDriver:
        if (driverVersion == 0)
            return "no CUDA driver: libcuda.so.1 (installed with the NVIDIA driver) was not found";
        return "the NVIDIA driver supports CUDA " + cudaVersionText(driverVersion) +
               " but this build needs " + cudaVersionText(runtimeVersion) + ": update the driver";
    case cudaErrorNoDevice:
        return "no CUDA device: the NVIDIA driver is loaded but sees no GPU (check CUDA_VISIBLE_DEVICES)";
    default:
        return std::string("the CUDA runtime cannot list devices: ") + cudaGetErrorName(error) + " (" +
               cudaGetErrorString(error) + ")";
    }
}

} // namespace

GpuInventory listGpus(bool full)
{
    GpuInventory inventory;
    inventory.cudaBuilt = true;
    cudaDriverGetVersion(&inventory.driverVersion);
    cudaRuntimeGetVersion(&inventory.runtimeVersion);
    if (full) {
        inventory.cudnnProblem = cudnnLoadError().value_or("");
        inventory.cudnnVersion = int(cudnnGetVersion()); // (0 without it)
    }
    int cublasMajor = 0, cublasMinor = 0, cublasPatch = 0;
    if (full && cublasGetProperty(MAJOR_VERSION, &cublasMajor) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(MINOR_VERSION, &cublasMinor) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(PATCH_LEVEL, &cublasPatch) == CUBLAS_STATUS_SUCCESS)
        inventory.cublasVersion = cublasMajor * 10000 + cublasMinor * 100 + cublasPatch;
    if (full)
        inventory.cublasProblem = cublasLoadError().value_or("");

    int count = 0;
    const cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess) {
        inventory.problem = deviceCountProblem(error, inventory.driverVersion, inventory.runtimeVersion);
        cudaGetLastError(); // clear the sticky error for later calls
        return inventory;
    }
    for (int index = 0; index < count; ++index) {
        cudaDeviceProp properties{};
        if (cudaGetDeviceProperties(&properties, index) != cudaSuccess)
            continue;
        GpuDevice device;
        device.index = index;
        device.name = properties.name;
        device.totalBytes = properties.totalGlobalMem;
        device.computeMajor = properties.major;
        device.computeMinor = properties.minor;
        device.multiprocessors = properties.multiProcessorCount;
        if (full && cudaSetDevice(index) == cudaSuccess) {
            std::size_t freeBytes = 0, totalBytes = 0;
            if (cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess)
                device.freeBytes = freeBytes;
        }
        inventory.devices.push_back(device);
    }
    cudaGetLastError();
    if (inventory.devices.empty() && inventory.problem.empty())
        inventory.problem = "no CUDA device";
    return inventory;
}

} // namespace nw
