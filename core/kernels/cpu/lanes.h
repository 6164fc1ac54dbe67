#pragma once
// Sixteen floats as one value (GCC vector extension: one AVX-512 register, two AVX2 ones) and the
// activations computed on all sixteen at once. Always inlined, so they take the width of the cloned
// kernel that calls them (kernels/cpu/clones.h).
#include "kernels/cpu/activations.h"

#include <cstring>

namespace nw {

constexpr int kLanes = 16;
using LaneVector = float __attribute__((vector_size(kLanes * sizeof(float))));
using LaneIntegers = int __attribute__((vector_size(kLanes * sizeof(int))));

#define NW_LANES_INLINE [[gnu::always_inline]] inline

NW_LANES_INLINE void loadLanes(LaneVector& v, const float* p)
{
    std::memcpy(&v, p, sizeof v);
}

NW_LANES_INLINE void storeLanes(float* p, const LaneVector& v)
{
    std::memcpy(p, &v, sizeof v);
}

// x ← e^x to within 2 ulp (Cephes' expf: e^x = 2^n · e^r with |r| ≤ ln2/2 and a degree-6
// polynomial for e^r). Inputs are clamped to [−87.3, 88.37], so results never become denormals or
// infinities. (In place, like everything here: GCC warns that returning these vectors by value
// depends on the instruction set.)
NW_LANES_INLINE void expLanes(LaneVector& x)
{
    x = x > 88.3762626647949f ? 88.3762626647949f : x; // written so that NaN stays NaN
    x = x < -87.3365447505531f ? -87.3365447505531f : x;
    LaneVector n = x * 1.44269504088896341f + 0.5f; // round(x / ln 2) through floor(· + 0.5)
    const LaneVector truncated =
        __builtin_convertvector(__builtin_convertvector(n, LaneIntegers), LaneVector);
    n = truncated > n ? truncated - 1.0f : truncated;
    const LaneVector r = x - n * 0.693359375f + n * 2.12194440e-4f; // ln 2 in two parts
    LaneVector p = r * 1.9875691500e-4f + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * (r * r) + r + 1.0f;
    const LaneIntegers bits = (__builtin_convertvector(n, LaneIntegers) + 127) << 23; // 2^n
    LaneVector power;
    std::memcpy(&power, &bits, sizeof power);
    x = p * power;
}

// Whether activateLanes computes `a` in vectors (the others go lane by lane through activate()).
constexpr bool vectorActivation(Activation a)
{
    return a == Activation::Linear || a == Activation::Leaky || a == Activation::Relu ||
           a == Activation::Logistic || a == Activation::Swish || a == Activation::Mish;
}

NW_LANES_INLINE void activateLanes(LaneVector& x, Activation a)
{
    switch (a) {
    case Activation::Linear:
        return;
    case Activation::Leaky:
        x = x > 0 ? x : 0.1f * x;
        return;
    case Activation::Relu:
        x = x > 0 ? x : x * 0.0f; // as activate(): NaN stays NaN
        return;
    case Activation::Logistic:
    case Activation::Swish: {
        LaneVector e = -x;
        expLanes(e);
        x = a == Activation::Logistic ? 1.0f / (1.0f + e) : x / (1.0f + e);
        return;
    }
    case Activation::Mish: {
        // x·tanh(ln(1 + eˣ)) = x·m / (m + 2) with m = eˣ(eˣ + 2): one exponential instead of exp,
        // log1p and tanh. Above 20 it is x, as in AlexeyAB's softplus threshold.
        LaneVector e = x;
        expLanes(e);
        const LaneVector m = e * (e + 2.0f);
        x = x > 20.0f ? x : x * m / (m + 2.0f);
        return;
    }
    default:
        for (int l = 0; l < kLanes; ++l)
            x[l] = activate(x[l], a);
    }
}

} // namespace nw
