#include "kernels/cuda/training_kernels.h"

#include "kernels/activation_formulas.h"
#include "kernels/cuda/index_maps.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/maxpool_window.h"
#include "kernels/l2norm_formulas.h"
#include "kernels/lrn_formulas.h"

namespace nw::cuda {

namespace {

__global__ void activationGradientKernel(const float* y, const float* x, std::size_t n, Activation a,
                                         float* delta)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        delta[i] *= x ? inputGradientFormula(x[i], a) : outputGradientFormula(y[i], a);
}

__global__ void maxpoolIndexedKernel(const float* in, float* out, std::int64_t* indexes, int planes, int w,
                                     int h, int outW, int outH, int size, int strideX, int strideY,
                                     int offset)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= std::size_t(planes) * std::size_t(outW) * std::size_t(outH))
        return;
    const MaxpoolWinner winner = maxpoolWindow(in, i, w, h, outW, outH, size, strideX, strideY, offset);
    out[i] = winner.value;
    indexes[i] = winner.index;
}

__global__ void maxpoolBackwardKernel(const float* delta, const std::int64_t* indexes, std::size_t n,
                                      float* inputDelta)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n && indexes[i] >= 0)
        atomicAdd(inputDelta + indexes[i], delta[i]);
}

// One thread per input value: the sum over its block of outputs (no atomics, a fixed order).
__global__ void lrnBackwardKernel(const float* x, const float* delta, const float* norms, float* inputDelta,
                                  int batch, int channels, std::size_t plane, LrnWindowView window,
                                  float alpha, float beta)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= std::size_t(batch) * plane)
        return;
    const std::size_t at = i / plane * std::size_t(channels) * plane + i % plane; // item, then pixel
    addLrnPixelDelta(x + at, delta + at, norms + at, inputDelta + at, channels, plane, window, alpha, beta);
}

__global__ void averagePlanesBackwardKernel(const float* delta, float* inputDelta, std::size_t n, int plane)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        inputDelta[i] += delta[i / std::size_t(plane)] / float(plane);
}

__global__ void addScaledKernel(const float* from, float* into, std::size_t n, float alpha)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        into[i] += alpha * from[i];
}

__global__ void addRowsKernel(const float* from, std::size_t fromStride, float* into, std::size_t intoStride,
                              std::size_t width, std::size_t n)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const std::size_t row = i / width, column = i % width;
    into[row * intoStride + column] += from[row * fromStride + column];
}

__global__ void reorgBackwardKernel(const float* delta, float* inputDelta, std::size_t inSize,
                                    std::size_t outSize, std::size_t n, ReorgMap map)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const std::size_t b = i / inSize;
    const IndexPair pair = reorgPair(i % inSize, map);
    inputDelta[b * inSize + pair.from] += delta[b * outSize + pair.to];
}

// The overlap's pairs are one-to-one (distinct o and distinct a), so no two threads write one place.
__global__ void addOverlapBackwardKernel(const float* delta, float* inputDelta, float* sourceDelta,
                                         std::size_t outSize, std::size_t fromSize, std::size_t pairs,
                                         std::size_t n, OverlapMap map, float alpha, float beta)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const std::size_t b = i / pairs;
    const IndexPair pair = overlapPair(i % pairs, map);
    const float d = delta[b * outSize + pair.to];
    if (inputDelta)
        inputDelta[b * outSize + pair.to] += (alpha - 1.0f) * d;
    if (sourceDelta)
        sourceDelta[b * fromSize + pair.from] += beta * d;
}

__global__ void addProductKernel(const float* a, const float* b, float* into, std::size_t n)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        into[i] += a[i] * b[i];
}

// The sum of every thread's value in a block of kThreads, in thread 0 (a tree in shared memory).
__device__ double blockSum(double value)
{
    __shared__ double partial[kThreads];
    partial[threadIdx.x] = value;
    __syncthreads();
    for (unsigned step = blockDim.x / 2; step > 0; step /= 2) {
        if (threadIdx.x < step)
            partial[threadIdx.x] += partial[threadIdx.x + step];
        __syncthreads();
    }
    return partial[0];
}

