#include "kernels/cpu/batchnorm.h"

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

} // namespace nw
