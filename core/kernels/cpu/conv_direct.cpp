#include "kernels/cpu/conv_direct.h"

#include "kernels/cpu/clones.h"
#include "kernels/cpu/conv_tiled.h"
#include "kernels/cpu/lanes.h"

#include <algorithm>
#include <cstring>
#include <omp.h>

namespace nw {

namespace {

constexpr int kFilters = 16; // filters accumulated together (over kLanes output columns)

int taps(const ConvGeometry& g)
{
    return g.channels * g.size * g.size;
}

// Each (channel, kernel row) input row of one output row, padding included as zeros, split by
// stride into phases (phase p holds columns p, p + stride, …, so every tap reads consecutive
// floats), with kLanes of slack so the last vector load stays inside.
int phaseLength(const ConvGeometry& g)
{
    return g.outWidth + (g.size - 1) / g.strideX + kLanes;
}

std::size_t packedWeightFloats(const ConvGeometry& g, int filters)
{
    const int groups = (filters + kFilters - 1) / kFilters;
    return std::size_t(groups) * std::size_t(taps(g)) * kFilters;
}

std::size_t rowFloats(const ConvGeometry& g)
{
    return std::size_t(g.channels) * std::size_t(g.size) * std::size_t(g.strideX) *
           std::size_t(phaseLength(g));
}

// weights → [filter group][tap][kFilters], zeros for the missing filters of the last group.
void packWeights(const float* weights, int filters, int tapCount, float* packed)
{
    const int groups = (filters + kFilters - 1) / kFilters;
    std::fill(packed, packed + std::size_t(groups) * std::size_t(tapCount) * kFilters, 0.0f);
    for (int f = 0; f < filters; ++f)
        for (int t = 0; t < tapCount; ++t)
            packed[(std::size_t(f / kFilters) * std::size_t(tapCount) + std::size_t(t)) * kFilters +
                   std::size_t(f % kFilters)] =
                weights[std::size_t(f) * std::size_t(tapCount) + std::size_t(t)];
}

void gatherRows(const float* input, const ConvGeometry& g, int y, float* rows)
{
    const int length = phaseLength(g), stride = g.strideX;
    for (int c = 0; c < g.channels; ++c)
        for (int ky = 0; ky < g.size; ++ky) {
            const int iy = y * g.strideY + ky - g.pad;
            const float* source =
                input + (std::size_t(c) * std::size_t(g.height) + std::size_t(std::max(iy, 0))) * g.width;
            for (int phase = 0; phase < stride; ++phase) {
                float* row = rows + std::size_t((c * g.size + ky) * stride + phase) * std::size_t(length);
                std::fill(row, row + length, 0.0f);
                if (iy < 0 || iy >= g.height)
                    continue;
                // row[j] = in[j·stride + phase − pad] for the j that land inside the image.
                const int offset = phase - g.pad;
                const int first = std::max(0, (-offset + stride - 1) / stride);
                const int last = std::min(length, (g.width - offset + stride - 1) / stride);
                if (last <= first)
                    continue;
                if (stride == 1)
                    std::memcpy(row + first, source + first + offset,
                                sizeof(float) * std::size_t(last - first));
                else
                    for (int j = first; j < last; ++j)
                        row[j] = source[j * stride + offset];
            }
        }
}

// One output row of one filter group: sums only (the epilogue follows).
NW_KERNEL_CLONES
void rowOfGroup(const ConvGeometry& g, const float* rows, const float* packed, int filterCount, float* out,
                std::size_t plane)
{
    const int length = phaseLength(g), stride = g.strideX;
    for (int x0 = 0; x0 < g.outWidth; x0 += kLanes) {
        LaneVector sum[kFilters] = {};
        const float* w = packed;
        for (int c = 0; c < g.channels; ++c)
            for (int ky = 0; ky < g.size; ++ky) {
                const float* phases =
                    rows + std::size_t((c * g.size + ky) * stride) * std::size_t(length) + x0;
                for (int kx = 0; kx < g.size; ++kx, w += kFilters) {
                    // Column x·stride + kx − pad: phase kx mod stride, position x + kx / stride.
                    LaneVector x;
                    std::memcpy(&x, phases + std::size_t(kx % stride) * std::size_t(length) + kx / stride,
                                sizeof x);
#pragma GCC unroll 16
                    for (int f = 0; f < kFilters; ++f)
                        sum[f] += w[f] * x;
                }
            }
        const int count = std::min(kLanes, g.outWidth - x0);
        for (int f = 0; f < filterCount; ++f) {
            float* target = out + std::size_t(f) * plane + std::size_t(x0);
            if (count == kLanes) // a fixed size: one vector store, not a library copy
                std::memcpy(target, &sum[f], sizeof sum[f]);
            else {
                alignas(64) float lanes[kLanes];
                std::memcpy(lanes, &sum[f], sizeof lanes);
                std::memcpy(target, lanes, std::size_t(count) * sizeof(float));
            }
        }
    }
}

} // namespace

bool directConvolutionPays(const ConvGeometry& g, int groups)
{
    // bench/conv_kernels_bench, 2 threads, time ÷ GEMM's: 0.5–0.8 for 1–8 channels with sizes 3–7 and
    // outputs 28 wide or more (416×416×3 → 16: 0.55; 104×104×8 → 128: 0.72; stride 2, 7×7
    // 256×256×3 → 64: 0.48; 24–32 wide at stride 2: 0.85–0.99); 1.15 for 1×1 (nothing to share
    // between taps); 1.24 for 20-wide outputs (a 16-column vector and a short tail per row).
    return groups == 1 && g.strideX == g.strideY && g.strideX <= 2 && g.dilation == 1 && g.channels <= 8 &&
           g.size >= 3 && g.size <= 7 && g.outWidth >= 24;
}

std::size_t directWorkspaceFloats(const ConvGeometry& g, int filters, int threads)
{
    return packedWeightFloats(g, filters) + rowFloats(g) * std::size_t(std::max(1, threads));
}

void convolveDirect(const DirectKernel& k, const float* input, float* output, float* workspace)
{
    const ConvGeometry& g = k.geometry;
    const int tapCount = taps(g);
    // Packed on every call: at most 8·49 floats per filter, far below 1 % of the layer's time, and
    // never stale while the weights train.
    float* packed = workspace;
    packWeights(k.weights, k.filters, tapCount, packed);
    float* rowsBase = workspace + packedWeightFloats(g, k.filters);
    const std::size_t plane = std::size_t(g.outHeight) * std::size_t(g.outWidth);
    const int threads = std::max(1, std::min(omp_get_max_threads(), k.maxThreads));
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int y = 0; y < g.outHeight; ++y) {
        float* rows = rowsBase + std::size_t(omp_get_thread_num()) * rowFloats(g);
        gatherRows(input, g, y, rows);
        for (int f0 = 0; f0 < k.filters; f0 += kFilters) {
            const int count = std::min(kFilters, k.filters - f0);
            float* out = output + std::size_t(f0) * plane + std::size_t(y) * std::size_t(g.outWidth);
            rowOfGroup(g, rows, packed + std::size_t(f0) * std::size_t(tapCount), count, out, plane);
            convEpilogue(out, count, g.outWidth, int(plane), k.scale + f0, k.shift + f0, k.activation);
        }
    }
}

} // namespace nw
