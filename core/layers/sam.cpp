#include "layers/sam.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/activations.h"
#include "runtime/layer_runtime.h"

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/gpu_activation.h"
#include "kernels/cuda/training_kernels.h"
#endif

namespace nw {

std::unique_ptr<LayerConfig> SamLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<SamLayer>();
    if (!r.has("from"))
        r.error("from", "[sam] needs from= (the layer to multiply with)");
    l->from = r.getInt("from", 0);
    l->activation = readActivation(r, "linear");
    return l;
}

LayerResult SamLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    const auto index = ctx.resolve(from, "from");
    if (!index)
        return result;
    result.sources.push_back(*index); // a broken source then marks this output unknown too
    if (!ctx.isValid(*index) || !ctx.inputKnown())
        return result; // whatever is broken has said so
    const Shape& target = ctx.outputOf(*index);
    if (!target.isImage() || ctx.input() != target) {
        ctx.error("[sam] multiplies two outputs of the same shape, but the previous layer is " +
                      ctx.input().text() + " and layer " + std::to_string(*index) + " is " + target.text(),
                  "from");
        return result;
    }
    result.output = target;
    result.costs.bflops = double(target.size) / 1e9;
    return result;
}

namespace {

class SamRuntime final : public RuntimeLayer {
public:
    explicit SamRuntime(Activation activation) : activation_(activation) {}
    void forward(ForwardArgs& args) override
    {
        const float* from = args.sources[0]->data();
        const float* prev = args.input.data();
        float* out = args.output.data();
        for (std::size_t i = 0; i < args.output.size(); ++i)
            out[i] = prev[i] * from[i];
        cache_.apply(out, args.output.size(), activation_, args.context.training);
    }

    bool canTrain() const override { return true; }

    // out = prev · from, element by element.
    void backward(BackwardArgs& args) override
    {
        float* delta = args.outputDelta.data();
        cache_.multiplyByGradient(args.output.data(), args.output.size(), activation_, delta);
        const float* from = args.sources[0]->data();
        const float* prev = args.input.data();
        for (std::size_t i = 0; i < args.output.size(); ++i) {
            if (args.inputDelta)
                args.inputDelta->data()[i] += delta[i] * from[i];
            if (args.sourceDeltas[0])
                args.sourceDeltas[0]->data()[i] += delta[i] * prev[i];
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
        cuda::multiply(args.input, args.sources[0], args.output, n, args.gpu.stream());
        gpuActivation_.forward(args.gpu, args.output, n, activation_, args.training != nullptr);
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    void backwardGpu(GpuBackwardArgs& args) override
    {
        const std::size_t n = args.outputItemSize * std::size_t(args.batch);
        gpuActivation_.backward(args.gpu, args.output, args.outputDelta, n, activation_);
        if (args.inputDelta)
            cuda::addProduct(args.outputDelta, args.sources[0], args.inputDelta, n, args.gpu.stream());
        if (args.sourceDeltas[0])
            cuda::addProduct(args.outputDelta, args.input, args.sourceDeltas[0], n, args.gpu.stream());
    }
    GpuActivation gpuActivation_;
#endif

private:
    ActivationCache cache_;
    Activation activation_;
};

} // namespace

std::unique_ptr<RuntimeLayer> SamLayer::createRuntime(const LayerSpec&) const
{
    return std::make_unique<SamRuntime>(activationFromName(activation));
}

} // namespace nw
