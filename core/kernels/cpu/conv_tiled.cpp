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
    if (plane <= 1024) // small late layers: one tile, the filters are split instead
        return plane;
    const int byCache = int(kTileBytes / (sizeof(float) * std::size_t(rowsK(g))));
    return std::clamp(byCache / 16 * 16, 64, plane);
}

int tileCount(const ConvGeometry& g)
{
    const int tile = tileColumns(g);
    return (g.outHeight * g.outWidth + tile - 1) / tile;
}

// im2col restricted to output positions [first, first + count): row r = (c, ky, kx) of the result
// holds, for each position, the input pixel under that kernel tap. Filled one output row segment at
// a time so the common stride-1 case is a straight copy.
NW_KERNEL_CLONES
void im2colRows(const float* image, const ConvGeometry& g, int first, int count, int rowBegin, int rowEnd,
                float* columns)
{
    for (int row = rowBegin; row < rowEnd; ++row) {
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
                // Output columns whose tap lands inside the row: [lo, hi); zeros on either side.
                const float* src = channel + static_cast<long>(y) * g.width;
                const int xOffset = kx * g.dilation - g.pad;
                const int s = g.strideX;
                const int lo = std::clamp(xOffset >= 0 ? 0 : (-xOffset + s - 1) / s, ox0, ox1);
                const int hi = std::clamp((g.width - 1 - xOffset) / s + 1, lo, ox1);
                std::fill(dst, dst + (lo - ox0), 0.0f);
                float* inside = dst + (lo - ox0);
                const float* from = src + lo * s + xOffset;
                if (s == 1)
                    std::copy(from, from + (hi - lo), inside);
                else
                    for (int i = 0; i < hi - lo; ++i)
                        inside[i] = from[i * s];
                std::fill(dst + (hi - ox0), dst + (ox1 - ox0), 0.0f);
            }
            position += ox1 - ox0;
        }
    }
}

void im2colTile(const float* image, const ConvGeometry& g, int first, int count, float* columns)
{
    im2colRows(image, g, first, count, 0, rowsK(g), columns);
}

// Epilogue of the transposed product: reads count × rows, writes rows planes.
NW_KERNEL_CLONES
void epilogueTransposed(const float* product, float* out, int rows, int count, int stride, const float* scale,
                        const float* shift, Activation act)
{
    constexpr int kBlock = 64; // positions per block: their product rows stay in L1 across the filters
    for (int i0 = 0; i0 < count; i0 += kBlock) {
        const int n = std::min(kBlock, count - i0);
        for (int r = 0; r < rows; ++r) {
            float* p = out + static_cast<long>(r) * stride + i0;
            const float* q = product + static_cast<long>(i0) * rows + r;
            const float s = scale[r], b = shift[r];
            if (act == Activation::Leaky) {
                for (int i = 0; i < n; ++i) {
                    const float v = q[static_cast<long>(i) * rows] * s + b;
                    p[i] = v > 0 ? v : 0.1f * v;
                }
            } else {
                for (int i = 0; i < n; ++i)
                    p[i] = q[static_cast<long>(i) * rows] * s + b;
                activateSpan(p, std::size_t(n), act);
            }
        }
    }
}

} // namespace

NW_KERNEL_CLONES
void convEpilogue(float* out, int rows, int count, int stride, const float* scale, const float* shift,
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
                p[i] = p[i] * s + b;
            activateSpan(p, std::size_t(count), act);
        }
    }
}

// Few filters and a large image (the first layers): OpenBLAS is about twice as fast on the
// transposed product (positions × K) · (K × filters) than on the thin (filters × K) · (K × positions).
bool useTransposed(const ConvGeometry& g, int filtersPerGroup)
{
    return !isDirect(g) && filtersPerGroup <= 32 && tileCount(g) >= 4;
}

