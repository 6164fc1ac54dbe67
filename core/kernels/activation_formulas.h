#pragma once
// Darknet's activation formulas and their derivatives, written once for the CPU kernels
// (kernels/cpu/activations.cpp) and the CUDA ones (kernels/cuda/): the same expressions on both sides, so
// check-device compares implementations of one definition. C++17, host and device.
#include "kernels/cpu/activations.h"

#include "kernels/host_device.h"

#include <math.h>

namespace nw {

NW_HOST_DEVICE inline float softplusFormula(float x)
{
    if (x > 20)
        return x;
    if (x < -20)
        return expf(x);
    return log1pf(expf(x));
}

NW_HOST_DEVICE inline float clampFormula(float x, float low, float high)
{
    return x < low ? low : (high < x ? high : x); // std::clamp's rule (NaN stays NaN)
}

NW_HOST_DEVICE inline float activationFormula(float x, Activation a)
{
    switch (a) {
    case Activation::Logistic:
        return 1.0f / (1.0f + expf(-x));
    case Activation::Loggy:
        return 2.0f / (1.0f + expf(-x)) - 1.0f;
    case Activation::Relu:
        return x * float(x > 0);
    // Branches, not Darknet's float(x<0)*(exp(x)−1): that is 0·∞ = NaN in float for x > 88.7.
    case Activation::Elu:
        return x >= 0 ? x : expf(x) - 1.0f;
    case Activation::Selu:
        return x >= 0 ? 1.0507f * x : 1.0507f * 1.6732f * (expf(x) - 1.0f);
    case Activation::Relie:
        return x > 0 ? x : 0.01f * x;
    case Activation::Plse:
        if (x < -4)
            return 0.01f * (x + 4);
        if (x > 4)
            return 0.01f * (x - 4) + 1;
        return 0.125f * x + 0.5f;
    case Activation::Hardtan:
        return clampFormula(x, -1.0f, 1.0f);
    case Activation::Lhtan:
        if (x < 0)
            return 0.001f * x;
        if (x > 1)
            return 0.001f * (x - 1) + 1;
        return x;
    case Activation::Linear:
        return x;
    case Activation::Ramp:
        return x * float(x > 0) + 0.1f * x;
    case Activation::Leaky:
        return x > 0 ? x : 0.1f * x;
    case Activation::Tanh:
        return tanhf(x); // Darknet's (e^2x − 1)/(e^2x + 1) overflows to NaN for large x
    case Activation::Stair: {
        const int n = int(floorf(x));
        if (n % 2 == 0)
            return floorf(x / 2);
        return (x - float(n)) + floorf(x / 2);
    }
    case Activation::Relu6:
        return clampFormula(x, 0.0f, 6.0f);
    case Activation::Swish:
        return x / (1.0f + expf(-x));
    case Activation::Mish:
        return x * tanhf(softplusFormula(x));
    case Activation::HardMish:
        if (x > 0)
            return x;
        if (x > -2)
            return x * x / 2 + x;
        return 0;
    case Activation::Gelu:
        return 0.5f * x * (1 + tanhf(0.797885f * x + 0.035677f * x * x * x));
    }
    return x;
}

// f'(x) from y = f(x): Darknet's gradient functions, for the activations where gradientFromOutput().
NW_HOST_DEVICE inline float outputGradientFormula(float y, Activation a)
{
    switch (a) {
    case Activation::Logistic:
        return (1 - y) * y;
    case Activation::Loggy: {
        const float v = (y + 1) / 2;
        return 2 * (1 - v) * v;
    }
    case Activation::Relu:
        return float(y > 0);
    case Activation::Elu:
        return float(y >= 0) + float(y < 0) * (y + 1);
    case Activation::Selu:
        return float(y >= 0) * 1.0507f + float(y < 0) * (y + 1.0507f * 1.6732f);
    case Activation::Relie:
        return y > 0 ? 1 : 0.01f;
    case Activation::Plse:
        return (y < 0 || y > 1) ? 0.01f : 0.125f;
    case Activation::Hardtan:
        return float(y > -1 && y < 1);
    case Activation::Lhtan:
        return (y > 0 && y < 1) ? 1 : 0.001f;
    case Activation::Linear:
        return 1;
    case Activation::Ramp:
        return float(y > 0) + 0.1f;
    case Activation::Leaky:
        return y > 0 ? 1 : 0.1f;
    case Activation::Tanh:
        return 1 - y * y;
    case Activation::Stair:
        return floorf(y) == y ? 0 : 1;
    case Activation::Relu6:
        return float(y > 0 && y < 6);
    default:
        return 1; // not reached: gradientFromOutput() is false for the rest
    }
}

// f'(x) from the input x: any activation (mish, swish, gelu and hard_mish need it).
NW_HOST_DEVICE inline float inputGradientFormula(float x, Activation a)
{
    switch (a) {
    case Activation::Swish: {
        const float s = 1.0f / (1.0f + expf(-x));
        return s + x * s * (1 - s);
    }
    case Activation::Mish: { // d/dx x·tanh(softplus(x)) = tanh(sp) + x·sech²(sp)·σ(x)
        const float t = tanhf(softplusFormula(x));
        return t + x * (1 - t * t) * (1.0f / (1.0f + expf(-x)));
    }
    case Activation::HardMish:
        if (x > 0)
            return 1;
        if (x > -2)
            return x + 1;
        return 0;
    case Activation::Gelu: {
        const float u = 0.797885f * x + 0.035677f * x * x * x;
        const float t = tanhf(u);
        return 0.5f * (1 + t) + 0.5f * x * (1 - t * t) * (0.797885f + 3 * 0.035677f * x * x);
    }
    default:
        return outputGradientFormula(activationFormula(x, a), a);
    }
}

} // namespace nw
