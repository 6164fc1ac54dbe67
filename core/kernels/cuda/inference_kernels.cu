#include "kernels/cuda/inference_kernels.h"

#include "kernels/activation_formulas.h"
#include "kernels/batchnorm_epsilon.h"
#include "kernels/cuda/index_maps.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/maxpool_window.h"
#include "kernels/l2norm_formulas.h"
#include "kernels/lrn_formulas.h"

#include <cfloat>
#include <cuda_fp16.h>

namespace nw::cuda {

namespace {

__global__ void activateKernel(float* x, std::size_t n, Activation a)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = activationFormula(x[i], a);
}

__global__ void scaleShiftActivateKernel(float* x, std::size_t n, int channels, int plane,
                                         const float* biases, const float* scales, const float* mean,
                                         const float* variance, Activation a)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int c = int((i / std::size_t(plane)) % std::size_t(channels));
    float scale = 1.0f, shift = biases[c];
    if (scales) {
        scale = scales[c] / sqrtf(variance[c] + kBatchNormEpsilon);
        shift = biases[c] - mean[c] * scale;
    }
    x[i] = activationFormula(x[i] * scale + shift, a);
}

__global__ void maxpoolKernel(const float* in, float* out, int planes, int w, int h, int outW, int outH,
                              int size, int strideX, int strideY, int offset)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < std::size_t(planes) * std::size_t(outW) * std::size_t(outH))
        out[i] = maxpoolWindow(in, i, w, h, outW, outH, size, strideX, strideY, offset).value;
}

__global__ void maxpoolDepthKernel(const float* in, float* out, std::int64_t* indexes, std::size_t n,
                                   std::size_t plane, int inC, int outC)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const MaxpoolWinner winner = maxpoolDepth(in, i, plane, inC, outC);
    out[i] = winner.value;
    if (indexes)
        indexes[i] = winner.index;
}

// One thread per big value inside the blocks (w·s × h·s of each plane).
__global__ void blockSpreadKernel(const float* small, int planes, int w, int h, int s, float scale,
                                  float* big, int bigW, int bigH, bool accumulate)
{
    const int spanW = w * s, spanH = h * s;
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= std::size_t(planes) * std::size_t(spanW) * std::size_t(spanH))
        return;
    const int x = int(i % std::size_t(spanW));
    const int y = int(i / std::size_t(spanW) % std::size_t(spanH));
    const std::size_t p = i / (std::size_t(spanW) * std::size_t(spanH));
    const float v =
        scale *
        small[p * std::size_t(w) * std::size_t(h) + std::size_t(y / s) * std::size_t(w) + std::size_t(x / s)];
    float& into =
        big[p * std::size_t(bigW) * std::size_t(bigH) + std::size_t(y) * std::size_t(bigW) + std::size_t(x)];
    into = accumulate ? into + v : v;
}

__global__ void lrnForwardKernel(const float* in, float* out, float* norms, int batch, int channels,
                                 std::size_t plane, int size, float alpha, float beta, float kappa)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= std::size_t(batch) * plane)
        return;
    const std::size_t at = i / plane * std::size_t(channels) * plane + i % plane; // item, then pixel
    lrnPixel(in + at, out + at, norms ? norms + at : nullptr, channels, plane, size, alpha, beta, kappa);
}

// One thread per small value.
__global__ void blockSumKernel(const float* big, int bigW, int bigH, float* small, int planes, int w, int h,
                               int s, float scale, bool accumulate)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= std::size_t(planes) * std::size_t(w) * std::size_t(h))
        return;
    const int x = int(i % std::size_t(w));
    const int y = int(i / std::size_t(w) % std::size_t(h));
    const std::size_t p = i / (std::size_t(w) * std::size_t(h));
    const float* plane = big + p * std::size_t(bigW) * std::size_t(bigH);
    float sum = 0;
    for (int dy = 0; dy < s; ++dy)
        for (int dx = 0; dx < s; ++dx)
            sum += scale * plane[(std::size_t(y) * std::size_t(s) + std::size_t(dy)) * std::size_t(bigW) +
                                 std::size_t(x) * std::size_t(s) + std::size_t(dx)];
    small[i] = accumulate ? small[i] + sum : sum;
}

