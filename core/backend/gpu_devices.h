#pragma once
// What GPUs this process can use: the CUDA devices with their names, memory and compute capability,
// or in plain words why there are none (no CUDA in this build, no driver, no device, an old driver).
// Safe on any machine: it never aborts, and without the CUDA backend it only says so.
#include <cstddef>
#include <string>
#include <vector>

namespace nw {

struct GpuDevice {
    int index = 0;
    std::string name;
    std::size_t totalBytes = 0, freeBytes = 0; // freeBytes: 0 when not measured
    int computeMajor = 0, computeMinor = 0;
    int multiprocessors = 0;
};

struct GpuInventory {
    bool cudaBuilt = false;         // this build has the CUDA backend (NETWRIGHT_WITH_CUDA)
    std::vector<GpuDevice> devices; // usable devices, by CUDA index
    std::string problem;            // why `devices` is empty (or a device could not be queried)
    int driverVersion = 0;          // CUDA version the driver supports, 1000·major + 10·minor; 0: none
    int runtimeVersion = 0;         // the CUDA runtime this build links
    int cublasVersion = 0;          // 10000·major + 100·minor + patch, as cuBLAS reports it (full)
    std::string cublasProblem;      // why cuBLAS cannot be loaded (full; the GPU then cannot run)
    int cudnnVersion = 0;           // 10000·major + 100·minor + patch (cuDNN 9), as cuDNN reports it (full)
    std::string cudnnProblem;       // why cuDNN cannot be loaded (full; the GPU then cannot run)
};

// `full`: also each device's free memory, which needs a CUDA context on every GPU (a few hundred MB of
// its memory, held until the process ends), and cuBLAS's and cuDNN's versions, which load them (0.5 s,
// see util/lazy_library.h): right for `devices`, not for a long-running studio.
GpuInventory listGpus(bool full = true);

// "13.0" from 13000 (driver and runtime versions).
std::string cudaVersionText(int version);
// "9.13.1" from 91301 (cuDNN 9, cuBLAS 13 style).
std::string libraryVersionText(int version);

} // namespace nw
