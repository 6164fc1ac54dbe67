#include "layers/activation.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/activations.h"
#include "runtime/layer_runtime.h"

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/gpu_activation.h"
#include "kernels/cuda/training_kernels.h"
#endif

#include <algorithm>

namespace nw {

std::unique_ptr<LayerConfig> ActivationLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<ActivationLayer>();
    l->activation = readActivation(r, "linear");
    return l;
}

LayerResult ActivationLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    result.output = ctx.input();
    return result;
}

namespace {

// Applies the activation to a copy of the input.
class ActivationRuntime final : public RuntimeLayer {
public:
    explicit ActivationRuntime(Activation activation) : activation_(activation) {}
    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
        cache_.apply(args.output.data(), args.output.size(), activation_, args.context.training);
    }

    bool canTrain() const override { return true; }

    void backward(BackwardArgs& args) override
    {
        cache_.multiplyByGradient(args.output.data(), args.output.size(), activation_,
                                  args.outputDelta.data());
        if (args.inputDelta)
            for (std::size_t i = 0; i < args.output.size(); ++i)
                args.inputDelta->data()[i] += args.outputDelta.data()[i];
    }

#if NETWRIGHT_WITH_CUDA
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        const std::size_t n = args.outputItemSize * std::size_t(args.batch);
        args.gpu.copyOnDevice(args.input, args.output, n, "[activation]");
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
            cuda::addScaled(args.outputDelta, args.inputDelta, n, 1.0f, args.gpu.stream());
    }
    GpuActivation gpuActivation_;
#endif

private:
    Activation activation_;
    ActivationCache cache_;
};

} // namespace

std::unique_ptr<RuntimeLayer> ActivationLayer::createRuntime(const LayerSpec&) const
{
    return std::make_unique<ActivationRuntime>(activationFromName(activation));
}

} // namespace nw
