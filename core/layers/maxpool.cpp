#include "layers/maxpool.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/clones.h"
#include "kernels/cpu/lanes.h"
#include "kernels/cuda/maxpool_window.h"
#include "runtime/layer_runtime.h"
#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <cstring>
#include <vector>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/inference_kernels.h"
#include "kernels/cuda/training_kernels.h"
#endif

namespace nw {

std::unique_ptr<LayerConfig> MaxpoolLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<MaxpoolLayer>();
    const int stride = r.getInt("stride", 1);
    l->strideX = r.getInt("stride_x", stride);
    l->strideY = r.getInt("stride_y", stride);
    l->size = r.getInt("size", stride);
    l->padding = r.getInt("padding", l->size - 1);
    l->depth = r.getFlag("maxpool_depth", false);
    l->outChannels = r.getInt("out_channels", 1);
    r.warnUnimplemented({"antialiasing", "maxpool_zero_nonmax"},
                        "this maxpool computes without it, so its outputs differ from AlexeyAB's Darknet");
    // (the key written is named: stride_x / stride_y, or stride for both)
    const std::string_view xKey = r.writtenKey("stride_x", "stride"),
                           yKey = r.writtenKey("stride_y", "stride");
    bool positive = r.requirePositive({{"size", l->size}, {xKey, l->strideX}});
    if (yKey != xKey)
        positive = r.requirePositive({{yKey, l->strideY}}) && positive;
    // A window wholly in the padding has no maximum: its −3.4e38 made the layers after it NaN, blamed on
    // the weights.
    if (positive && !l->depth && (l->padding < 0 || l->padding > 2LL * l->size - 2))
        r.error("padding", "padding=" + std::to_string(l->padding) + " with size=" + std::to_string(l->size) +
                               " puts whole windows outside the image: from 0 to 2·size − 2 = " +
                               std::to_string(2LL * l->size - 2) + " (leave it out for size − 1)");
    if (l->depth && l->outChannels < 1)
        r.error("out_channels", "out_channels must be at least 1");
    return l;
}

LayerResult MaxpoolLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (size < 1 || strideX < 1 || strideY < 1 || !ctx.requireImage("maxpool"))
        return result;
    const Shape& in = ctx.input();
    if (depth) {
        result.output = Shape::image(in.w, in.h, outChannels);
        result.costs.bflops = double(in.c) * in.h * in.w / 1e9;
        return result;
    }
    const std::int64_t outW = windowOutput(in.w, padding, size, strideX);
    const std::int64_t outH = windowOutput(in.h, padding, size, strideY);
    if (!sideFits(ctx, outW, "padding") || !sideFits(ctx, outH, "padding"))
        return result;
    if (outW <= 0 || outH <= 0) {
        ctx.error("output would be " + std::to_string(outW) + "x" + std::to_string(outH) + ": the " +
                      in.text() + " input is smaller than the " + std::to_string(size) + "x" +
                      std::to_string(size) + " window",
                  "size");
        return result;
    }
    result.output = Shape::image(int(outW), int(outH), in.c);
    result.costs.bflops = double(size) * size * in.c * outH * outW / 1e9;
    return result;
}

namespace {

// The common 2×2/2 max-pool over even sizes: every window lies inside the image.
NW_KERNEL_CLONES
void maxpool2x2(const float* in, float* out, int planes, int w, int h)
{
#pragma omp parallel for
    for (int p = 0; p < planes; ++p) {
        const float* src = in + std::size_t(p) * std::size_t(w) * std::size_t(h);
        float* dst = out + std::size_t(p) * std::size_t(w / 2) * std::size_t(h / 2);
        for (int y = 0; y < h / 2; ++y) {
            const float* top = src + std::size_t(2 * y) * std::size_t(w);
            const float* bottom = top + w;
            for (int x = 0; x < w / 2; ++x)
                dst[y * (w / 2) + x] = std::max(std::max(top[2 * x], top[2 * x + 1]),
                                                std::max(bottom[2 * x], bottom[2 * x + 1]));
        }
    }
}

// Stride 1, any window (YOLOv4's SPP block: 5, 9 and 13 on 19×19×512): the maximum over a size×size
// window is the maximum over its rows of each row's maximum, so 2·size comparisons per output instead
// of size² (13×13: 26 instead of 169). `offset` is the window's first column/row relative to the
// output position (−padding/2); positions outside the image do not count.
NW_KERNEL_CLONES
void maxpoolSeparable(const float* in, float* out, int planes, int w, int h, int outW, int outH, int size,
                      int offset)
{
#pragma omp parallel
    {
        thread_local std::vector<float> rows; // each row's maxima; grows once per thread
        rows.resize(std::size_t(h) * std::size_t(outW));
#pragma omp for
        for (int p = 0; p < planes; ++p) {
            const float* src = in + std::size_t(p) * std::size_t(w) * std::size_t(h);
            float* dst = out + std::size_t(p) * std::size_t(outW) * std::size_t(outH);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < outW; ++x) {
                    const int first = std::max(0, x + offset), last = std::min(w, x + offset + size);
                    float best = -FLT_MAX;
                    for (int ix = first; ix < last; ++ix)
                        best = std::max(best, src[std::size_t(y) * std::size_t(w) + std::size_t(ix)]);
                    rows[std::size_t(y) * std::size_t(outW) + std::size_t(x)] = best;
                }
            for (int y = 0; y < outH; ++y) {
                float* line = dst + std::size_t(y) * std::size_t(outW);
                std::fill(line, line + outW, -FLT_MAX);
                const int first = std::max(0, y + offset), last = std::min(h, y + offset + size);
                for (int iy = first; iy < last; ++iy) {
                    const float* row = rows.data() + std::size_t(iy) * std::size_t(outW);
                    for (int x = 0; x < outW; ++x)
                        line[x] = std::max(line[x], row[x]);
                }
            }
        }
    }
}

