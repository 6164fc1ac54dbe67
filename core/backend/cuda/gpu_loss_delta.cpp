#include "backend/cuda/gpu_loss_delta.h"

#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/training_kernels.h"

namespace nw {

void GpuLossDelta::upload(GpuExec& gpu, std::span<const float> delta)
{
    delta_.resize(delta.size());
    gpu.copyToDevice(delta, delta_.data());
    present_ = true;
}

void GpuLossDelta::passBack(GpuBackwardArgs& args, bool outputDeltaAlone) const
{
    const std::size_t n = args.outputItemSize * std::size_t(args.batch);
    const bool present = present_ && delta_.size() == n;
    if (!args.inputDelta || (!present && !outputDeltaAlone))
        return;
    if (present)
        cuda::addScaled(delta_.data(), args.inputDelta, n, 1.0f, args.gpu.stream());
    cuda::addScaled(args.outputDelta, args.inputDelta, n, 1.0f, args.gpu.stream());
}

} // namespace nw
