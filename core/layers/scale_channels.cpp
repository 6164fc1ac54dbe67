#include "layers/scale_channels.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/activations.h"
#include "kernels/cuda/index_maps.h"
#include "runtime/layer_runtime.h"

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/gpu_activation.h"
#include "kernels/cuda/training_kernels.h"
#endif

namespace nw {

std::unique_ptr<LayerConfig> ScaleChannelsLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<ScaleChannelsLayer>();
    if (!r.has("from"))
        r.error("from", "[scale_channels] needs from= (the layer to scale)");
    l->from = r.getInt("from", 0);
    l->scaleWh = r.getFlag("scale_wh", false);
    l->activation = readActivation(r, "linear");
    return l;
}

LayerResult ScaleChannelsLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    const auto index = ctx.resolve(from, "from");
    if (!index)
        return result;
    result.sources.push_back(*index); // a broken source then marks this output unknown too
    if (!ctx.isValid(*index) || !ctx.inputKnown())
        return result; // whatever is broken has said so
    const Shape& target = ctx.outputOf(*index);
    const Shape& scale = ctx.input();
    const bool fits = scaleWh ? (scale.w == target.w && scale.h == target.h && scale.c == 1)
                              : (scale.w == 1 && scale.h == 1 && scale.c == target.c);
    if (!target.isImage() || !fits) {
        ctx.error("the previous layer (" + scale.text() + ") cannot scale layer " + std::to_string(*index) +
                      " (" + target.text() + "): it must be " +
                      (scaleWh ? std::to_string(target.w) + "x" + std::to_string(target.h) + "×1"
                               : "1×1×" + std::to_string(target.c)),
                  "from");
        return result;
    }
    result.output = target;
    result.costs.bflops = double(target.size) / 1e9;
    return result;
}

namespace {

class ScaleChannelsRuntime final : public RuntimeLayer {
public:
    ScaleChannelsRuntime(const ScaleChannelsLayer& config, const Shape& out)
        : scaleWh_(config.scaleWh), out_(out), activation_(activationFromName(config.activation))
    {
    }
    void forward(ForwardArgs& args) override
    {
        const cuda::ScaleMap map = scaleMap();
        for (int b = 0; b < args.output.batch(); ++b) {
            const float* from = args.sources[0]->item(b);
            const float* scale = args.input.item(b);
            float* out = args.output.item(b);
            for (std::size_t i = 0; i < args.output.itemSize(); ++i)
                out[i] = from[i] * scale[cuda::scaleOf(i, map)];
        }
        cache_.apply(args.output.data(), args.output.size(), activation_, args.context.training);
    }

    bool canTrain() const override { return true; }

    // out = from · s: the source gets δ·s, each scale the sum of δ·from over what it scaled.
    void backward(BackwardArgs& args) override
    {
        cache_.multiplyByGradient(args.output.data(), args.output.size(), activation_,
                                  args.outputDelta.data());
        const cuda::ScaleMap map = scaleMap();
        for (int b = 0; b < args.output.batch(); ++b) {
            const float* from = args.sources[0]->item(b);
            const float* scale = args.input.item(b);
            const float* delta = args.outputDelta.item(b);
            float* fromDelta = args.sourceDeltas[0] ? args.sourceDeltas[0]->item(b) : nullptr;
            float* scaleDelta = args.inputDelta ? args.inputDelta->item(b) : nullptr;
            for (std::size_t i = 0; i < args.output.itemSize(); ++i) {
                const std::size_t s = cuda::scaleOf(i, map);
                if (fromDelta)
                    fromDelta[i] += delta[i] * scale[s];
                if (scaleDelta)
                    scaleDelta[s] += delta[i] * from[i];
            }
        }
    }

#if NETWRIGHT_WITH_CUDA
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        const std::size_t n = args.outputItemSize * std::size_t(args.batch);
        cuda::multiplyByScales(args.sources[0], args.input, args.output, args.batch, scaleMap(), false,
                               args.gpu.stream());
        gpuActivation_.forward(args.gpu, args.output, n, activation_, args.training != nullptr);
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    // As backward: the source gets δ·s, each scale the sum of δ·from over what it scaled.
    void backwardGpu(GpuBackwardArgs& args) override
    {
        const std::size_t n = args.outputItemSize * std::size_t(args.batch);
        gpuActivation_.backward(args.gpu, args.output, args.outputDelta, n, activation_);
        const cuda::ScaleMap map = scaleMap();
        if (args.sourceDeltas[0])
            cuda::multiplyByScales(args.outputDelta, args.input, args.sourceDeltas[0], args.batch, map, true,
                                   args.gpu.stream());
        if (args.inputDelta)
            cuda::addScaleSums(args.outputDelta, args.sources[0], args.inputDelta, args.batch, map,
                               args.gpu.stream());
    }
    GpuActivation gpuActivation_;
#endif

private:
    cuda::ScaleMap scaleMap() const
    {
        return {std::size_t(out_.w) * std::size_t(out_.h), std::size_t(out_.c), scaleWh_};
    }

    ActivationCache cache_;
    bool scaleWh_;
    Shape out_;
    Activation activation_;
};

} // namespace

std::unique_ptr<RuntimeLayer> ScaleChannelsLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<ScaleChannelsRuntime>(*this, spec.output);
}

} // namespace nw