// One block per scale: the products of its values summed in double across the block, then added.
__global__ void addScaleSumsKernel(const float* delta, const float* from, float* scaleDelta, ScaleMap m)
{
    const std::size_t slot = blockIdx.x, perItem = scalesPerItem(m);
    const std::size_t base = slot / perItem * m.plane * m.channels, s = slot % perItem;
    double sum = 0;
    for (std::size_t k = threadIdx.x; k < scaledCount(m); k += blockDim.x) {
        const std::size_t j = base + scaledValue(s, k, m);
        sum += double(delta[j]) * double(from[j]);
    }
    sum = blockSum(sum);
    if (threadIdx.x == 0)
        scaleDelta[slot] += float(sum);
}

__global__ void cropBackwardKernel(const float* delta, float* inputDelta, std::size_t n, std::size_t inSize,
                                   std::size_t outSize, CropMap m, const CropPlacement* placements,
                                   float scale)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const std::size_t b = i / outSize;
    inputDelta[b * inSize + cropSource(i % outSize, m, placements[b])] += scale * delta[i];
}

__global__ void normalizeShortcutKernel(const float* raw, float* used, ShortcutWeighting s)
{
    const std::size_t c = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (c < s.perInput)
        normalizeShortcutColumn(raw, used, c, s.perInput, s.inputs, s.normalization);
}

__global__ void weightedGatherKernel(const float* x, std::size_t xSize, float* out, std::size_t outSize,
                                     std::size_t n, const float* w, ShortcutWeighting s, bool accumulate)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const std::size_t b = i / outSize, j = i % outSize;
    const float v = j < xSize ? x[b * xSize + j] * w[shortcutColumn(j, s.plane, s.perInput)] : 0.0f;
    out[i] = accumulate ? out[i] + v : v;
}

__global__ void weightedScatterKernel(const float* delta, std::size_t deltaSize, float* into,
                                      std::size_t intoSize, std::size_t n, const float* w,
                                      ShortcutWeighting s)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const std::size_t b = i / intoSize, j = i % intoSize;
    if (j < deltaSize)
        into[i] += w[shortcutColumn(j, s.plane, s.perInput)] * delta[b * deltaSize + j];
}

// One block per column: its values over every item, summed in double across the block.
__global__ void weightSumsKernel(const float* delta, std::size_t deltaSize, const float* x, std::size_t xSize,
                                 int batch, ShortcutWeighting s, double* g)
{
    const std::size_t c = blockIdx.x;
    const std::size_t span = s.perInput == 1 ? deltaSize : s.plane; // a column's values in one item
    const std::size_t count = std::size_t(batch) * span;
    double sum = 0;
    for (std::size_t t = threadIdx.x; t < count; t += blockDim.x) {
        const std::size_t b = t / span, j = c * (s.perInput == 1 ? 0 : s.plane) + t % span;
        if (j < xSize)
            sum += double(delta[b * deltaSize + j]) * double(x[b * xSize + j]);
    }
    sum = blockSum(sum);
    if (threadIdx.x == 0)
        g[c] += sum;
}

__global__ void shortcutGradientKernel(const float* raw, const float* used, const double* g, float* gradient,
                                       ShortcutWeighting s)
{
    const std::size_t c = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (c < s.perInput)
        addShortcutColumnGradient(raw, used, g, gradient, c, s.perInput, s.inputs, s.normalization);
}

// [local]: one thread per weight (location j, filter f, row r), over the batch.
__global__ void localWeightGradientKernel(const float* delta, const float* in, float* gradient, int batch,
                                          ColumnMap m, int filters)
{
    const std::size_t l = std::size_t(m.outH) * std::size_t(m.outW);
    const std::size_t k = std::size_t(m.channels) * std::size_t(m.size) * std::size_t(m.size);
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= l * std::size_t(filters) * k)
        return;
    const std::size_t r = i % k, f = i / k % std::size_t(filters), j = i / (k * std::size_t(filters));
    const long long at = columnSource(r, j, m);
    if (at < 0)
        return;
    const std::size_t item = std::size_t(m.channels) * std::size_t(m.height) * std::size_t(m.width);
    float sum = 0;
    for (int b = 0; b < batch; ++b)
        sum += delta[(std::size_t(b) * std::size_t(filters) + f) * l + j] * in[std::size_t(b) * item + at];
    gradient[i] += sum;
}