__global__ void addActivateKernel(const float* a, const float* b, float* out, std::size_t n, float alpha,
                                  float beta, Activation act)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = activationFormula(alpha * a[i] + beta * b[i], act);
}

__global__ void yoloKernel(float* x, std::size_t n, int classes, int plane, bool logistic, float scaleXY,
                           bool gaussian)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    // [yolo]: 0 x, 1 y, 2 w, 3 h, 4 obj, classes. [Gaussian_yolo]: 0 x, 1 σx, 2 y, 3 σy, 4 w, 5 σw, 6 h,
    // 7 σh, 8 obj, classes.
    const int entry = int(i / std::size_t(plane) % std::size_t(classes + (gaussian ? 9 : 5)));
    if (gaussian ? entry == 4 || entry == 6 : entry == 2 || entry == 3)
        return; // tw, th stay raw
    float v = x[i];
    if (logistic)
        v = 1.0f / (1.0f + expf(-v));
    if ((gaussian ? entry == 0 || entry == 2 : entry < 2) && scaleXY != 1.0f)
        v = v * scaleXY - 0.5f * (scaleXY - 1);
    x[i] = v;
}

// One thread per plane: planes are small here (global average pooling of a classifier's last maps).
__global__ void averagePlanesKernel(const float* in, float* out, int planes, int plane)
{
    const int p = int(blockIdx.x) * int(blockDim.x) + int(threadIdx.x);
    if (p >= planes)
        return;
    const float* src = in + std::size_t(p) * std::size_t(plane);
    float sum = 0;
    for (int i = 0; i < plane; ++i)
        sum += src[i];
    out[p] = sum / float(plane);
}

// softmax(x / temperature) over n consecutive values, the CPU's order of operations
// (kernels/cpu/softmax.cpp).
__device__ void softmaxRun(const float* x, float* y, int n, float temperature)
{
    float largest = -FLT_MAX;
    for (int i = 0; i < n; ++i)
        largest = fmaxf(largest, x[i]);
    float sum = 0;
    for (int i = 0; i < n; ++i) {
        const float e = expf(x[i] / temperature - largest / temperature);
        sum += e;
        y[i] = e;
    }
    for (int i = 0; i < n; ++i)
        y[i] /= sum;
}

// One thread per group.
__global__ void softmaxKernel(const float* in, float* out, int groups, int n, float temperature)
{
    const int g = int(blockIdx.x) * int(blockDim.x) + int(threadIdx.x);
    if (g >= groups)
        return;
    const std::size_t offset = std::size_t(g) * std::size_t(n);
    softmaxRun(in + offset, out + offset, n, temperature);
}

// One thread per (batch item, sibling group).
__global__ void groupedSoftmaxKernel(const float* in, float* out, int batch, std::size_t itemSize,
                                     const SoftmaxGroup* groups, int groupCount, float temperature)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= std::size_t(batch) * std::size_t(groupCount))
        return;
    const SoftmaxGroup group = groups[i % std::size_t(groupCount)];
    const std::size_t offset = (i / std::size_t(groupCount)) * itemSize + std::size_t(group.offset);
    softmaxRun(in + offset, out + offset, group.size, temperature);
}

// One thread per (batch item, input value): a permutation, so no two threads write one place.
__global__ void reorgKernel(const float* in, float* out, std::size_t inSize, std::size_t outSize,
                            std::size_t n, ReorgMap map)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const std::size_t b = i / inSize;
    const IndexPair pair = reorgPair(i % inSize, map);
    out[b * outSize + pair.to] = in[b * inSize + pair.from];
}

