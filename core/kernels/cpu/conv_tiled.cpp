#include "kernels/cpu/conv_tiled.h"

#include "kernels/cpu/clones.h"
#include "kernels/cpu/gemm.h"

#include <algorithm>
#include <omp.h>

namespace nw {

namespace {

constexpr std::size_t kTileBytes = 192 * 1024; // a K × tile block that stays in L2 with the weights streaming

bool isDirect(const ConvGeometry& g)
{
    return g.size == 1 && g.strideX == 1 && g.strideY == 1 && g.pad == 0;
}

int rowsK(const ConvGeometry& g)
{
    return g.channels * g.size * g.size;
}

int tileColumns(const ConvGeometry& g)
{
    const int plane = g.outHeight * g.outWidth;
    const int byCache = int(kTileBytes / (sizeof(float) * std::size_t(rowsK(g))));
    return std::clamp(byCache / 16 * 16, 64, std::max(64, plane));
}

// im2col restricted to output positions [first, first + count): row r = (c, ky, kx) of the result
// holds, for each position, the input pixel under that kernel tap. Filled one output row segment at
// a time so the common stride-1 case is a straight copy.
NW_KERNEL_CLONES
void im2colTile(const float* image, const ConvGeometry& g, int first, int count, float* columns)
{
    const int rows = rowsK(g);
    for (int row = 0; row < rows; ++row) {
        const int kx = row % g.size, ky = (row / g.size) % g.size, c = row / g.size / g.size;
        const float* channel = image + static_cast<long>(c) * g.height * g.width;
        float* out = columns + static_cast<long>(row) * count;
        int position = first;
        const int end = first + count;
        while (position < end) {
            const int oy = position / g.outWidth, ox0 = position % g.outWidth;
            const int ox1 = std::min(g.outWidth, ox0 + (end - position));
            const int y = oy * g.strideY - g.pad + ky * g.dilation;
            float* dst = out + (position - first);
            if (y < 0 || y >= g.height) {
                std::fill(dst, dst + (ox1 - ox0), 0.0f);
            } else {
                const float* src = channel + static_cast<long>(y) * g.width;
                const int xOffset = kx * g.dilation - g.pad;
                for (int ox = ox0; ox < ox1; ++ox) {
                    const int x = ox * g.strideX + xOffset;
                    dst[ox - ox0] = (x >= 0 && x < g.width) ? src[x] : 0.0f;
                }
            }
            position += ox1 - ox0;
        }
    }
}

// Epilogue of the transposed product: reads count × rows, writes rows planes.
NW_KERNEL_CLONES
void epilogueTransposed(const float* product, float* out, int rows, int count, int stride, const float* scale,
                        const float* shift, Activation act)
{
    for (int r = 0; r < rows; ++r) {
        float* p = out + static_cast<long>(r) * stride;
        const float s = scale[r], b = shift[r];
        for (int i = 0; i < count; ++i) {
            const float v = product[static_cast<long>(i) * rows + r] * s + b;
            p[i] = act == Activation::Leaky ? (v > 0 ? v : 0.1f * v) : activate(v, act);
        }
    }
}

NW_KERNEL_CLONES
void epilogue(float* out, int rows, int count, int stride, const float* scale, const float* shift,
              Activation act)
{
    for (int r = 0; r < rows; ++r) {
        float* p = out + static_cast<long>(r) * stride;
        const float s = scale[r], b = shift[r];
        switch (act) {
        case Activation::Leaky:
            for (int i = 0; i < count; ++i) {
                const float v = p[i] * s + b;
                p[i] = v > 0 ? v : 0.1f * v;
            }
            break;
        case Activation::Linear:
            for (int i = 0; i < count; ++i)
                p[i] = p[i] * s + b;
            break;
        case Activation::Relu:
            for (int i = 0; i < count; ++i) {
                const float v = p[i] * s + b;
                p[i] = v > 0 ? v : 0.0f;
            }
            break;
        default:
            for (int i = 0; i < count; ++i)
                p[i] = activate(p[i] * s + b, act);
        }
    }
}

} // namespace

// Few filters and a large image (the first layers): OpenBLAS is about twice as fast on the
// transposed product (positions × K) · (K × filters) than on the thin (filters × K) · (K × positions).
bool useTransposed(const ConvGeometry& g, int filtersPerGroup)
{
    return !isDirect(g) && filtersPerGroup <= 32;
}

std::size_t convWorkspaceFloats(const ConvGeometry& g, int filtersPerGroup, int threads)
{
    if (isDirect(g))
        return 0;
    const std::size_t product = useTransposed(g, filtersPerGroup) ? std::size_t(filtersPerGroup) : 0;
    return (std::size_t(rowsK(g)) + product) * std::size_t(tileColumns(g)) *
           std::size_t(std::max(1, threads));
}

void convolveTiled(const ConvKernel& k, const float* input, float* output, float* workspace)
{
    const ConvGeometry& g = k.geometry;
    const int plane = g.outHeight * g.outWidth;
    const int K = rowsK(g);
    const int tile = tileColumns(g);
    const int tiles = (plane + tile - 1) / tile;
    const int filtersPerGroup = k.filters / k.groups;
    const int threads = omp_get_max_threads();
    // Few tiles (small late layers): also split the filters so every core has work.
    const int filterBlocks =
        std::max(1, std::min(filtersPerGroup / 16, threads / std::max(1, k.groups * tiles)));
    const int blockRows = (filtersPerGroup + filterBlocks - 1) / filterBlocks;
    const int tasks = k.groups * tiles * filterBlocks;
    const std::size_t inPlane = std::size_t(g.height) * std::size_t(g.width);
    const bool direct = isDirect(g);
    const bool transposed = useTransposed(g, filtersPerGroup);

#pragma omp parallel for schedule(dynamic) if (tasks > 1)
    for (int task = 0; task < tasks; ++task) {
        const int block = task % filterBlocks;
        const int t = (task / filterBlocks) % tiles;
        const int group = task / filterBlocks / tiles;
        const int first = t * tile, count = std::min(tile, plane - first);
        const int row0 = group * filtersPerGroup + block * blockRows;
        const int rows = std::min(blockRows, (group + 1) * filtersPerGroup - row0);
        if (rows <= 0)
            continue;
        const float* image = input + std::size_t(group) * std::size_t(g.channels) * inPlane;
        float* out = output + std::size_t(row0) * std::size_t(plane) + std::size_t(first);
        const float* weights = k.weights + std::size_t(row0) * std::size_t(K);
        if (transposed) {
            float* mine = workspace + std::size_t(omp_get_thread_num()) * std::size_t(K + filtersPerGroup) *
                                          std::size_t(tile);
            float* product = mine + std::size_t(K) * std::size_t(tile);
            im2colTile(image, g, first, count, mine);
            gemm(true, true, count, rows, K, 1.0f, mine, count, weights, K, 0.0f, product, rows);
            epilogueTransposed(product, out, rows, count, plane, k.scale + row0, k.shift + row0,
                               k.activation);
            continue;
        }
        const float* columns;
        int ldb;
        if (direct) {
            columns = image + first;
            ldb = plane;
        } else {
            float* mine = workspace + std::size_t(omp_get_thread_num()) * std::size_t(K) * std::size_t(tile);
            im2colTile(image, g, first, count, mine);
            columns = mine;
            ldb = count;
        }
        gemm(false, false, rows, count, K, 1.0f, weights, K, columns, ldb, 0.0f, out, plane);
        epilogue(out, rows, count, plane, k.scale + row0, k.shift + row0, k.activation);
    }
}

} // namespace nw