__global__ void localBiasGradientKernel(const float* delta, float* gradient, int batch, std::size_t perItem)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= perItem)
        return;
    float sum = 0;
    for (int b = 0; b < batch; ++b)
        sum += delta[std::size_t(b) * perItem + i];
    gradient[i] += sum;
}

// One thread per (item, location, row): its column's delta Σ_f δ·w, added where the column was read.
__global__ void localInputDeltaKernel(const float* delta, const float* weights, float* inputDelta, int batch,
                                      ColumnMap m, int filters)
{
    const std::size_t l = std::size_t(m.outH) * std::size_t(m.outW);
    const std::size_t k = std::size_t(m.channels) * std::size_t(m.size) * std::size_t(m.size);
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= std::size_t(batch) * l * k)
        return;
    const std::size_t r = i % k, j = i / k % l, b = i / (k * l);
    const long long at = columnSource(r, j, m);
    if (at < 0)
        return;
    float sum = 0;
    for (std::size_t f = 0; f < std::size_t(filters); ++f)
        sum +=
            delta[(b * std::size_t(filters) + f) * l + j] * weights[(j * std::size_t(filters) + f) * k + r];
    atomicAdd(inputDelta + b * std::size_t(m.channels) * std::size_t(m.height) * std::size_t(m.width) + at,
              sum);
}

__global__ void l2normBackwardKernel(const float* y, const float* delta, const float* norms,
                                     float* inputDelta, std::size_t pixels, std::size_t channels,
                                     std::size_t plane)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= pixels)
        return;
    const std::size_t at = i / plane * channels * plane + i % plane;
    addL2normDelta(y + at, delta + at, norms[i], inputDelta + at, channels, plane);
}

__global__ void sgdKernel(float* weights, float* velocity, float* gradient, std::size_t n, float decay,
                          float scale, float momentum)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        sgdUpdate(weights[i], velocity[i], gradient[i], decay, scale, momentum);
}

__global__ void adamKernel(float* weights, float* m, float* v, float* gradient, std::size_t n, float decay,
                           AdamStep step)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        adamUpdate(weights[i], m[i], v[i], gradient[i], decay, step);
}

} // namespace

void multiplyByActivationGradient(const float* y, const float* x, std::size_t n, Activation a, float* delta,
                                  cudaStream_t stream)
{
    if (a == Activation::Linear || n == 0)
        return;
    activationGradientKernel<<<blocksFor(n), kThreads, 0, stream>>>(
        gradientFromOutput(a) ? y : nullptr, gradientFromOutput(a) ? nullptr : x, n, a, delta);
    launched("the activation-gradient kernel");
}

void maxpoolRecordingIndexes(const float* in, float* out, std::int64_t* indexes, int planes, int w, int h,
                             int outW, int outH, int size, int strideX, int strideY, int offset,
                             cudaStream_t stream)
{
    const std::size_t n = std::size_t(planes) * std::size_t(outW) * std::size_t(outH);
    if (n) {
        maxpoolIndexedKernel<<<blocksFor(n), kThreads, 0, stream>>>(in, out, indexes, planes, w, h, outW,
                                                                    outH, size, strideX, strideY, offset);
        launched("the max-pool training kernel");
    }
}

void maxpoolBackward(const float* delta, const std::int64_t* indexes, std::size_t n, float* inputDelta,
                     cudaStream_t stream)
{
    if (n) {
        maxpoolBackwardKernel<<<blocksFor(n), kThreads, 0, stream>>>(delta, indexes, n, inputDelta);
        launched("the max-pool backward kernel");
    }
}

void lrnBackward(const float* x, const float* delta, const float* norms, float* inputDelta, int batch,
                 int channels, std::size_t plane, LrnWindowView window, float alpha, float beta,
                 cudaStream_t stream)
{
    const std::size_t n = std::size_t(batch) * plane;
    if (n) {
        lrnBackwardKernel<<<blocksFor(n), kThreads, 0, stream>>>(x, delta, norms, inputDelta, batch, channels,
                                                                 plane, window, alpha, beta);
        launched("the [normalization] backward kernel");
    }
}

