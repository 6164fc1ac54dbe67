#include "kernels/cpu/im2col.h"

#include <cstring>

namespace nw {

void im2col(const float* image, const ConvGeometry& g, float* columns)
{
    const int rows = g.channels * g.size * g.size;
    const int plane = g.outHeight * g.outWidth;
#pragma omp parallel for if (rows * plane > 65536)
    for (int row = 0; row < rows; ++row) {
        const int kx = row % g.size;
        const int ky = (row / g.size) % g.size;
        const int c = row / g.size / g.size;
        const float* channel = image + static_cast<long>(c) * g.height * g.width;
        float* out = columns + static_cast<long>(row) * plane;
        for (int oy = 0; oy < g.outHeight; ++oy) {
            const int y = oy * g.strideY - g.pad + ky * g.dilation;
            float* outRow = out + oy * g.outWidth;
            if (y < 0 || y >= g.height) {
                std::memset(outRow, 0, sizeof(float) * static_cast<std::size_t>(g.outWidth));
                continue;
            }
            const float* inRow = channel + static_cast<long>(y) * g.width;
            const int xOffset = kx * g.dilation - g.pad;
            for (int ox = 0; ox < g.outWidth; ++ox) {
                const int x = ox * g.strideX + xOffset;
                outRow[ox] = (x >= 0 && x < g.width) ? inRow[x] : 0.0f;
            }
        }
    }
}

void col2imAdd(const float* columns, const ConvGeometry& g, float* image)
{
    const int rows = g.channels * g.size * g.size;
    const int plane = g.outHeight * g.outWidth;
    for (int row = 0; row < rows; ++row) {
        const int kx = row % g.size;
        const int ky = (row / g.size) % g.size;
        const int c = row / g.size / g.size;
        float* channel = image + static_cast<long>(c) * g.height * g.width;
        const float* in = columns + static_cast<long>(row) * plane;
        for (int oy = 0; oy < g.outHeight; ++oy) {
            const int y = oy * g.strideY - g.pad + ky * g.dilation;
            if (y < 0 || y >= g.height)
                continue;
            float* outRow = channel + static_cast<long>(y) * g.width;
            const int xOffset = kx * g.dilation - g.pad;
            for (int ox = 0; ox < g.outWidth; ++ox) {
                const int x = ox * g.strideX + xOffset;
                if (x >= 0 && x < g.width)
                    outRow[x] += in[oy * g.outWidth + ox];
            }
        }
    }
}

} // namespace nw
