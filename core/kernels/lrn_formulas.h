#pragma once
// [normalization]'s per-pixel maths (local response normalisation, layers/normalization.cpp), written
// once for the CPU layer and its CUDA kernels. A pixel's channel column holds values `plane` apart.
#include "kernels/host_device.h"

#include <math.h>
#include <stddef.h>

namespace nw {

// Which channels j each channel k's norm sums, with their counts: the entries of k run from start[k] to
// start[k + 1] (pjreddie's running window, quirks included, as layers/normalization.cpp builds it).
struct LrnWindowView {
    const int* start;
    const int* channel;
    const int* count;
};

// n_k = κ + α·Σ x_j² over pjreddie's running window, y_k = x_k·n_k^−β; n_k kept in `norms` unless null.
// (Channels past the last one count as zero: Darknet reads past the column when size/2 > channels.)
NW_HOST_DEVICE inline void lrnPixel(const float* x, float* y, float* norms, int channels, size_t plane,
                                    int size, float alpha, float beta, float kappa)
{
    float norm = kappa;
    for (int k = 0; k < size / 2 && k < channels; ++k)
        norm += alpha * (x[size_t(k) * plane] * x[size_t(k) * plane]);
    for (int k = 0; k < channels; ++k) {
        if (k > 0) {
            const int previous = k - (size - 1) / 2 - 1, next = k + size / 2;
            if (previous >= 0)
                norm -= alpha * (x[size_t(previous) * plane] * x[size_t(previous) * plane]);
            if (next < channels)
                norm += alpha * (x[size_t(next) * plane] * x[size_t(next) * plane]);
        }
        y[size_t(k) * plane] = x[size_t(k) * plane] * powf(norm, -beta);
        if (norms)
            norms[size_t(k) * plane] = norm;
    }
}

// The exact gradient, added into `in`: −∂loss/∂x_j = δ_j·n_j^−β − 2αβ·x_j·Σ_k w_kj·δ_k·x_k·n_k^(−β−1),
// w_kj the window's counts (Darknet's CPU backward keeps only the first term).
NW_HOST_DEVICE inline void addLrnPixelDelta(const float* x, const float* delta, const float* norms, float* in,
                                            int channels, size_t plane, LrnWindowView window, float alpha,
                                            float beta)
{
    for (int k = 0; k < channels; ++k) {
        const size_t at = size_t(k) * plane;
        in[at] += delta[at] * powf(norms[at], -beta);
        const float common = -2 * alpha * beta * delta[at] * x[at] * powf(norms[at], -beta - 1);
        for (int e = window.start[k]; e < window.start[k + 1]; ++e) {
            const size_t j = size_t(window.channel[e]) * plane;
            in[j] += float(window.count[e]) * common * x[j];
        }
    }
}

} // namespace nw
