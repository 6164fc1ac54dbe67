#include "kernels/cuda/channel_statistics.h"

#include "kernels/activation_formulas.h"
#include "kernels/batchnorm_epsilon.h"
#include "kernels/cuda/launch.cuh"

namespace nw::cuda {

namespace {

// Values of one channel per chunk: enough for a block to be worth starting, at most 64 chunks.
constexpr std::size_t kValuesPerChunk = 16384;
constexpr int kMaxChunks = 64;
constexpr int kStatsPerChannel = 4; // what the element-wise pass reads per channel

int chunksFor(int batch, int plane)
{
    const std::size_t values = std::size_t(batch) * std::size_t(plane);
    const std::size_t chunks = (values + kValuesPerChunk - 1) / kValuesPerChunk;
    return int(chunks < 1 ? 1 : chunks > std::size_t(kMaxChunks) ? std::size_t(kMaxChunks) : chunks);
}

struct ChannelLayout {
    int batch, channels, plane;
    // The k-th value of channel c (k < batch · plane), in NCHW.
    __device__ std::size_t at(std::size_t k, int c) const
    {
        const std::size_t p = std::size_t(plane);
        return (k / p) * std::size_t(channels) * p + std::size_t(c) * p + k % p;
    }
    __device__ std::size_t perChannel() const { return std::size_t(batch) * std::size_t(plane); }
};

// The block's total of `value` (blockDim = kThreads), returned to every thread.
__device__ double blockSum(double value, double* shared)
{
    shared[threadIdx.x] = value;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
        if (int(threadIdx.x) < half)
            shared[threadIdx.x] += shared[threadIdx.x + half];
        __syncthreads();
    }
    const double total = shared[0];
    __syncthreads(); // `shared` is reused right after
    return total;
}

enum class Sums { Plain, Moments, Deltas };

// Block (channel, chunk) writes its chunk's two sums to partials[(c·chunks + chunk)·2 + {0, 1}]:
// Plain Σx; Moments Σ(x − x₀) and Σ(x − x₀)² about the channel's first value x₀; Deltas Σd and Σd·x̂.
template <Sums kind>
__global__ void partialSumsKernel(const float* x, const float* normalized, ChannelLayout layout, int chunks,
                                  double* partials)
{
    __shared__ double shared[kThreads];
    const int c = int(blockIdx.x), chunk = int(blockIdx.y); // channels in x: up to 2³¹ − 1 of them
    const std::size_t n = layout.perChannel();
    const std::size_t length = (n + std::size_t(chunks) - 1) / std::size_t(chunks);
    const std::size_t begin = std::size_t(chunk) * length;
    const std::size_t end = begin + length < n ? begin + length : n;
    const float shift = kind == Sums::Moments ? x[layout.at(0, c)] : 0.0f;
    double first = 0, second = 0;
    for (std::size_t k = begin + threadIdx.x; k < end; k += kThreads) {
        const std::size_t at = layout.at(k, c);
        if (kind == Sums::Moments) {
            const double d = double(x[at] - shift);
            first += d;
            second += d * d;
        } else if (kind == Sums::Deltas) {
            first += x[at];
            second += double(x[at]) * normalized[at];
        } else {
            first += x[at];
        }
    }
    first = blockSum(first, shared);
    second = blockSum(second, shared);
    if (threadIdx.x == 0) {
        double* out = partials + (std::size_t(c) * std::size_t(chunks) + std::size_t(chunk)) * 2;
        out[0] = first;
        out[1] = second;
    }
}

__device__ void addPartials(const double* partials, int c, int chunks, double& first, double& second)
{
    first = second = 0;
    for (int k = 0; k < chunks; ++k) {
        first += partials[(std::size_t(c) * std::size_t(chunks) + std::size_t(k)) * 2];
        second += partials[(std::size_t(c) * std::size_t(chunks) + std::size_t(k)) * 2 + 1];
    }
}

__global__ void finishSumsKernel(const double* partials, int channels, int chunks, float* gradient)
{
    const int c = int(blockIdx.x) * int(blockDim.x) + int(threadIdx.x);
    if (c >= channels)
        return;
    double sum = 0, unused = 0;
    addPartials(partials, c, chunks, sum, unused);
    gradient[c] += float(sum);
}

// One thread per channel: batchNormTrainingForward's statistics, then the mean and 1/sqrt(var + eps)
// for the element-wise pass.
__global__ void finishMomentsKernel(const double* partials, const float* x, ChannelLayout layout, int chunks,
                                    float* mean, float* variance, float* rollingMean, float* rollingVariance,
                                    double* stats)
{
    const int c = int(blockIdx.x) * int(blockDim.x) + int(threadIdx.x);
    if (c >= layout.channels)
        return;
    double sum = 0, squares = 0;
    addPartials(partials, c, chunks, sum, squares);
    const double n = double(layout.perChannel());
    const float shift = x[layout.at(0, c)];
    const double shiftedMean = sum / n;
    const float m = float(double(shift) + shiftedMean);
    const double centred = fmax(0.0, squares - n * shiftedMean * shiftedMean); // Σ(x − m)²
    const float v = float(centred / n);
    mean[c] = m;
    variance[c] = v;
    rollingMean[c] = 0.99f * rollingMean[c] + 0.01f * m;
    rollingVariance[c] = 0.99f * rollingVariance[c] + 0.01f * float(centred / (n > 1 ? n - 1 : 1));
    stats[std::size_t(c) * kStatsPerChannel] = m;
    stats[std::size_t(c) * kStatsPerChannel + 1] = 1.0f / sqrtf(v + kBatchNormEpsilon);
}

// x̂ = (x − m)·inverse saved; x = f(scale·x̂ + bias).
__global__ void normalizeKernel(float* x, float* savedNormalized, std::size_t total, int channels, int plane,
                                const double* stats, const float* scales, const float* biases,
                                Activation fused)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= total)
        return;
    const int c = int(i / std::size_t(plane) % std::size_t(channels));
    const float m = float(stats[std::size_t(c) * kStatsPerChannel]);
    const float inverse = float(stats[std::size_t(c) * kStatsPerChannel + 1]);
    const float normalized = (x[i] - m) * inverse;
    savedNormalized[i] = normalized;
    x[i] = activationFormula(normalized * scales[c] + biases[c], fused);
}