void averagePlanesBackward(const float* delta, float* inputDelta, int planes, int plane, cudaStream_t stream)
{
    const std::size_t n = std::size_t(planes) * std::size_t(plane);
    if (n) {
        averagePlanesBackwardKernel<<<blocksFor(n), kThreads, 0, stream>>>(delta, inputDelta, n, plane);
        launched("the average-pool backward kernel");
    }
}

void addScaled(const float* from, float* into, std::size_t n, float alpha, cudaStream_t stream)
{
    if (n) {
        addScaledKernel<<<blocksFor(n), kThreads, 0, stream>>>(from, into, n, alpha);
        launched("the add kernel");
    }
}

void addRows(const float* from, std::size_t fromStride, float* into, std::size_t intoStride,
             std::size_t width, int rows, cudaStream_t stream)
{
    const std::size_t n = width * std::size_t(rows > 0 ? rows : 0);
    if (n) {
        addRowsKernel<<<blocksFor(n), kThreads, 0, stream>>>(from, fromStride, into, intoStride, width, n);
        launched("the add-rows kernel");
    }
}

void reorgBackward(const float* delta, float* inputDelta, int batch, std::size_t inSize, std::size_t outSize,
                   const ReorgMap& map, cudaStream_t stream)
{
    const std::size_t n = std::size_t(batch) * inSize;
    if (n) {
        reorgBackwardKernel<<<blocksFor(n), kThreads, 0, stream>>>(delta, inputDelta, inSize, outSize, n,
                                                                   map);
        launched("the reorg backward kernel");
    }
}

void addOverlapBackward(const float* delta, float* inputDelta, float* sourceDelta, int batch,
                        std::size_t outSize, std::size_t fromSize, const OverlapMap& map, float alpha,
                        float beta, cudaStream_t stream)
{
    const std::size_t pairs = overlapPairs(map), n = std::size_t(batch) * pairs;
    if (n && (inputDelta || sourceDelta)) {
        addOverlapBackwardKernel<<<blocksFor(n), kThreads, 0, stream>>>(
            delta, inputDelta, sourceDelta, outSize, fromSize, pairs, n, map, alpha, beta);
        launched("the shortcut backward kernel");
    }
}

void addProduct(const float* a, const float* b, float* into, std::size_t n, cudaStream_t stream)
{
    if (n) {
        addProductKernel<<<blocksFor(n), kThreads, 0, stream>>>(a, b, into, n);
        launched("the multiply-add kernel");
    }
}

void addScaleSums(const float* delta, const float* from, float* scaleDelta, int batch, const ScaleMap& map,
                  cudaStream_t stream)
{
    const std::size_t blocks = std::size_t(batch) * scalesPerItem(map);
    if (blocks) { // blockDim must be kThreads: the reduction's shared array has that size
        addScaleSumsKernel<<<unsigned(blocks), kThreads, 0, stream>>>(delta, from, scaleDelta, map);
        launched("the [scale_channels] backward kernel");
    }
}

void cropBackward(const float* delta, float* inputDelta, int batch, std::size_t inSize, std::size_t outSize,
                  const CropMap& map, const CropPlacement* placements, float scale, cudaStream_t stream)
{
    const std::size_t n = std::size_t(batch) * outSize;
    if (n) {
        cropBackwardKernel<<<blocksFor(n), kThreads, 0, stream>>>(delta, inputDelta, n, inSize, outSize, map,
                                                                  placements, scale);
        launched("the [crop] backward kernel");
    }
}

void normalizeShortcutWeights(const float* raw, float* used, const ShortcutWeighting& s, cudaStream_t stream)
{
    if (s.perInput) {
        normalizeShortcutKernel<<<blocksFor(s.perInput), kThreads, 0, stream>>>(raw, used, s);
        launched("the [shortcut] weight normalisation kernel");
    }
}

void weightedGather(const float* x, std::size_t xSize, float* out, std::size_t outSize, int batch,
                    const float* w, const ShortcutWeighting& s, bool accumulate, cudaStream_t stream)
{
    const std::size_t n = std::size_t(batch) * outSize;
    if (n) {
        weightedGatherKernel<<<blocksFor(n), kThreads, 0, stream>>>(x, xSize, out, outSize, n, w, s,
                                                                    accumulate);
        launched("the weighted [shortcut] kernel");
    }
}

