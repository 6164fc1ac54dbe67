#pragma once
// The solvers on a CUDA device (builds with NETWRIGHT_WITH_CUDA): Darknet's SGD and Adam (train/sgd.h,
// train/adam.h) updating the GpuNet's device weights from its device gradients, with the momentum or
// Adam state on the device. The update of every value is the CPU solver's own formula
// (kernels/solver_formulas.h), and the state moves to and from the CPU solver's layout, so a
// checkpoint written by either resumes on the other.
#include "backend/cuda/device_buffer.h"
#include "backend/cuda/gpu_exec.h"
#include "graph/net_config.h"
#include "runtime/net.h"

#include <vector>

namespace nw {

class GpuSolver {
public:
    explicit GpuSolver(const NetConfig& net);

    // One update of every trainable array (found on the device through gpu.device / gpu.gradient);
    // the device gradients are cleared, as the CPU solvers clear theirs.
    void step(GpuExec& gpu, std::vector<Net::LayerParameters>& layers, float rate, int batchSize);

    // The state in the CPU solver's layout (Solver::state(): SGD the velocity per array; Adam m per
    // array, v per array, then {t}); an empty or mismatched state starts afresh, as on the CPU.
    std::vector<std::vector<float>> downloadState(GpuExec& gpu) const;
    void uploadState(GpuExec& gpu, const std::vector<std::vector<float>>& state,
                     const std::vector<Net::LayerParameters>& layers);

private:
    void size(GpuExec& gpu, const std::vector<Net::LayerParameters>& layers);

    bool adam_;
    float momentum_, decay_, b1_, b2_, eps_;
    std::vector<DeviceBuffer> first_, second_; // SGD: velocity; Adam: m and v, per array
    float steps_ = 0;                          // Adam's t
};

} // namespace nw
