#include "layers/reorg.h"

#include "graph/layer_spec.h"
#include "runtime/layer_runtime.h"
#include <algorithm>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/inference_kernels.h"
#include "kernels/cuda/training_kernels.h"
#endif

namespace nw {

std::unique_ptr<LayerConfig> ReorgLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<ReorgLayer>();
    l->stride = r.getInt("stride", 1);
    l->reverse = r.getFlag("reverse", false);
    l->flatten = r.getFlag("flatten", false);
    l->extra = r.getInt("extra", 0);
    if (l->stride < 1)
        r.error("stride", "stride must be at least 1");
    if (l->extra < 0)
        r.error("extra", "extra must not be negative (found " + std::to_string(l->extra) + ")");
    return l;
}

Shape spaceToDepthShape(LayerContext& ctx, int stride, bool reverse)
{
    const Shape& in = ctx.input();
    const std::int64_t area = std::int64_t(stride) * stride; // in 64 bits: stride=65536 must not wrap to 0
    if (reverse) {
        if (in.c % area != 0) {
            ctx.error("reverse reorg needs channels (" + std::to_string(in.c) +
                          ") divisible by stride² = " + std::to_string(area),
                      "stride");
            return {};
        }
        const std::int64_t w = std::int64_t(in.w) * stride, h = std::int64_t(in.h) * stride;
        if (!sideFits(ctx, w, "stride") || !sideFits(ctx, h, "stride"))
            return {};
        return Shape::image(int(w), int(h), int(in.c / area));
    }
    if (in.w % stride != 0 || in.h % stride != 0) {
        ctx.error("the " + in.text() + " input is not a multiple of stride " + std::to_string(stride),
                  "stride");
        return {};
    }
    const std::int64_t channels = in.c * area;
    if (!sideFits(ctx, channels, "stride"))
        return {};
    return Shape::image(in.w / stride, in.h / stride, int(channels));
}

LayerResult ReorgLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (stride < 1 || !ctx.requireImage("reorg"))
        return result;
    if (extra != 0) { // pjreddie: `extra` values are appended and the output becomes flat
        result.output = Shape::flat(ctx.input().size + extra);
        return result;
    }
    // Darknet's reorg order deals the input's channels into stride² groups: it needs them divisible
    // (fewer channels than stride² divided by zero; others dropped or doubled values).
    const std::int64_t area = std::int64_t(stride) * stride;
    if (!reverse && !flatten && ctx.input().c % area != 0) {
        ctx.error("reorg needs channels (" + std::to_string(ctx.input().c) + ") divisible by stride² = " +
                      std::to_string(area) + " (Darknet's reorg order deals them into stride² groups)",
                  "stride");
        return result;
    }
    result.output = spaceToDepthShape(ctx, stride, reverse);
    return result;
}

namespace {

class ReorgRuntime final : public RuntimeLayer {
public:
    ReorgRuntime(const ReorgLayer& config, const Shape& in) : config_(config), in_(in) {}
    void forward(ForwardArgs& args) override
    {
        std::fill(args.output.data(), args.output.data() + args.output.size(), 0.0f);
        for (int b = 0; b < args.output.batch(); ++b) {
            const float* in = args.input.item(b);
            float* out = args.output.item(b);
            forEachPair([&](std::size_t from, std::size_t to) { out[to] = in[from]; });
        }
    }

    bool canTrain() const override { return true; }

#if NETWRIGHT_WITH_CUDA
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        cuda::reorg(args.input, args.output, args.batch, args.inputItemSize, args.outputItemSize, map(),
                    args.gpu.stream());
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    void backwardGpu(GpuBackwardArgs& args) override
    {
        if (args.inputDelta)
            cuda::reorgBackward(args.outputDelta, args.inputDelta, args.batch, args.inputItemSize,
                                args.outputItemSize, map(), args.gpu.stream());
    }
    cuda::ReorgMap map() const
    {
        return {in_.w, in_.h, in_.c, config_.stride, config_.extra != 0, config_.flatten, config_.reverse};
    }
#endif

    // A permutation (or a copy): each input value gets the delta of the output it went to.
    void backward(BackwardArgs& args) override
    {
        if (!args.inputDelta)
            return;
        for (int b = 0; b < args.output.batch(); ++b) {
            const float* delta = args.outputDelta.item(b);
            float* in = args.inputDelta->item(b);
            forEachPair([&](std::size_t from, std::size_t to) { in[from] += delta[to]; });
        }
    }

private:
    // Calls visit(input index, output index) for every value the layer moves, per batch item.
    template <typename Visit> void forEachPair(Visit visit) const
    {
        const std::size_t inputs = std::size_t(in_.w) * std::size_t(in_.h) * std::size_t(in_.c);
        if (config_.extra != 0) { // the input, then `extra` zeros
            for (std::size_t i = 0; i < inputs; ++i)
                visit(i, i);
            return;
        }
        if (config_.flatten) { // CHW ↔ HWC
            const std::size_t plane = std::size_t(in_.w) * std::size_t(in_.h), channels = std::size_t(in_.c);
            for (std::size_t c = 0; c < channels; ++c)
                for (std::size_t i = 0; i < plane; ++i) {
                    const std::size_t chw = c * plane + i, hwc = i * channels + c;
                    config_.reverse ? visit(hwc, chw) : visit(chw, hwc);
                }
            return;
        }
        // Darknet's reorg_cpu with the input's dims, in its own (quirky) index order.
        const int s = config_.stride, w = in_.w, h = in_.h, c = in_.c;
        const int outC = c / (s * s);
        for (int k = 0; k < c; ++k)
            for (int j = 0; j < h; ++j)
                for (int i = 0; i < w; ++i) {
                    const std::size_t plain = std::size_t(i + w * (j + h * k));
                    const int c2 = k % outC, offset = k / outC;
                    const int w2 = i * s + offset % s, h2 = j * s + offset / s;
                    const std::size_t moved = std::size_t(w2 + w * s * (h2 + h * s * c2));
                    config_.reverse ? visit(plain, moved) : visit(moved, plain);
                }
    }

    const ReorgLayer config_;
    Shape in_;
};

} // namespace

std::unique_ptr<RuntimeLayer> reorgRuntime(const ReorgLayer& config, const Shape& dims)
{
    return std::make_unique<ReorgRuntime>(config, dims);
}

std::unique_ptr<RuntimeLayer> ReorgLayer::createRuntime(const LayerSpec& spec) const
{
    return reorgRuntime(*this, spec.input);
}

} // namespace nw
