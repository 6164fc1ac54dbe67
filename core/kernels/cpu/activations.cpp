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
    return outputGradientFormula(y, a);
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

float inputGradient(float x, Activation a)
{
    return inputGradientFormula(x, a);
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
