#include "layers/empty.h"

#include "graph/layer_spec.h"
#include "runtime/layer_runtime.h"

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/training_kernels.h"
#endif
#include <algorithm>

namespace nw {

std::unique_ptr<LayerConfig> EmptyLayer::parse(cfg::SectionReader&)
{
    return std::make_unique<EmptyLayer>();
}

LayerResult EmptyLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    result.output = ctx.input();
    return result;
}

namespace {

// Passes the input through.
class EmptyRuntime final : public RuntimeLayer {
public:
    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
    }

    bool canTrain() const override { return true; }

    void backward(BackwardArgs& args) override
    {
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
        args.gpu.copyOnDevice(args.input, args.output, args.outputItemSize * std::size_t(args.batch),
                              "[empty]");
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    void backwardGpu(GpuBackwardArgs& args) override
    {
        if (args.inputDelta)
            cuda::addScaled(args.outputDelta, args.inputDelta, args.outputItemSize * std::size_t(args.batch),
                            1.0f, args.gpu.stream());
    }
#endif
};

} // namespace

std::unique_ptr<RuntimeLayer> EmptyLayer::createRuntime(const LayerSpec&) const
{
    return std::make_unique<EmptyRuntime>();
}

} // namespace nw