std::size_t convWorkspaceFloats(const ConvGeometry& g, int groups, int filtersPerGroup, int threads)
{
    if (isDirect(g))
        return 0;
    const std::size_t product = useTransposed(g, filtersPerGroup) ? std::size_t(filtersPerGroup) : 0;
    const std::size_t tile = std::size_t(tileColumns(g)), K = std::size_t(rowsK(g));
    // Per-thread tiles, or (few tiles) every group's tiles unrolled at once: fewer than 2·threads.
    const std::size_t perThread = (K + product) * tile * std::size_t(std::max(1, threads));
    const int units = groups * tileCount(g);
    const std::size_t shared = units < 2 * std::max(1, threads) ? K * tile * std::size_t(units) : 0;
    return std::max(perThread, shared);
}

void convolveTiled(const ConvKernel& k, const float* input, float* output, float* workspace)
{
    const ConvGeometry& g = k.geometry;
    const int plane = g.outHeight * g.outWidth;
    const int K = rowsK(g);
    const int tile = tileColumns(g);
    const int tiles = tileCount(g);
    const int filtersPerGroup = k.filters / k.groups;
    const int threads = std::max(1, std::min(omp_get_max_threads(), k.maxThreads));
    const std::size_t inPlane = std::size_t(g.height) * std::size_t(g.width);
    const bool direct = isDirect(g);
    const bool transposed = useTransposed(g, filtersPerGroup);
    // Many tiles: each task unrolls its own tile. Few tiles (small late layers): unroll every tile
    // once, together, then split the filters so both cores share the GEMMs evenly.
    const bool shared = !direct && k.groups * tiles < 2 * threads;
    const int filterBlocks = k.groups * tiles >= 2 * threads ? 1
                                                             : std::clamp(2 * threads / (k.groups * tiles), 1,
                                                                          std::max(1, filtersPerGroup / 8));
    const int blockRows = (filtersPerGroup + filterBlocks - 1) / filterBlocks;
    const std::size_t tileFloats = std::size_t(K) * std::size_t(tile);

    if (shared) {
        const int units = k.groups * tiles;
#pragma omp parallel for collapse(2) num_threads(threads)
        for (int unit = 0; unit < units; ++unit)
            for (int part = 0; part < threads; ++part) {
                const int group = unit / tiles, t = unit % tiles;
                const int first = t * tile, count = std::min(tile, plane - first);
                const int rowBegin = K * part / threads, rowEnd = K * (part + 1) / threads;
                im2colRows(input + std::size_t(group) * std::size_t(g.channels) * inPlane, g, first, count,
                           rowBegin, rowEnd, workspace + std::size_t(unit) * tileFloats);
            }
    }

    const int tasks = k.groups * tiles * filterBlocks;
#pragma omp parallel for schedule(dynamic) num_threads(threads) if (tasks > 1)
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
        const std::size_t perThread =
            tileFloats + (transposed ? std::size_t(filtersPerGroup) * std::size_t(tile) : 0);
        float* mine = workspace + std::size_t(omp_get_thread_num()) * perThread;
        if (transposed) {
            float* product = mine + tileFloats;
            im2colTile(image, g, first, count, mine);
            gemm(true, true, count, rows, K, 1.0f, mine, count, weights, K, 0.0f, product, rows);
            epilogueTransposed(product, out, rows, count, plane, k.scale + row0, k.shift + row0,
                               k.activation);
            continue;
        }
        const float* columns = image + first; // 1×1 stride 1: the input is the matrix
        int ldb = plane;
        if (shared) {
            columns = workspace + std::size_t(group * tiles + t) * tileFloats;
            ldb = count;
        } else if (!direct) {
            im2colTile(image, g, first, count, mine);
            columns = mine;
            ldb = count;
        }
        gemm(false, false, rows, count, K, 1.0f, weights, K, columns, ldb, 0.0f, out, plane);
        convEpilogue(out, rows, count, plane, k.scale + row0, k.shift + row0, k.activation);
    }
}

} // namespace nw
