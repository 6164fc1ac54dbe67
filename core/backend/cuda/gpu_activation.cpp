#include "backend/cuda/gpu_activation.h"

#include "backend/cuda/cuda_check.h"
#include "kernels/cuda/inference_kernels.h"
#include "kernels/cuda/training_kernels.h"

namespace nw {

void GpuActivation::forward(GpuExec& gpu, float* x, std::size_t n, Activation a, bool training)
{
    if (a == Activation::Linear)
        return;
    if (training && !gradientFromOutput(a)) {
        input_.resize(n);
        gpu.copyOnDevice(x, input_.data(), n, "keeping the activation's input");
    }
    cuda::activate(x, n, a, gpu.stream());
}

void GpuActivation::backward(GpuExec& gpu, const float* y, float* delta, std::size_t n, Activation a)
{
    if (a == Activation::Linear)
        return;
    const bool fromOutput = gradientFromOutput(a);
    if (!fromOutput && input_.size() < n)
        throw GpuError("internal error: an activation's backward without its training forward");
    cuda::multiplyByActivationGradient(y, fromOutput ? nullptr : input_.data(), n, a, delta, gpu.stream());
}

} // namespace nw