__global__ void addOverlapKernel(float* out, const float* source, std::size_t outSize, std::size_t fromSize,
                                 std::size_t pairs, std::size_t n, OverlapMap map, float alpha, float beta)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const std::size_t b = i / pairs;
    const IndexPair pair = overlapPair(i % pairs, map);
    float& o = out[b * outSize + pair.to];
    o = alpha * o + beta * source[b * fromSize + pair.from];
}

__global__ void multiplyKernel(const float* a, const float* b, float* out, std::size_t n)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a[i] * b[i];
}

__global__ void multiplyByScalesKernel(const float* a, const float* scales, float* out, std::size_t n,
                                       ScaleMap m, bool accumulate)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const std::size_t item = m.plane * m.channels, b = i / item;
    const float v = a[i] * scales[b * scalesPerItem(m) + scaleOf(i % item, m)];
    out[i] = accumulate ? out[i] + v : v;
}

__global__ void cropKernel(const float* in, float* out, std::size_t n, std::size_t inSize,
                           std::size_t outSize, CropMap m, const CropPlacement* placements, float scale,
                           float shift)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const std::size_t b = i / outSize;
    out[i] = in[b * inSize + cropSource(i % outSize, m, placements[b])] * scale + shift;
}

__global__ void localForwardKernel(const float* in, const float* weights, const float* biases, float* out,
                                   std::size_t n, ColumnMap m, int filters)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const std::size_t l = std::size_t(m.outH) * std::size_t(m.outW);
    const std::size_t k = std::size_t(m.channels) * std::size_t(m.size) * std::size_t(m.size);
    const std::size_t j = i % l, f = i / l % std::size_t(filters), b = i / (l * std::size_t(filters));
    const float* image = in + b * std::size_t(m.channels) * std::size_t(m.height) * std::size_t(m.width);
    const float* w = weights + (j * std::size_t(filters) + f) * k;
    float sum = biases[f * l + j];
    for (std::size_t r = 0; r < k; ++r) {
        const long long at = columnSource(r, j, m);
        if (at >= 0)
            sum += w[r] * image[at];
    }
    out[i] = sum;
}

__global__ void l2normalizeKernel(float* x, float* norms, std::size_t pixels, std::size_t channels,
                                  std::size_t plane)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < pixels)
        norms[i] = l2normalizePixel(x + i / plane * channels * plane + i % plane, channels, plane);
}

__global__ void toHalfKernel(const float* in, __half* out, std::size_t n)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __float2half_rn(in[i]);
}

__global__ void toFloatKernel(const __half* in, float* out, std::size_t n)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __half2float(in[i]);
}

} // namespace

void multiplyByScales(const float* a, const float* scales, float* out, int batch, const ScaleMap& map,
                      bool accumulate, cudaStream_t stream)
{
    const std::size_t n = std::size_t(batch) * map.plane * map.channels;
    if (n) {
        multiplyByScalesKernel<<<blocksFor(n), kThreads, 0, stream>>>(a, scales, out, n, map, accumulate);
        launched("the [scale_channels] kernel");
    }
}

void crop(const float* in, float* out, int batch, std::size_t inSize, std::size_t outSize, const CropMap& map,
          const CropPlacement* placements, float scale, float shift, cudaStream_t stream)
{
    const std::size_t n = std::size_t(batch) * outSize;
    if (n) {
        cropKernel<<<blocksFor(n), kThreads, 0, stream>>>(in, out, n, inSize, outSize, map, placements, scale,
                                                          shift);
        launched("the [crop] kernel");
    }
}

void maxpoolDepth(const float* in, float* out, std::int64_t* indexes, std::size_t n, std::size_t plane,
                  int inC, int outC, cudaStream_t stream)
{
    if (n) {
        maxpoolDepthKernel<<<blocksFor(n), kThreads, 0, stream>>>(in, out, indexes, n, plane, inC, outC);
        launched("the maxpool_depth kernel");
    }
}