// One thread per channel: the scale and bias gradients, and batchNormBackward's per-channel terms.
__global__ void finishDeltasKernel(const double* partials, ChannelLayout layout, int chunks,
                                   const float* variance, const float* scales, float* scaleGradient,
                                   float* biasGradient, double* stats)
{
    const int c = int(blockIdx.x) * int(blockDim.x) + int(threadIdx.x);
    if (c >= layout.channels)
        return;
    double deltaSum = 0, deltaNormalized = 0;
    addPartials(partials, c, chunks, deltaSum, deltaNormalized);
    if (biasGradient) {
        biasGradient[c] += float(deltaSum);
        scaleGradient[c] += float(deltaNormalized);
    }
    // With g = scale·delta (the gradient at x̂): dx = (g − mean(g) − x̂·mean(g·x̂)) / sqrt(var + eps).
    const float n = float(layout.batch) * float(layout.plane);
    const float inverse = 1.0f / sqrtf(variance[c] + kBatchNormEpsilon);
    double* s = stats + std::size_t(c) * kStatsPerChannel;
    s[0] = scales[c] * inverse;                    // k
    s[1] = inverse;                                //
    s[2] = float(deltaSum) * scales[c] / n;        // mean(g)
    s[3] = float(deltaNormalized) * scales[c] / n; // mean(g·x̂)
}

__global__ void normalizedDeltaKernel(float* delta, const float* savedNormalized, std::size_t total,
                                      int channels, int plane, const double* stats)
{
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= total)
        return;
    const double* s = stats + std::size_t(i / std::size_t(plane) % std::size_t(channels)) * kStatsPerChannel;
    const float k = float(s[0]), inverse = float(s[1]), meanG = float(s[2]), meanGX = float(s[3]);
    delta[i] = k * delta[i] - inverse * (meanG + savedNormalized[i] * meanGX);
}