void weightedScatter(const float* delta, std::size_t deltaSize, float* into, std::size_t intoSize, int batch,
                     const float* w, const ShortcutWeighting& s, cudaStream_t stream)
{
    const std::size_t n = std::size_t(batch) * intoSize;
    if (n) {
        weightedScatterKernel<<<blocksFor(n), kThreads, 0, stream>>>(delta, deltaSize, into, intoSize, n, w,
                                                                     s);
        launched("the weighted [shortcut] backward kernel");
    }
}

void addWeightSums(const float* delta, std::size_t deltaSize, const float* x, std::size_t xSize, int batch,
                   const ShortcutWeighting& s, double* g, cudaStream_t stream)
{
    if (s.perInput && batch > 0) { // blockDim must be kThreads: the reduction's shared array has that size
        weightSumsKernel<<<unsigned(s.perInput), kThreads, 0, stream>>>(delta, deltaSize, x, xSize, batch, s,
                                                                        g);
        launched("the weighted [shortcut] weight-gradient kernel");
    }
}

void addShortcutWeightGradient(const float* raw, const float* used, const double* g, float* gradient,
                               const ShortcutWeighting& s, cudaStream_t stream)
{
    if (s.perInput) {
        shortcutGradientKernel<<<blocksFor(s.perInput), kThreads, 0, stream>>>(raw, used, g, gradient, s);
        launched("the [shortcut] weight gradient kernel");
    }
}

void localBackward(const float* delta, const float* in, const float* weights, float* weightGradient,
                   float* biasGradient, float* inputDelta, int batch, const ColumnMap& map, int filters,
                   cudaStream_t stream)
{
    const std::size_t l = std::size_t(map.outH) * std::size_t(map.outW);
    const std::size_t k = std::size_t(map.channels) * std::size_t(map.size) * std::size_t(map.size);
    const std::size_t weightCount = l * std::size_t(filters) * k;
    if (weightGradient && weightCount != 0) {
        localWeightGradientKernel<<<blocksFor(weightCount), kThreads, 0, stream>>>(delta, in, weightGradient,
                                                                                   batch, map, filters);
        launched("the [local] weight-gradient kernel");
    }
    const std::size_t biases = l * std::size_t(filters);
    if (biasGradient && biases != 0) {
        localBiasGradientKernel<<<blocksFor(biases), kThreads, 0, stream>>>(delta, biasGradient, batch,
                                                                            biases);
        launched("the [local] bias-gradient kernel");
    }
    const std::size_t columns = std::size_t(batch) * l * k;
    if (inputDelta && columns != 0) {
        localInputDeltaKernel<<<blocksFor(columns), kThreads, 0, stream>>>(delta, weights, inputDelta, batch,
                                                                           map, filters);
        launched("the [local] backward kernel");
    }
}

void l2normBackward(const float* y, const float* delta, const float* norms, float* inputDelta, int batch,
                    std::size_t channels, std::size_t plane, cudaStream_t stream)
{
    const std::size_t pixels = std::size_t(batch) * plane;
    if (pixels) {
        l2normBackwardKernel<<<blocksFor(pixels), kThreads, 0, stream>>>(y, delta, norms, inputDelta, pixels,
                                                                         channels, plane);
        launched("the [l2norm] backward kernel");
    }
}

void sgdStep(float* weights, float* velocity, float* gradient, std::size_t n, float decay, float scale,
             float momentum, cudaStream_t stream)
{
    if (n) {
        sgdKernel<<<blocksFor(n), kThreads, 0, stream>>>(weights, velocity, gradient, n, decay, scale,
                                                         momentum);
        launched("the SGD kernel");
    }
}

void adamStep(float* weights, float* m, float* v, float* gradient, std::size_t n, float decay,
              const AdamStep& step, cudaStream_t stream)
{
    if (n) {
        adamKernel<<<blocksFor(n), kThreads, 0, stream>>>(weights, m, v, gradient, n, decay, step);
        launched("the Adam kernel");
    }
}

} // namespace nw::cuda
