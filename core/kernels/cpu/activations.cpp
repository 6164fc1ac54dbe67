#include "kernels/cpu/activations.h"

#include "kernels/activation_formulas.h"
#include "kernels/cpu/clones.h"
#include "kernels/cpu/lanes.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace nw {

Activation activationFromName(const std::string& name)
{
    static const std::pair<const char*, Activation> names[] = {
        {"logistic", Activation::Logistic}, {"loggy", Activation::Loggy},
        {"relu", Activation::Relu},         {"elu", Activation::Elu},
        {"selu", Activation::Selu},         {"relie", Activation::Relie},
        {"plse", Activation::Plse},         {"hardtan", Activation::Hardtan},
        {"lhtan", Activation::Lhtan},       {"linear", Activation::Linear},
        {"ramp", Activation::Ramp},         {"leaky", Activation::Leaky},
        {"tanh", Activation::Tanh},         {"stair", Activation::Stair},
        {"relu6", Activation::Relu6},       {"swish", Activation::Swish},
        {"mish", Activation::Mish},         {"hard_mish", Activation::HardMish},
        {"gelu", Activation::Gelu}};
    for (const auto& [text, value] : names)
        if (name == text)
            return value;
    return Activation::Relu;
}

namespace {

float softplus(float x)
{
    return softplusFormula(x);
}

} // namespace

float activate(float x, Activation a)
{
    return activationFormula(x, a);
}

NW_KERNEL_CLONES
void activateSpan(float* x, std::size_t n, Activation a)
{
    if (a == Activation::Linear)
        return;
    if (!vectorActivation(a)) {
        for (std::size_t i = 0; i < n; ++i)
            x[i] = activate(x[i], a);
        return;
    }
    std::size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        LaneVector v;
        loadLanes(v, x + i);
        activateLanes(v, a);
        storeLanes(x + i, v);
    }
    if (i < n) { // the tail through a zero-padded vector
        alignas(64) float tail[kLanes] = {};
        std::memcpy(tail, x + i, (n - i) * sizeof(float));
        LaneVector v;
        loadLanes(v, tail);
        activateLanes(v, a);
        storeLanes(tail, v);
        std::memcpy(x + i, tail, (n - i) * sizeof(float));
    }
}

void activateArray(float* x, std::size_t n, Activation a)
{
    constexpr std::size_t kChunk = 16384; // per task: long enough to pay for waking a thread
    const long chunks = long((n + kChunk - 1) / kChunk);
#pragma omp parallel for if (chunks > 1)
    for (long c = 0; c < chunks; ++c) {
        const std::size_t first = std::size_t(c) * kChunk;
        activateSpan(x + first, std::min(kChunk, n - first), a);
    }
}

bool gradientFromOutput(Activation a)
{
    return a != Activation::Mish && a != Activation::Swish && a != Activation::Gelu &&
           a != Activation::HardMish;
}

namespace {

float gradient(float y, Activation a)
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
        return std::floor(y) == y ? 0 : 1;
    case Activation::Relu6:
        return float(y > 0 && y < 6);
    default:
        return 1; // not reached: gradientFromOutput() is false for the rest
    }
}

// delta *= (y > 0 ? 1 : slope): a select, not a branch (the signs are random), in wide vectors.
NW_KERNEL_CLONES
void multiplyByRectifierGradient(const float* __restrict y, std::size_t n, float slope,
                                 float* __restrict delta)
{
    for (std::size_t i = 0; i < n; ++i)
        delta[i] = delta[i] * (y[i] > 0 ? 1.0f : slope);
}

} // namespace

void multiplyByGradient(const float* y, std::size_t n, Activation a, float* delta)
{
    if (a == Activation::Linear)
        return;
    if (a == Activation::Leaky || a == Activation::Relu) {
        const float slope = a == Activation::Leaky ? 0.1f : 0.0f;
        constexpr std::size_t kChunk = 32768; // both cores on large arrays
        const std::size_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for if (chunks > 2)
        for (std::size_t c = 0; c < chunks; ++c)
            multiplyByRectifierGradient(y + c * kChunk, std::min(kChunk, n - c * kChunk), slope,
                                        delta + c * kChunk);
        return;
    }
#pragma omp parallel for if (n > 65536)
    for (std::size_t i = 0; i < n; ++i)
        delta[i] *= gradient(y[i], a);
}

namespace {

float logistic(float x)
{
    return 1.0f / (1.0f + std::exp(-x));
}

// f'(x) of the activations whose derivative needs the input (the others: from their output).
float inputGradient(float x, Activation a)
{
    switch (a) {
    case Activation::Swish: {
        const float s = logistic(x);
        return s + x * s * (1 - s);
    }
    case Activation::Mish: { // d/dx x·tanh(softplus(x)) = tanh(sp) + x·sech²(sp)·σ(x)
        const float t = std::tanh(softplus(x));
        return t + x * (1 - t * t) * logistic(x);
    }
    case Activation::HardMish:
        if (x > 0)
            return 1;
        if (x > -2)
            return x + 1;
        return 0;
    case Activation::Gelu: {
        const float u = 0.797885f * x + 0.035677f * x * x * x;
        const float t = std::tanh(u);
        return 0.5f * (1 + t) + 0.5f * x * (1 - t * t) * (0.797885f + 3 * 0.035677f * x * x);
    }
    default:
        return gradient(activate(x, a), a);
    }
}

} // namespace

void multiplyByInputGradient(const float* x, std::size_t n, Activation a, float* delta)
{
#pragma omp parallel for if (n > 16384)
    for (std::size_t i = 0; i < n; ++i)
        delta[i] *= inputGradient(x[i], a);
}

void ActivationCache::activate(float* x, std::size_t n, Activation a)
{
    if (!gradientFromOutput(a))
        input_.assign(x, x + n);
    activateArray(x, n, a);
}

void ActivationCache::multiplyByGradient(const float* y, std::size_t n, Activation a, float* delta) const
{
    if (gradientFromOutput(a))
        nw::multiplyByGradient(y, n, a, delta);
    else
        multiplyByInputGradient(input_.data(), std::min(n, input_.size()), a, delta);
}

} // namespace nw
