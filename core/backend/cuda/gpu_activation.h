#pragma once
// A layer's activation on the GPU, forward and backward — the twin of the CPU's ActivationCache
// (kernels/cpu/activations.h): while training, the input is kept for the activations whose derivative
// needs it (mish, swish, gelu, …); the others take theirs from the output.
#include "backend/cuda/device_buffer.h"
#include "backend/cuda/gpu_exec.h"
#include "kernels/cpu/activations.h"

#include <cstddef>

namespace nw {

class GpuActivation {
public:
    // x = f(x) in place, on the exec's stream.
    void forward(GpuExec& gpu, float* x, std::size_t n, Activation a, bool training);
    // delta *= f′ at the last training forward's values (y: its output).
    void backward(GpuExec& gpu, const float* y, float* delta, std::size_t n, Activation a);

private:
    DeviceBuffer input_;
};

} // namespace nw
