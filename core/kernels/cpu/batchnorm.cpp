#include "kernels/cpu/batchnorm.h"

#include "kernels/cpu/clones.h"

#include <algorithm>
#include <cmath>

namespace nw {

void batchNormScaleShift(std::span<const float> biases, std::span<const float> scales,
                         std::span<const float> mean, std::span<const float> variance,
                         std::vector<float>& scale, std::vector<float>& shift)
{
    scale.assign(biases.size(), 1.0f);
    shift.assign(biases.begin(), biases.end());
    if (scales.empty())
        return;
    for (std::size_t c = 0; c < biases.size(); ++c) {
        scale[c] = scales[c] / std::sqrt(variance[c] + kBatchNormEpsilon);
        shift[c] = biases[c] - mean[c] * scale[c];
    }
}

void batchNormInference(float* x, std::size_t channels, std::size_t plane, const float* scales,
                        const float* mean, const float* variance, const float* biases)
{
#pragma omp parallel for if (channels * plane > 65536)
    for (std::size_t c = 0; c < channels; ++c) {
        const float s = scales[c] / std::sqrt(variance[c] + kBatchNormEpsilon);
        const float shift = biases[c] - mean[c] * s;
        float* p = x + c * plane;
        for (std::size_t i = 0; i < plane; ++i)
            p[i] = p[i] * s + shift;
    }
}

namespace {

// Sum of a plane in float blocks added into a double: accurate and vectorisable.
// Sum and sum of squares of (x − shift) over a plane in one pass: float blocks (vectorised) added into
// doubles. The shift (a value of the channel) keeps Σ(x − m)² = Σd² − n·mean(d)² from cancelling when
// the mean is large next to the spread: unshifted, its rounding made the loss noisy by ~1e-6, which
// gradient checks of the layer before a batch norm (whose true bias gradient is 0) saw as 0.02-0.04.
NW_KERNEL_CLONES
void planeMoments(const float* p, int n, float shift, double& sum, double& squares)
{
    for (int i0 = 0; i0 < n; i0 += 256) {
        float s = 0, q = 0;
        const int end = std::min(n, i0 + 256);
#pragma omp simd reduction(+ : s, q)
        for (int i = i0; i < end; ++i) {
            const float d = p[i] - shift;
            s += d;
            q += d * d;
        }
        sum += s;
        squares += q;
    }
}

// One plane: saves x̂ and writes act(scale·x̂ + bias).
NW_KERNEL_CLONES
void normalizePlane(float* p, float* saved, int plane, float m, float inverse, float scale, float bias,
                    Activation activation)
{
    if (activation == Activation::Leaky) {
        for (int i = 0; i < plane; ++i) {
            const float normalized = (p[i] - m) * inverse;
            saved[i] = normalized;
            const float y = normalized * scale + bias;
            p[i] = y > 0 ? y : 0.1f * y;
        }
        return;
    }
    for (int i = 0; i < plane; ++i) {
        const float normalized = (p[i] - m) * inverse;
        saved[i] = normalized;
        p[i] = normalized * scale + bias;
    }
    activateSpan(p, std::size_t(plane), activation);
}

// The delta at scale·x̂ + bias: through the fused rectifier's gradient, taken from x̂ as the forward pass
// decided it (slope 1: none, the delta itself).
struct PlaneRectifier {
    float scale, bias, slope;
};

[[gnu::always_inline]] inline float rectified(float d, float xn, const PlaneRectifier& r)
{
    return d * (xn * r.scale + r.bias > 0 ? 1.0f : r.slope);
}

NW_KERNEL_CLONES
void backwardPlane(float* d, const float* xn, int plane, float k, float inverse, float meanG, float meanGX,
                   PlaneRectifier r)
{
    for (int i = 0; i < plane; ++i)
        d[i] = k * rectified(d[i], xn[i], r) - inverse * (meanG + xn[i] * meanGX);
}

NW_KERNEL_CLONES
void planeDeltaSums(const float* d, const float* xn, int plane, PlaneRectifier r, double& deltaSum,
                    double& deltaNormalized)
{
    for (int i0 = 0; i0 < plane; i0 += 256) {
        float s = 0, sn = 0;
        const int end = std::min(plane, i0 + 256);
#pragma omp simd reduction(+ : s, sn)
        for (int i = i0; i < end; ++i) {
            const float g = rectified(d[i], xn[i], r);
            s += g;
            sn += g * xn[i];
        }
        deltaSum += s;
        deltaNormalized += sn;
    }
}

} // namespace

void batchNormTrainingForward(float* x, int batch, int channels, int plane, const float* scales,
                              const float* biases, float* mean, float* variance, float* rollingMean,
                              float* rollingVariance, float* savedNormalized, Activation activation)
{
    const std::size_t n = std::size_t(batch) * std::size_t(plane);
    const std::size_t itemSize = std::size_t(channels) * std::size_t(plane);
#pragma omp parallel for schedule(dynamic)
    for (int c = 0; c < channels; ++c) {
        double sum = 0, sumSquares = 0;
        const float shift = x[std::size_t(c) * std::size_t(plane)];
        for (int b = 0; b < batch; ++b)
            planeMoments(x + std::size_t(b) * itemSize + std::size_t(c) * std::size_t(plane), plane, shift,
                         sum, sumSquares);
        const double shiftedMean = sum / double(n);
        const double meanD = double(shift) + shiftedMean;
        const float m = float(meanD);
        const double squares = std::max(0.0, sumSquares - double(n) * shiftedMean * shiftedMean); // Σ(x − m)²
        // Normalise with the batch's own variance (÷N, so the backward pass is its exact derivative);
        // the rolling estimate takes the unbiased one (÷N−1), as Darknet and PyTorch do.
        const float v = float(squares / double(n));
        mean[c] = m;
        variance[c] = v;
        rollingMean[c] = 0.99f * rollingMean[c] + 0.01f * m;
        rollingVariance[c] = 0.99f * rollingVariance[c] + 0.01f * float(squares / double(n > 1 ? n - 1 : 1));
        const float inverse = 1.0f / std::sqrt(v + kBatchNormEpsilon);
        const float scale = scales[c], bias = biases[c];
        for (int b = 0; b < batch; ++b) {
            const std::size_t offset = std::size_t(b) * itemSize + std::size_t(c) * std::size_t(plane);
            normalizePlane(x + offset, savedNormalized + offset, plane, m, inverse, scale, bias, activation);
        }
    }
}

void batchNormBackward(float* delta, const float* savedNormalized, const float* variance, const float* scales,
                       int batch, int channels, int plane, float* scaleGradient, float* biasGradient,
                       FusedRectifier rectifier)
{
    const std::size_t itemSize = std::size_t(channels) * std::size_t(plane);
    const float n = float(batch) * float(plane);
#pragma omp parallel for schedule(dynamic)
    for (int c = 0; c < channels; ++c) {
        const PlaneRectifier r{scales[c], rectifier.biases ? rectifier.biases[c] : 0.0f,
                               rectifier.biases ? rectifier.slope : 1.0f};
        double deltaSum = 0, deltaNormalized = 0;
        for (int b = 0; b < batch; ++b) {
            const std::size_t offset = std::size_t(b) * itemSize + std::size_t(c) * std::size_t(plane);
            planeDeltaSums(delta + offset, savedNormalized + offset, plane, r, deltaSum, deltaNormalized);
        }
        if (biasGradient) { // null: not wanted (a layer whose weights stay fixed)
            biasGradient[c] += float(deltaSum);
            scaleGradient[c] += float(deltaNormalized);
        }
        // With g = scale·delta (the gradient at x̂):  dx = (g − mean(g) − x̂·mean(g·x̂)) / sqrt(var + eps).
        const float inverse = 1.0f / std::sqrt(variance[c] + kBatchNormEpsilon);
        const float meanG = float(deltaSum) * scales[c] / n, meanGX = float(deltaNormalized) * scales[c] / n;
        const float k = scales[c] * inverse;
        for (int b = 0; b < batch; ++b) {
            const std::size_t offset = std::size_t(b) * itemSize + std::size_t(c) * std::size_t(plane);
            backwardPlane(delta + offset, savedNormalized + offset, plane, k, inverse, meanG, meanGX, r);
        }
    }
}

void BatchNormTraining::forward(float* x, int batch, int channels, int plane, const float* scales,
                                const float* biases, float* rollingMean, float* rollingVariance,
                                Activation activation)
{
    mean_.resize(std::size_t(channels));
    variance_.resize(std::size_t(channels));
    normalized_.resize(std::size_t(batch) * std::size_t(channels) * std::size_t(plane));
    batchNormTrainingForward(x, batch, channels, plane, scales, biases, mean_.data(), variance_.data(),
                             rollingMean, rollingVariance, normalized_.data(), activation);
}

void BatchNormTraining::backward(float* delta, const float* scales, int batch, int channels, int plane,
                                 float* scaleGradient, float* biasGradient, FusedRectifier rectifier) const
{
    batchNormBackward(delta, normalized_.data(), variance_.data(), scales, batch, channels, plane,
                      scaleGradient, biasGradient, rectifier);
}

} // namespace nw
