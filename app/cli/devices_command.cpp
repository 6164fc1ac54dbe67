// `devices`: the GPUs this machine offers the CUDA backend, or why there are none.
#include "backend/gpu_devices.h"
#include "commands.h"
#include "util/json_text.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#if NETWRIGHT_WITH_NCCL
#include "distributed/nccl_loader.h"

#include <nccl.h>
#endif

namespace nw::cli {

namespace {

std::string gibibytes(std::size_t bytes)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(1ull << 30));
    return text;
}

void printJson(const GpuInventory& inventory)
{
    nlohmann::json devices = nlohmann::json::array();
    for (const GpuDevice& d : inventory.devices)
        devices.push_back(
            {{"index", d.index},
             {"name", d.name},
             {"total_bytes", d.totalBytes},
             {"free_bytes", d.freeBytes},
             {"compute_capability", std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor)},
             {"multiprocessors", d.multiprocessors}});
    nlohmann::json out = {{"cuda_built", inventory.cudaBuilt}, {"devices", devices}};
    if (!inventory.problem.empty())
        out["problem"] = inventory.problem;
    if (inventory.cudaBuilt) {
        out["driver_cuda"] = inventory.driverVersion ? cudaVersionText(inventory.driverVersion) : "";
        out["runtime_cuda"] = cudaVersionText(inventory.runtimeVersion);
        out["cublas"] = inventory.cublasProblem.empty() ? libraryVersionText(inventory.cublasVersion) : "";
        if (!inventory.cublasProblem.empty())
            out["cublas_problem"] = inventory.cublasProblem;
        out["cudnn"] = inventory.cudnnProblem.empty() ? libraryVersionText(inventory.cudnnVersion) : "";
        if (!inventory.cudnnProblem.empty())
            out["cudnn_problem"] = inventory.cudnnProblem;
#if NETWRIGHT_WITH_NCCL
        // NCCL (train --gpus), opened here to say whether it can be.
        if (const auto problem = ncclLoadError()) {
            out["nccl"] = "";
            out["nccl_problem"] = *problem;
        } else if (int version = 0; ncclGetVersion(&version) == ncclSuccess) {
            out["nccl"] = std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
                          std::to_string(version % 100);
        }
#endif
    }
    std::printf("%s\n", jsonText(out, 2).c_str());
}

} // namespace

int devices(bool json)
{
    const GpuInventory inventory = listGpus();
    // Usable: a GPU, and cuBLAS and cuDNN to run it with.
    const int status =
        inventory.devices.empty() || !inventory.cublasProblem.empty() || !inventory.cudnnProblem.empty() ? 1
                                                                                                         : 0;
    if (json) {
        printJson(inventory);
        return status;
    }
    if (inventory.cudaBuilt)
        std::printf(
            "CUDA runtime %s, driver %s, cuBLAS %s, cuDNN %s\n",
            cudaVersionText(inventory.runtimeVersion).c_str(),
            inventory.driverVersion ? cudaVersionText(inventory.driverVersion).c_str() : "none",
            inventory.cublasProblem.empty() ? libraryVersionText(inventory.cublasVersion).c_str() : "missing",
            inventory.cudnnProblem.empty() ? libraryVersionText(inventory.cudnnVersion).c_str() : "missing");
    // Without a GPU the libraries are by the way (a CPU machine needs none): said after the reason.
    const char* libraryLevel = inventory.devices.empty() ? "note" : "error";
    const auto libraryProblems = [&] {
        for (const std::string& problem : {inventory.cublasProblem, inventory.cudnnProblem})
            if (!problem.empty())
                std::fprintf(stderr, "%s: %s\n", libraryLevel, problem.c_str());
    };
    if (!inventory.devices.empty())
        libraryProblems();
    for (const GpuDevice& d : inventory.devices)
        std::printf("cuda:%d  %s  compute %d.%d, %d SMs, %s (%s free)\n", d.index, d.name.c_str(),
                    d.computeMajor, d.computeMinor, d.multiprocessors, gibibytes(d.totalBytes).c_str(),
                    gibibytes(d.freeBytes).c_str());
    if (inventory.devices.empty()) {
        std::fprintf(stderr, "no GPU: %s; training and detection run on the CPU\n",
                     inventory.problem.c_str());
        libraryProblems();
        return 1;
    }
    return status;
}

} // namespace nw::cli
