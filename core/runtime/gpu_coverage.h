#pragma once
// Which layers of a network the CUDA backend cannot run or train yet (summary names them, so a GPU run
// is never silently partial). Plain data, so a build without CUDA can say so with it too.
#include <string>
#include <vector>

namespace nw {

struct GpuCoverage {
    bool cudaBuilt = false; // this build has the CUDA backend
    bool checked = false;   // the layers were asked (not without CUDA, nor when one cannot be made)
    std::vector<std::string> inferenceMissing; // no GPU forward: "layer 28 [local] (line 233)"
    std::vector<std::string> trainingMissing;  // no GPU training pass (the untrainable aside)
    std::vector<std::string> untrainable;      // train on no device
};

} // namespace nw