// The same, remembering which corner of each window won (0 top left, 1 top right, 2 bottom left, 3
// bottom right; the first of equal values, as the general rule) for the backward pass: a byte per output
// instead of an 8-byte index, sixteen windows at a time (GCC leaves the plain loop scalar).
using LaneBytes = std::uint8_t __attribute__((vector_size(kLanes)));

NW_LANES_INLINE void evenAndOdd(const float* p, LaneVector& even, LaneVector& odd)
{
    LaneVector first, second;
    loadLanes(first, p);
    loadLanes(second, p + kLanes);
    even = __builtin_shufflevector(first, second, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    odd = __builtin_shufflevector(first, second, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
}

// The window rule on one output: `value` and `won` so far, the next corner's input.
template <typename Value, typename Corner>
NW_LANES_INLINE void challenge(Value& value, Corner& won, const Value& candidate, int corner)
{
    const auto higher = candidate > value;
    value = higher ? candidate : value;
    won = higher ? corner : won;
}

NW_KERNEL_CLONES
void maxpool2x2Recording(const float* in, float* out, std::uint8_t* corners, int planes, int w, int h)
{
    const int outW = w / 2;
#pragma omp parallel for
    for (int p = 0; p < planes; ++p)
        for (int y = 0; y < h / 2; ++y) {
            const float* top = in + (std::size_t(p) * std::size_t(h) + std::size_t(2 * y)) * std::size_t(w);
            const float* bottom = top + w;
            const std::size_t first =
                (std::size_t(p) * std::size_t(h / 2) + std::size_t(y)) * std::size_t(outW);
            int x = 0;
            for (; x + kLanes <= outW; x += kLanes) {
                LaneVector value, topRight, bottomLeft, bottomRight;
                evenAndOdd(top + 2 * x, value, topRight);
                evenAndOdd(bottom + 2 * x, bottomLeft, bottomRight);
                LaneIntegers won = {};
                challenge(value, won, topRight, 1);
                challenge(value, won, bottomLeft, 2);
                challenge(value, won, bottomRight, 3);
                storeLanes(out + first + std::size_t(x), value);
                const LaneBytes bytes = __builtin_convertvector(won, LaneBytes);
                std::memcpy(corners + first + std::size_t(x), &bytes, sizeof bytes);
            }
            for (; x < outW; ++x) {
                float value = top[2 * x];
                int won = 0;
                challenge(value, won, top[2 * x + 1], 1);
                challenge(value, won, bottom[2 * x], 2);
                challenge(value, won, bottom[2 * x + 1], 3);
                out[first + std::size_t(x)] = value;
                corners[first + std::size_t(x)] = std::uint8_t(won);
            }
        }
}

// Each output's delta added to the corner that won its window: sixteen windows at a time by adding 0 to
// the other three corners, so the inputs are written in order (no scattered stores); planes never
// collide.
NW_KERNEL_CLONES
void maxpool2x2Backward(const float* delta, const std::uint8_t* corners, float* inputDelta, int planes, int w,
                        int h)
{
    const int outW = w / 2;
    const auto addInterleaved = [](float* p, const LaneVector& even, const LaneVector& odd) {
        LaneVector first, second;
        loadLanes(first, p);
        loadLanes(second, p + kLanes);
        first += __builtin_shufflevector(even, odd, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        second +=
            __builtin_shufflevector(even, odd, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
        storeLanes(p, first);
        storeLanes(p + kLanes, second);
    };
#pragma omp parallel for
    for (int p = 0; p < planes; ++p)
        for (int y = 0; y < h / 2; ++y) {
            float* top = inputDelta + (std::size_t(p) * std::size_t(h) + std::size_t(2 * y)) * std::size_t(w);
            float* bottom = top + w;
            const std::size_t first =
                (std::size_t(p) * std::size_t(h / 2) + std::size_t(y)) * std::size_t(outW);
            int x = 0;
            for (; x + kLanes <= outW; x += kLanes) {
                LaneVector d;
                loadLanes(d, delta + first + std::size_t(x));
                LaneBytes bytes;
                std::memcpy(&bytes, corners + first + std::size_t(x), sizeof bytes);
                const LaneIntegers won = __builtin_convertvector(bytes, LaneIntegers);
                const LaneVector zero = {};
                addInterleaved(top + 2 * x, won == 0 ? d : zero, won == 1 ? d : zero);
                addInterleaved(bottom + 2 * x, won == 2 ? d : zero, won == 3 ? d : zero);
            }
            for (; x < outW; ++x) { // (one by one, only the winner)
                const int won = corners[first + std::size_t(x)];
                // (the row by arithmetic: a branch on the winner would be mispredicted half the time)
                top[std::size_t(2 * x + (won & 1)) + std::size_t(won >> 1) * std::size_t(w)] +=
                    delta[first + std::size_t(x)];
            }
        }
}

class MaxpoolRuntime final : public RuntimeLayer {
public:
    MaxpoolRuntime(const MaxpoolLayer& config, const Shape& in, const Shape& out)
        : config_(config), in_(in), out_(out)
    {
    }

    bool canTrain() const override { return true; }

#if NETWRIGHT_WITH_CUDA
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        const std::size_t n = args.outputItemSize * std::size_t(args.batch);
        if (config_.depth) { // the winners recorded while training, for the backward pass
            if (args.training)
                gpuIndexes_.resize(2 * n); // 64-bit indexes
            cuda::maxpoolDepth(args.input, args.output,
                               args.training ? gpuIndexes_.as<std::int64_t>() : nullptr, n,
                               std::size_t(in_.w) * std::size_t(in_.h), in_.c, out_.c, args.gpu.stream());
            return;
        }
        if (args.training) {           // the winners, for the backward pass
            gpuIndexes_.resize(2 * n); // 64-bit indexes
            cuda::maxpoolRecordingIndexes(args.input, args.output, gpuIndexes_.as<std::int64_t>(),
                                          args.batch * in_.c, in_.w, in_.h, out_.w, out_.h, config_.size,
                                          config_.strideX, config_.strideY, -config_.padding / 2,
                                          args.gpu.stream());
            return;
        }
        cuda::maxpool(args.input, args.output, args.batch * in_.c, in_.w, in_.h, out_.w, out_.h, config_.size,
                      config_.strideX, config_.strideY, -config_.padding / 2, args.gpu.stream());
    }
    bool hasGpuBackward(std::span<const Shape> sources) const override
    {
        return hasGpuForward(sources);
    }
    void backwardGpu(GpuBackwardArgs& args) override
    {
        if (args.inputDelta)
            cuda::maxpoolBackward(args.outputDelta, gpuIndexes_.as<std::int64_t>(),
                                  args.outputItemSize * std::size_t(args.batch), args.inputDelta,
                                  args.gpu.stream());
    }
    std::size_t gpuWinnersDiffering(GpuExec& gpu) override
    {
        const std::size_t n = gpuIndexes_.size() / 2; // 64-bit indexes
        const std::size_t cpu = evenHalving() ? corners_.size() : indexes_.size();
        if (n == 0 || n != cpu)
            return 0; // not both trained at the same batch
        std::vector<std::int64_t> winners(n);
        gpuIndexes_.download(std::span<float>(reinterpret_cast<float*>(winners.data()), 2 * n), gpu.stream());
        gpu.synchronize();
        std::size_t differing = 0;
        for (std::size_t i = 0; i < n; ++i)
            differing += winners[i] != cpuWinner(i);
        return differing;
    }
#endif

    void backward(BackwardArgs& args) override
    {
        if (!args.inputDelta)
            return;
        const float* delta = args.outputDelta.data();
        float* inputDelta = args.inputDelta->data();
        if (config_.depth) { // winners in other channels: one thread
            for (std::size_t i = 0; i < indexes_.size(); ++i)
                if (indexes_[i] >= 0)
                    inputDelta[indexes_[i]] += delta[i];
            return;
        }
        if (evenHalving()) {
            maxpool2x2Backward(delta, corners_.data(), inputDelta, args.outputDelta.batch() * in_.c, in_.w,
                               in_.h);
            return;
        }
        // Every winner lies in its output's own plane, so threads taking whole planes never collide.
        const long planes = long(args.outputDelta.batch()) * out_.c;
        const long plane = long(out_.w) * out_.h;
#pragma omp parallel for
        for (long p = 0; p < planes; ++p)
            for (long i = p * plane; i < (p + 1) * plane; ++i)
                if (indexes_[std::size_t(i)] >= 0)
                    inputDelta[indexes_[std::size_t(i)]] += delta[i];
    }

    void forward(ForwardArgs& args) override
    {
        const int batch = args.output.batch();
        if (args.context.training && !config_.depth) {
            forwardRecordingIndexes(args);
            return;
        }
        if (config_.depth) { // AB maxpool_depth: max over channels k ≡ g (mod out_c)
            const std::size_t plane = std::size_t(in_.w) * std::size_t(in_.h);
            if (args.context.training)
                indexes_.assign(args.output.size(), -1);
            for (std::size_t o = 0; o < args.output.size(); ++o) {
                const cuda::MaxpoolWinner winner =
                    cuda::maxpoolDepth(args.input.data(), o, plane, in_.c, out_.c);
                args.output.data()[o] = winner.value;
                if (args.context.training) // the backward pass routes the delta to the winner
                    indexes_[o] = long(winner.index);
            }
            return;
        }
        if (evenHalving()) {
            maxpool2x2(args.input.data(), args.output.data(), batch * in_.c, in_.w, in_.h);
            return;
        }
        if (config_.strideX == 1 && config_.strideY == 1 && config_.size > 1) {
            maxpoolSeparable(args.input.data(), args.output.data(), batch * in_.c, in_.w, in_.h, out_.w,
                             out_.h, config_.size, -config_.padding / 2);
            return;
        }
        forwardWindows(args, false);
    }

private:
    // Any window (size, stride, padding): Darknet's rule as the GPU kernels have it (maxpool_window.h),
    // the window clipped to the image; `recordWinners` keeps which input won each output for backward.
    void forwardWindows(ForwardArgs& args, bool recordWinners)
    {
        if (recordWinners)
            indexes_.resize(args.output.size()); // every entry written
        const long outputs = long(args.output.size());
        const int offset = -config_.padding / 2; // window origin x·stride − padding/2
#pragma omp parallel for
        for (long o = 0; o < outputs; ++o) {
            const cuda::MaxpoolWinner winner =
                cuda::maxpoolWindow(args.input.data(), std::size_t(o), in_.w, in_.h, out_.w, out_.h,
                                    config_.size, config_.strideX, config_.strideY, offset);
            args.output.data()[o] = winner.value;
            if (recordWinners)
                indexes_[std::size_t(o)] = long(winner.index);
        }
    }

    // Training: the same window rule, remembering which input won each output for the backward pass.
    void forwardRecordingIndexes(ForwardArgs& args)
    {
        if (evenHalving()) {
            corners_.resize(args.output.size()); // every entry written
            maxpool2x2Recording(args.input.data(), args.output.data(), corners_.data(),
                                args.output.batch() * in_.c, in_.w, in_.h);
            return;
        }
        forwardWindows(args, true);
    }

#if NETWRIGHT_WITH_CUDA
    // The input index that won output i in the last CPU training pass (for gpuWinnersDiffering).
    std::int64_t cpuWinner(std::size_t i) const
    {
        if (!evenHalving())
            return indexes_[i];
        const std::size_t outW = std::size_t(out_.w), outH = std::size_t(out_.h), w = std::size_t(in_.w);
        const std::size_t plane = i / (outW * outH), y = i / outW % outH, x = i % outW;
        const unsigned won = corners_[i]; // bit 0: right, bit 1: lower (maxpool2x2Backward's rule)
        return std::int64_t(plane * w * std::size_t(in_.h) + (2 * y + (won >> 1)) * w + 2 * x + (won & 1));
    }
#endif

    // The common 2×2/2 max-pool over even sizes: every window lies inside the image.
    bool evenHalving() const
    {
        return !config_.depth && config_.size == 2 && config_.strideX == 2 && config_.strideY == 2 &&
               config_.padding == 1 && in_.w % 2 == 0 && in_.h % 2 == 0;
    }

    const MaxpoolLayer config_;
    Shape in_, out_;
    std::vector<long> indexes_;         // the winner of each output (training)
    std::vector<std::uint8_t> corners_; // or, for evenHalving(), which corner of its window won
#if NETWRIGHT_WITH_CUDA
    DeviceBuffer gpuIndexes_; // the winners of the last GPU training pass
#endif
};

} // namespace

std::unique_ptr<RuntimeLayer> MaxpoolLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<MaxpoolRuntime>(*this, spec.input, spec.output);
}

} // namespace nw