void localForward(const float* in, const float* weights, const float* biases, float* out, int batch,
                  const ColumnMap& map, int filters, cudaStream_t stream)
{
    const std::size_t n =
        std::size_t(batch) * std::size_t(filters) * std::size_t(map.outH) * std::size_t(map.outW);
    if (n) {
        localForwardKernel<<<blocksFor(n), kThreads, 0, stream>>>(in, weights, biases, out, n, map, filters);
        launched("the [local] kernel");
    }
}

void l2normalize(float* x, float* norms, int batch, std::size_t channels, std::size_t plane,
                 cudaStream_t stream)
{
    const std::size_t pixels = std::size_t(batch) * plane;
    if (pixels) {
        l2normalizeKernel<<<blocksFor(pixels), kThreads, 0, stream>>>(x, norms, pixels, channels, plane);
        launched("the [l2norm] kernel");
    }
}

void toHalf(const float* in, void* out, std::size_t n, cudaStream_t stream)
{
    if (n) {
        toHalfKernel<<<blocksFor(n), kThreads, 0, stream>>>(in, static_cast<__half*>(out), n);
        launched("the FP32-to-FP16 kernel");
    }
}

void toFloat(const void* in, float* out, std::size_t n, cudaStream_t stream)
{
    if (n) {
        toFloatKernel<<<blocksFor(n), kThreads, 0, stream>>>(static_cast<const __half*>(in), out, n);
        launched("the FP16-to-FP32 kernel");
    }
}

void reorg(const float* in, float* out, int batch, std::size_t inSize, std::size_t outSize,
           const ReorgMap& map, cudaStream_t stream)
{
    const std::size_t n = std::size_t(batch) * inSize;
    if (outSize != inSize) // extra: the appended values are zeros
        cudaCheck(cudaMemsetAsync(out, 0, std::size_t(batch) * outSize * sizeof(float), stream),
                  "[reorg] clearing on the GPU");
    if (n) {
        reorgKernel<<<blocksFor(n), kThreads, 0, stream>>>(in, out, inSize, outSize, n, map);
        launched("the reorg kernel");
    }
}

void addOverlap(float* out, const float* source, int batch, std::size_t outSize, std::size_t fromSize,
                const OverlapMap& map, float alpha, float beta, cudaStream_t stream)
{
    const std::size_t pairs = overlapPairs(map), n = std::size_t(batch) * pairs;
    if (n) {
        addOverlapKernel<<<blocksFor(n), kThreads, 0, stream>>>(out, source, outSize, fromSize, pairs, n, map,
                                                                alpha, beta);
        launched("the shortcut kernel");
    }
}

void multiply(const float* a, const float* b, float* out, std::size_t n, cudaStream_t stream)
{
    if (n) {
        multiplyKernel<<<blocksFor(n), kThreads, 0, stream>>>(a, b, out, n);
        launched("the multiply kernel");
    }
}

void averagePlanes(const float* in, float* out, int planes, int plane, cudaStream_t stream)
{
    if (planes > 0) {
        averagePlanesKernel<<<blocksFor(std::size_t(planes)), kThreads, 0, stream>>>(in, out, planes, plane);
        launched("the average-pool kernel");
    }
}

void softmax(const float* in, float* out, int groups, int n, float temperature, cudaStream_t stream)
{
    if (groups > 0) {
        softmaxKernel<<<blocksFor(std::size_t(groups)), kThreads, 0, stream>>>(in, out, groups, n,
                                                                               temperature);
        launched("the softmax kernel");
    }
}

void groupedSoftmax(const float* in, float* out, int batch, std::size_t itemSize, const SoftmaxGroup* groups,
                    int groupCount, float temperature, cudaStream_t stream)
{
    const std::size_t threads = std::size_t(batch) * std::size_t(groupCount);
    if (threads > 0) {
        groupedSoftmaxKernel<<<blocksFor(threads), kThreads, 0, stream>>>(in, out, batch, itemSize, groups,
                                                                          groupCount, temperature);
        launched("the tree softmax kernel");
    }
}

