#pragma once
// One parameter's update by Darknet's two solvers, written once for the CPU solvers (train/sgd.cpp,
// train/adam.cpp) and the CUDA ones (kernels/cuda/training_kernels.cu). `gradient` is the −gradient
// summed over the batch; both clear it for the next batch. C++17, host and device.
#include "kernels/host_device.h"

#include <math.h>

namespace nw {

// SGD with momentum and weight decay: v += g − decay·B·w; w += (rate/B)·v; v *= momentum.
// `decay` is −decay·B (0 for arrays without decay), `scale` is rate/B.
NW_HOST_DEVICE inline void sgdUpdate(float& weight, float& velocity, float& gradient, float decay,
                                     float scale, float momentum)
{
    const float v = velocity + gradient + decay * weight;
    weight += scale * v;
    velocity = v * momentum;
    gradient = 0.0f;
}

// Adam's constants for one step: β1, β2, ε, the rate and the bias corrections 1 − β^t.
struct AdamStep {
    float b1, b2, eps, rate, correction1, correction2;
};

// Adam (Darknet's adam=1): m and v track the decayed gradient d = g − decay·B·w.
NW_HOST_DEVICE inline void adamUpdate(float& weight, float& m, float& v, float& gradient, float decay,
                                      const AdamStep& s)
{
    const float d = gradient + decay * weight;
    m = s.b1 * m + (1 - s.b1) * d;
    v = s.b2 * v + (1 - s.b2) * d * d;
    weight += s.rate * (m / s.correction1) / (sqrtf(v / s.correction2) + s.eps);
    gradient = 0.0f;
}

} // namespace nw
