#include "kernels/cpu/bias_activation.h"

namespace nw {

void addBiasActivate(float* x, std::size_t channels, std::size_t plane, const float* bias,
                     Activation activation)
{
#pragma omp parallel for if (channels * plane > 32768)
    for (std::size_t c = 0; c < channels; ++c) {
        float* p = x + c * plane;
        const float b = bias[c];
        switch (activation) {
        case Activation::Linear:
            for (std::size_t i = 0; i < plane; ++i)
                p[i] += b;
            break;
        case Activation::Leaky:
            for (std::size_t i = 0; i < plane; ++i) {
                const float v = p[i] + b;
                p[i] = v > 0 ? v : 0.1f * v;
            }
            break;
        case Activation::Relu:
            for (std::size_t i = 0; i < plane; ++i) {
                const float v = p[i] + b;
                p[i] = v > 0 ? v : 0.0f;
            }
            break;
        default:
            for (std::size_t i = 0; i < plane; ++i)
                p[i] += b;
            activateSpan(p, plane, activation);
        }
    }
}

} // namespace nw