unsigned channelBlocks(int channels)
{
    return unsigned((channels + kThreads - 1) / kThreads);
}

// The first pass of every reduction here: the partial sums, and where the per-channel terms go after.
template <Sums kind>
double* partialSums(const float* x, const float* normalized, const ChannelLayout& layout, int chunks,
                    double* scratch, cudaStream_t stream, const char* what)
{
    partialSumsKernel<kind><<<dim3(unsigned(layout.channels), unsigned(chunks)), kThreads, 0, stream>>>(
        x, normalized, layout, chunks, scratch);
    launched(what);
    return scratch + std::size_t(layout.channels) * std::size_t(chunks) * 2;
}

} // namespace

std::size_t channelScratchDoubles(int channels, int batch, int plane)
{
    return std::size_t(channels) * (std::size_t(chunksFor(batch, plane)) * 2 + kStatsPerChannel);
}

void addChannelSums(const float* delta, int batch, int channels, int plane, float* gradient, double* scratch,
                    cudaStream_t stream)
{
    if (channels <= 0 || batch <= 0 || plane <= 0)
        return;
    const int chunks = chunksFor(batch, plane);
    partialSums<Sums::Plain>(delta, nullptr, {batch, channels, plane}, chunks, scratch, stream,
                             "the bias-gradient kernel");
    finishSumsKernel<<<channelBlocks(channels), kThreads, 0, stream>>>(scratch, channels, chunks, gradient);
    launched("the bias-gradient kernel");
}

void batchNormTrainingForward(float* x, int batch, int channels, int plane, const float* scales,
                              const float* biases, float* mean, float* variance, float* rollingMean,
                              float* rollingVariance, float* savedNormalized, Activation fused,
                              double* scratch, cudaStream_t stream)
{
    if (channels <= 0 || batch <= 0 || plane <= 0)
        return;
    const int chunks = chunksFor(batch, plane);
    const ChannelLayout layout{batch, channels, plane};
    double* stats = partialSums<Sums::Moments>(x, nullptr, layout, chunks, scratch, stream,
                                               "the batch-norm statistics kernel");
    finishMomentsKernel<<<channelBlocks(channels), kThreads, 0, stream>>>(
        scratch, x, layout, chunks, mean, variance, rollingMean, rollingVariance, stats);
    launched("the batch-norm statistics kernel");
    const std::size_t total = std::size_t(batch) * std::size_t(channels) * std::size_t(plane);
    normalizeKernel<<<blocksFor(total), kThreads, 0, stream>>>(x, savedNormalized, total, channels, plane,
                                                               stats, scales, biases, fused);
    launched("the batch-norm kernel");
}

void batchNormBackward(float* delta, const float* savedNormalized, const float* variance, const float* scales,
                       int batch, int channels, int plane, float* scaleGradient, float* biasGradient,
                       double* scratch, cudaStream_t stream)
{
    if (channels <= 0 || batch <= 0 || plane <= 0)
        return;
    const int chunks = chunksFor(batch, plane);
    const ChannelLayout layout{batch, channels, plane};
    double* stats = partialSums<Sums::Deltas>(delta, savedNormalized, layout, chunks, scratch, stream,
                                              "the batch-norm backward kernel");
    finishDeltasKernel<<<channelBlocks(channels), kThreads, 0, stream>>>(
        scratch, layout, chunks, variance, scales, scaleGradient, biasGradient, stats);
    launched("the batch-norm backward kernel");
    const std::size_t total = std::size_t(batch) * std::size_t(channels) * std::size_t(plane);
    normalizedDeltaKernel<<<blocksFor(total), kThreads, 0, stream>>>(delta, savedNormalized, total, channels,
                                                                     plane, stats);
    launched("the batch-norm backward kernel");
}

} // namespace nw::cuda
