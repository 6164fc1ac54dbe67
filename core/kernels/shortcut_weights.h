#pragma once
// AlexeyAB's weighted [shortcut] (weights_type, weights_normalization): how the raw weights become the
// weights used, and how the gradient of the used weights goes back to the raw ones — written once for
// the CPU layer (layers/shortcut.cpp) and its CUDA kernels. Weight w[k·perInput + c] belongs to input k
// (0: the previous layer, then each from=) and channel c (per_channel; otherwise one column, c = 0).
#include "kernels/host_device.h"

#include <cmath>
#include <cstddef>

namespace nw {

enum class ShortcutNormalization { none, relu, softmax }; // avg_relu is relu

// Column c normalised into `used`: relu (plus 0.0001 in the sum, as AB) or softmax, per channel.
NW_HOST_DEVICE inline void normalizeShortcutColumn(const float* raw, float* used, std::size_t c,
                                                   std::size_t perInput, std::size_t inputs,
                                                   ShortcutNormalization norm)
{
    float sum = 0, largest = -1e30f;
    for (std::size_t k = 0; k < inputs; ++k)
        largest = raw[k * perInput + c] > largest ? raw[k * perInput + c] : largest;
    for (std::size_t k = 0; k < inputs; ++k) {
        float v = raw[k * perInput + c];
        if (norm == ShortcutNormalization::relu)
            v = v > 0.0f ? v : 0.0f;
        else if (norm == ShortcutNormalization::softmax)
            v = expf(v - largest);
        used[k * perInput + c] = v;
        sum += v;
    }
    if (norm == ShortcutNormalization::relu)
        sum += 0.0001f;
    if (norm != ShortcutNormalization::none)
        for (std::size_t k = 0; k < inputs; ++k)
            used[k * perInput + c] /= sum;
}

// Column c's −∂loss/∂raw added into `gradient`, from g = −∂loss/∂used (summed over pixels and images).
NW_HOST_DEVICE inline void addShortcutColumnGradient(const float* raw, const float* used, const double* g,
                                                     float* gradient, std::size_t c, std::size_t perInput,
                                                     std::size_t inputs, ShortcutNormalization norm)
{
    double dot = 0, sum = 0.0001;
    for (std::size_t k = 0; k < inputs; ++k) {
        dot += g[k * perInput + c] * used[k * perInput + c];
        sum += raw[k * perInput + c] > 0.0f ? raw[k * perInput + c] : 0.0f;
    }
    for (std::size_t k = 0; k < inputs; ++k) {
        const std::size_t j = k * perInput + c;
        double value = g[j]; // none: the weights are used as they are
        if (norm == ShortcutNormalization::relu)
            value = raw[j] > 0 ? (g[j] - dot) / sum : 0.0;
        else if (norm == ShortcutNormalization::softmax)
            value = used[j] * (g[j] - dot);
        gradient[j] += float(value);
    }
}

// The column of value j of an item (channels × plane values).
NW_HOST_DEVICE inline std::size_t shortcutColumn(std::size_t j, std::size_t plane, std::size_t perInput)
{
    return perInput == 1 ? 0 : j / plane;
}

} // namespace nw
