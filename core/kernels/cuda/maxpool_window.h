#pragma once
// Darknet's max-pool window for output i (planes × outH × outW): origin (x·stride + offset), values
// outside the image do not count, the first of equal values wins. Inference and training both use it
// (and the depth variant below);
// plain C++ as well, so test_kernels holds it to the CPU layer.
#include "kernels/host_device.h"

#include <cfloat>
#include <cstddef>
#include <cstdint>

namespace nw::cuda {

struct MaxpoolWinner {
    float value;
    std::int64_t index; // into the input; −1 when the window is all outside
};

NW_HOST_DEVICE inline MaxpoolWinner maxpoolWindow(const float* in, std::size_t i, int w, int h, int outW,
                                                  int outH, int size, int strideX, int strideY, int offset)
{
    const int x = int(i % std::size_t(outW));
    const int y = int(i / std::size_t(outW) % std::size_t(outH));
    const std::size_t base = i / (std::size_t(outW) * std::size_t(outH)) * std::size_t(w) * std::size_t(h);
    MaxpoolWinner winner{-FLT_MAX, -1};
    // The window clipped to the image, visited in its order (a huge size= stepped through every
    // position outside the image).
    const int y0 = y * strideY + offset, x0 = x * strideX + offset;
    const int firstY = y0 > 0 ? y0 : 0, firstX = x0 > 0 ? x0 : 0;
    const long long endY = (long long)y0 + size < h ? (long long)y0 + size : h;
    const long long endX = (long long)x0 + size < w ? (long long)x0 + size : w;
    for (int iy = firstY; iy < endY; ++iy) {
        for (int ix = firstX; ix < endX; ++ix) {
            const std::size_t at = base + std::size_t(iy) * std::size_t(w) + std::size_t(ix);
            if (in[at] > winner.value) {
                winner.value = in[at];
                winner.index = std::int64_t(at);
            }
        }
    }
    return winner;
}

// AlexeyAB's maxpool_depth (layers/maxpool.cpp): output value i (batch × outC × plane) is the largest of
// the input channels k ≡ g (mod outC) at its pixel, g its channel; the first of equal values wins.
NW_HOST_DEVICE inline MaxpoolWinner maxpoolDepth(const float* in, std::size_t i, std::size_t plane, int inC,
                                                 int outC)
{
    const std::size_t pixel = i % plane, g = i / plane % std::size_t(outC);
    const std::size_t base = i / (plane * std::size_t(outC)) * std::size_t(inC) * plane;
    MaxpoolWinner winner{-FLT_MAX, -1};
    for (std::size_t k = g; k < std::size_t(inC); k += std::size_t(outC)) {
        const std::size_t at = base + k * plane + pixel;
        if (in[at] > winner.value) {
            winner.value = in[at];
            winner.index = std::int64_t(at);
        }
    }
    return winner;
}

} // namespace nw::cuda
