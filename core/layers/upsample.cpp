#include "layers/upsample.h"

#include "graph/layer_spec.h"
#include "runtime/layer_runtime.h"
#include <algorithm>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/inference_kernels.h"
#include "kernels/cuda/training_kernels.h"
#endif

namespace nw {

std::unique_ptr<LayerConfig> UpsampleLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<UpsampleLayer>();
    l->stride = r.getInt("stride", 2);
    l->scale = r.getFloat("scale", 1);
    if (l->stride == 0)
        r.error("stride", "stride must not be 0 (use 2 to double the size, -2 to halve it)");
    return l;
}

LayerResult UpsampleLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (stride == 0 || !ctx.requireImage("upsample"))
        return result;
    const Shape& in = ctx.input();
    const std::int64_t outW = stride > 0 ? std::int64_t(in.w) * stride : in.w / -std::int64_t(stride);
    const std::int64_t outH = stride > 0 ? std::int64_t(in.h) * stride : in.h / -std::int64_t(stride);
    if (!sideFits(ctx, outW, "stride") || !sideFits(ctx, outH, "stride"))
        return result;
    if (outW <= 0 || outH <= 0) {
        ctx.error("downsampling " + in.text() + " by " + std::to_string(-std::int64_t(stride)) +
                      " leaves nothing",
                  "stride");
        return result;
    }
    result.output = Shape::image(int(outW), int(outH), in.c);
    return result;
}

namespace {

class UpsampleRuntime final : public RuntimeLayer {
public:
    UpsampleRuntime(int stride, float scale, const Shape& in, const Shape& out)
        : stride_(stride), scale_(scale), in_(in), out_(out)
    {
    }
    void forward(ForwardArgs& args) override
    {
        const int channels = args.output.batch() * in_.c;
        if (stride_ > 0) { // nearest neighbour: out[y][x] = scale·in[y/s][x/s]
#pragma omp parallel for
            for (int c = 0; c < channels; ++c) {
                const float* in =
                    args.input.data() + std::size_t(c) * std::size_t(in_.w) * std::size_t(in_.h);
                float* out = args.output.data() + std::size_t(c) * std::size_t(out_.w) * std::size_t(out_.h);
                for (int y = 0; y < out_.h; ++y)
                    for (int x = 0; x < out_.w; ++x)
                        out[y * out_.w + x] = scale_ * in[(y / stride_) * in_.w + x / stride_];
            }
            return;
        }
        const int s = -stride_; // downsample: each output sums its s×s block
        std::fill(args.output.data(), args.output.data() + args.output.size(), 0.0f);
        for (int c = 0; c < channels; ++c) {
            const float* in = args.input.data() + std::size_t(c) * std::size_t(in_.w) * std::size_t(in_.h);
            float* out = args.output.data() + std::size_t(c) * std::size_t(out_.w) * std::size_t(out_.h);
            for (int y = 0; y < out_.h * s; ++y)
                for (int x = 0; x < out_.w * s; ++x)
                    out[(y / s) * out_.w + x / s] += scale_ * in[y * in_.w + x];
        }
    }

    bool canTrain() const override
    {
        return true;
    }

#if NETWRIGHT_WITH_CUDA
    // Upsampling spreads each input over its block and downsampling sums each block, so one's backward
    // is the other's forward (added into the delta).
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        const int planes = args.batch * in_.c;
        if (stride_ > 0)
            cuda::blockSpread(args.input, planes, in_.w, in_.h, stride_, scale_, args.output, out_.w, out_.h,
                              false, args.gpu.stream());
        else
            cuda::blockSum(args.input, in_.w, in_.h, args.output, planes, out_.w, out_.h, -stride_, scale_,
                           false, args.gpu.stream());
    }
    bool hasGpuBackward(std::span<const Shape> sources) const override
    {
        return hasGpuForward(sources);
    }
    void backwardGpu(GpuBackwardArgs& args) override
    {
        if (!args.inputDelta)
            return;
        const int planes = args.batch * in_.c;
        if (stride_ > 0)
            cuda::blockSum(args.outputDelta, out_.w, out_.h, args.inputDelta, planes, in_.w, in_.h, stride_,
                           scale_, true, args.gpu.stream());
        else
            cuda::blockSpread(args.outputDelta, planes, out_.w, out_.h, -stride_, scale_, args.inputDelta,
                              in_.w, in_.h, true, args.gpu.stream());
    }
#endif

    void backward(BackwardArgs& args) override
    {
        if (!args.inputDelta)
            return;
        const int channels = args.output.batch() * in_.c;
        const int s = stride_ > 0 ? stride_ : -stride_;
        for (int c = 0; c < channels; ++c) {
            float* in = args.inputDelta->data() + std::size_t(c) * std::size_t(in_.w) * std::size_t(in_.h);
            const float* out =
                args.outputDelta.data() + std::size_t(c) * std::size_t(out_.w) * std::size_t(out_.h);
            if (stride_ > 0) {
                for (int y = 0; y < out_.h; ++y)
                    for (int x = 0; x < out_.w; ++x)
                        in[(y / s) * in_.w + x / s] += scale_ * out[y * out_.w + x];
            } else {
                for (int y = 0; y < out_.h * s; ++y)
                    for (int x = 0; x < out_.w * s; ++x)
                        in[y * in_.w + x] += scale_ * out[(y / s) * out_.w + x / s];
            }
        }
    }

private:
    int stride_;
    float scale_;
    Shape in_, out_;
};

} // namespace

std::unique_ptr<RuntimeLayer> UpsampleLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<UpsampleRuntime>(stride, scale, spec.input, spec.output);
}

} // namespace nw
