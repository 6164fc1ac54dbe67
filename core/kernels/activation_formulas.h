#pragma once
// Darknet's activation formulas, written once for the CPU kernels (kernels/cpu/activations.cpp) and
// the CUDA ones (kernels/cuda/): the same expressions on both sides, so check-device compares
// implementations of one definition. C++17, host and device.
#include "kernels/cpu/activations.h"

#include <math.h>

#ifdef __CUDACC__
#define NW_HOST_DEVICE __host__ __device__
#else
#define NW_HOST_DEVICE
#endif

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
    case Activation::Elu:
        return float(x >= 0) * x + float(x < 0) * (expf(x) - 1.0f);
    case Activation::Selu:
        return float(x >= 0) * 1.0507f * x + float(x < 0) * 1.0507f * 1.6732f * (expf(x) - 1.0f);
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

} // namespace nw
