#include "kernels/cpu/im2col.h"

#include "kernels/cpu/clones.h"

#include <algorithm>
#include <cstring>

namespace nw {

namespace {

// Output columns ox whose tap x = ox·stride + offset lies inside [0, width): [lo, hi).
void insideRange(int outWidth, int width, int stride, int offset, int& lo, int& hi)
{
    lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
    hi = (width - 1 - offset) < 0 ? 0 : (width - 1 - offset) / stride + 1;
    lo = std::min(lo, outWidth);
    hi = std::clamp(hi, lo, outWidth);
}

} // namespace

void im2col(const float* image, const ConvGeometry& g, float* columns)
{
    im2colStrided(image, g, columns, long(g.outHeight) * g.outWidth);
}

NW_KERNEL_CLONES
void im2colStrided(const float* image, const ConvGeometry& g, float* columns, long rowStride)
{
    const int rows = g.channels * g.size * g.size;
    for (int row = 0; row < rows; ++row) {
        const int kx = row % g.size;
        const int ky = (row / g.size) % g.size;
        const int c = row / g.size / g.size;
        const float* channel = image + static_cast<long>(c) * g.height * g.width;
        float* out = columns + static_cast<long>(row) * rowStride;
        const int xOffset = kx * g.dilation - g.pad;
        int lo, hi;
        insideRange(g.outWidth, g.width, g.strideX, xOffset, lo, hi);
        for (int oy = 0; oy < g.outHeight; ++oy) {
            const int y = oy * g.strideY - g.pad + ky * g.dilation;
            float* outRow = out + oy * g.outWidth;
            if (y < 0 || y >= g.height) {
                std::memset(outRow, 0, sizeof(float) * static_cast<std::size_t>(g.outWidth));
                continue;
            }
            const float* inRow = channel + static_cast<long>(y) * g.width;
            std::fill(outRow, outRow + lo, 0.0f);
            if (g.strideX == 1)
                std::copy(inRow + lo + xOffset, inRow + hi + xOffset, outRow + lo);
            else
                for (int ox = lo; ox < hi; ++ox)
                    outRow[ox] = inRow[ox * g.strideX + xOffset];
            std::fill(outRow + hi, outRow + g.outWidth, 0.0f);
        }
    }
}

void col2imAdd(const float* columns, const ConvGeometry& g, float* image)
{
    col2imAddStrided(columns, g, image, long(g.outHeight) * g.outWidth);
}

NW_KERNEL_CLONES
void col2imAddStrided(const float* columns, const ConvGeometry& g, float* image, long rowStride)
{
    const int rows = g.channels * g.size * g.size;
    for (int row = 0; row < rows; ++row) {
        const int kx = row % g.size;
        const int ky = (row / g.size) % g.size;
        const int c = row / g.size / g.size;
        float* channel = image + static_cast<long>(c) * g.height * g.width;
        const float* in = columns + static_cast<long>(row) * rowStride;
        const int xOffset = kx * g.dilation - g.pad;
        int lo, hi;
        insideRange(g.outWidth, g.width, g.strideX, xOffset, lo, hi);
        for (int oy = 0; oy < g.outHeight; ++oy) {
            const int y = oy * g.strideY - g.pad + ky * g.dilation;
            if (y < 0 || y >= g.height)
                continue;
            float* outRow = channel + static_cast<long>(y) * g.width;
            const float* inRow = in + oy * g.outWidth;
            if (g.strideX == 1)
                for (int ox = lo; ox < hi; ++ox)
                    outRow[ox + xOffset] += inRow[ox];
            else
                for (int ox = lo; ox < hi; ++ox)
                    outRow[ox * g.strideX + xOffset] += inRow[ox];
        }
    }
}

} // namespace nw
