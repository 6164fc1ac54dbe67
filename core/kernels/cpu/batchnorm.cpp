#include "kernels/cpu/batchnorm.h"

#include <algorithm>
#include <cmath>

namespace nw {

void foldBatchNorm(const std::vector<float>& weights, const std::vector<float>& biases,
                   const std::vector<float>& scales, const std::vector<float>& mean,
                   const std::vector<float>& variance, std::size_t filters, std::size_t perFilter,
                   std::vector<float>& foldedWeights, std::vector<float>& foldedBiases)
{
    foldedWeights.resize(weights.size());
    foldedBiases.resize(filters);
    for (std::size_t f = 0; f < filters; ++f) {
        const float s = scales[f] / std::sqrt(variance[f] + kBatchNormEpsilon);
        for (std::size_t i = 0; i < perFilter; ++i)
            foldedWeights[f * perFilter + i] = weights[f * perFilter + i] * s;
        foldedBiases[f] = biases[f] - mean[f] * s;
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

void batchNormTrainingForward(float* x, int batch, int channels, int plane, const float* scales,
                              const float* biases, float* mean, float* variance, float* rollingMean,
                              float* rollingVariance, float* savedX, float* savedNormalized)
{
    const std::size_t n = std::size_t(batch) * std::size_t(plane);
    const std::size_t itemSize = std::size_t(channels) * std::size_t(plane);
    std::copy(x, x + std::size_t(batch) * itemSize, savedX);
#pragma omp parallel for
    for (int c = 0; c < channels; ++c) {
        double sum = 0;
        for (int b = 0; b < batch; ++b) {
            const float* p = x + std::size_t(b) * itemSize + std::size_t(c) * std::size_t(plane);
            for (int i = 0; i < plane; ++i)
                sum += p[i];
        }
        const float m = float(sum / double(n));
        double squares = 0;
        for (int b = 0; b < batch; ++b) {
            const float* p = x + std::size_t(b) * itemSize + std::size_t(c) * std::size_t(plane);
            for (int i = 0; i < plane; ++i)
                squares += double(p[i] - m) * double(p[i] - m);
        }
        // Normalise with the batch's own variance (÷N, so the backward pass is its exact derivative);
        // the rolling estimate takes the unbiased one (÷N−1), as Darknet and PyTorch do.
        const float v = float(squares / double(n));
        mean[c] = m;
        variance[c] = v;
        rollingMean[c] = 0.99f * rollingMean[c] + 0.01f * m;
        rollingVariance[c] = 0.99f * rollingVariance[c] + 0.01f * float(squares / double(n > 1 ? n - 1 : 1));
        const float inverse = 1.0f / std::sqrt(v + kBatchNormEpsilon);
        for (int b = 0; b < batch; ++b) {
            const std::size_t offset = std::size_t(b) * itemSize + std::size_t(c) * std::size_t(plane);
            for (int i = 0; i < plane; ++i) {
                const float normalized = (x[offset + std::size_t(i)] - m) * inverse;
                savedNormalized[offset + std::size_t(i)] = normalized;
                x[offset + std::size_t(i)] = normalized * scales[c] + biases[c];
            }
        }
    }
}

void batchNormBackward(float* delta, const float* savedX, const float* savedNormalized, const float* mean,
                       const float* variance, const float* scales, int batch, int channels, int plane,
                       float* scaleGradient, float* biasGradient)
{
    const std::size_t itemSize = std::size_t(channels) * std::size_t(plane);
    const float n = float(batch) * float(plane);
#pragma omp parallel for
    for (int c = 0; c < channels; ++c) {
        double deltaSum = 0, deltaNormalized = 0;
        for (int b = 0; b < batch; ++b) {
            const std::size_t offset = std::size_t(b) * itemSize + std::size_t(c) * std::size_t(plane);
            for (int i = 0; i < plane; ++i) {
                deltaSum += delta[offset + std::size_t(i)];
                deltaNormalized +=
                    double(delta[offset + std::size_t(i)]) * savedNormalized[offset + std::size_t(i)];
            }
        }
        biasGradient[c] += float(deltaSum);
        scaleGradient[c] += float(deltaNormalized);
        // Darknet's mean_delta, variance_delta and normalize_delta, with the delta scaled by `scales`.
        const float inverse = 1.0f / std::sqrt(variance[c] + kBatchNormEpsilon);
        double meanDelta = 0, varianceDelta = 0;
        for (int b = 0; b < batch; ++b) {
            const std::size_t offset = std::size_t(b) * itemSize + std::size_t(c) * std::size_t(plane);
            for (int i = 0; i < plane; ++i) {
                const float d = delta[offset + std::size_t(i)] * scales[c];
                meanDelta += d;
                varianceDelta += double(d) * (savedX[offset + std::size_t(i)] - mean[c]);
            }
        }
        meanDelta *= -inverse;
        varianceDelta *= -0.5 * std::pow(double(variance[c]) + kBatchNormEpsilon, -1.5);
        for (int b = 0; b < batch; ++b) {
            const std::size_t offset = std::size_t(b) * itemSize + std::size_t(c) * std::size_t(plane);
            for (int i = 0; i < plane; ++i) {
                float& d = delta[offset + std::size_t(i)];
                d = d * scales[c] * inverse +
                    float(varianceDelta) * 2.0f * (savedX[offset + std::size_t(i)] - mean[c]) / n +
                    float(meanDelta) / n;
            }
        }
    }
}

} // namespace nw
