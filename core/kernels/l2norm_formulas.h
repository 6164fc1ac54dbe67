#pragma once
// [l2norm]'s per-pixel maths (layers/l2norm.cpp), written once for the CPU layer and its CUDA kernels:
// each pixel's channel vector (values `plane` apart) divided by its length, and the backward of that.
#include "kernels/host_device.h"

#include <cmath>
#include <cstddef>

namespace nw {

// p[c·plane] /= ‖p‖ over the channels; returns ‖p‖ (the backward pass needs it).
NW_HOST_DEVICE inline float l2normalizePixel(float* p, std::size_t channels, std::size_t plane)
{
    float sum = 0;
    for (std::size_t c = 0; c < channels; ++c)
        sum += p[c * plane] * p[c * plane];
    sum = sqrtf(sum);
    for (std::size_t c = 0; c < channels; ++c)
        p[c * plane] /= sum;
    return sum;
}

// y = x/‖x‖: −∂loss/∂x_c = (δ_c − y_c·Σ_k δ_k y_k) / ‖x‖, added into `in`.
NW_HOST_DEVICE inline void addL2normDelta(const float* y, const float* delta, float norm, float* in,
                                          std::size_t channels, std::size_t plane)
{
    double dot = 0;
    for (std::size_t c = 0; c < channels; ++c)
        dot += double(delta[c * plane]) * y[c * plane];
    for (std::size_t c = 0; c < channels; ++c)
        in[c * plane] += float((delta[c * plane] - y[c * plane] * dot) / norm);
}

} // namespace nw