void activate(float* x, std::size_t n, Activation a, cudaStream_t stream)
{
    if (a == Activation::Linear || n == 0)
        return;
    activateKernel<<<blocksFor(n), kThreads, 0, stream>>>(x, n, a);
    launched("the activation kernel");
}

void scaleShiftActivate(float* x, int batch, int channels, int plane, const float* biases,
                        const float* scales, const float* mean, const float* variance, Activation a,
                        cudaStream_t stream)
{
    const std::size_t n = std::size_t(batch) * std::size_t(channels) * std::size_t(plane);
    if (n) {
        scaleShiftActivateKernel<<<blocksFor(n), kThreads, 0, stream>>>(x, n, channels, plane, biases, scales,
                                                                        mean, variance, a);
        launched("the scale/shift kernel");
    }
}

void maxpool(const float* in, float* out, int planes, int w, int h, int outW, int outH, int size, int strideX,
             int strideY, int offset, cudaStream_t stream)
{
    const std::size_t n = std::size_t(planes) * std::size_t(outW) * std::size_t(outH);
    if (n) {
        maxpoolKernel<<<blocksFor(n), kThreads, 0, stream>>>(in, out, planes, w, h, outW, outH, size, strideX,
                                                             strideY, offset);
        launched("the max-pool kernel");
    }
}

void blockSpread(const float* small, int planes, int w, int h, int s, float scale, float* big, int bigW,
                 int bigH, bool accumulate, cudaStream_t stream)
{
    const std::size_t n =
        std::size_t(planes) * std::size_t(w) * std::size_t(s) * std::size_t(h) * std::size_t(s);
    if (n) {
        blockSpreadKernel<<<blocksFor(n), kThreads, 0, stream>>>(small, planes, w, h, s, scale, big, bigW,
                                                                 bigH, accumulate);
        launched("the upsample kernel");
    }
}

void lrnForward(const float* in, float* out, float* norms, int batch, int channels, std::size_t plane,
                int size, float alpha, float beta, float kappa, cudaStream_t stream)
{
    const std::size_t n = std::size_t(batch) * plane;
    if (n) {
        lrnForwardKernel<<<blocksFor(n), kThreads, 0, stream>>>(in, out, norms, batch, channels, plane, size,
                                                                alpha, beta, kappa);
        launched("the [normalization] kernel");
    }
}

void blockSum(const float* big, int bigW, int bigH, float* small, int planes, int w, int h, int s,
              float scale, bool accumulate, cudaStream_t stream)
{
    const std::size_t n = std::size_t(planes) * std::size_t(w) * std::size_t(h);
    if (n) {
        blockSumKernel<<<blocksFor(n), kThreads, 0, stream>>>(big, bigW, bigH, small, planes, w, h, s, scale,
                                                              accumulate);
        launched("the block sum kernel");
    }
}

void addActivate(const float* a, const float* b, float* out, std::size_t n, float alpha, float beta,
                 Activation act, cudaStream_t stream)
{
    if (n) {
        addActivateKernel<<<blocksFor(n), kThreads, 0, stream>>>(a, b, out, n, alpha, beta, act);
        launched("the shortcut kernel");
    }
}

void yoloActivate(float* x, int batch, int anchors, int classes, int plane, bool logistic, float scaleXY,
                  cudaStream_t stream, bool gaussian)
{
    const std::size_t n = std::size_t(batch) * std::size_t(anchors) *
                          std::size_t(classes + (gaussian ? 9 : 5)) * std::size_t(plane);
    if (n) {
        yoloKernel<<<blocksFor(n), kThreads, 0, stream>>>(x, n, classes, plane, logistic, scaleXY, gaussian);
        launched("the yolo kernel");
    }
}

} // namespace nw::cuda
