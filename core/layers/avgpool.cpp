#include "layers/avgpool.h"

#include "graph/layer_spec.h"
#include "runtime/layer_runtime.h"

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/inference_kernels.h"
#include "kernels/cuda/training_kernels.h"
#endif

namespace nw {

std::unique_ptr<LayerConfig> AvgpoolLayer::parse(cfg::SectionReader&)
{
    return std::make_unique<AvgpoolLayer>();
}

LayerResult AvgpoolLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (!ctx.requireImage("avgpool"))
        return result;
    const Shape& in = ctx.input();
    result.output = Shape::image(1, 1, in.c);
    result.costs.bflops = double(in.size) / 1e9;
    return result;
}

namespace {

class AvgpoolRuntime final : public RuntimeLayer {
public:
    explicit AvgpoolRuntime(const Shape& in) : in_(in) {}
    void forward(ForwardArgs& args) override
    {
        const std::size_t plane = std::size_t(in_.w) * std::size_t(in_.h);
        for (int b = 0; b < args.output.batch(); ++b)
            for (int c = 0; c < in_.c; ++c) {
                const float* p = args.input.item(b) + std::size_t(c) * plane;
                float sum = 0;
                for (std::size_t i = 0; i < plane; ++i)
                    sum += p[i];
                args.output.item(b)[c] = sum / float(plane);
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
        cuda::averagePlanes(args.input, args.output, args.batch * in_.c, in_.w * in_.h, args.gpu.stream());
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    void backwardGpu(GpuBackwardArgs& args) override
    {
        if (args.inputDelta)
            cuda::averagePlanesBackward(args.outputDelta, args.inputDelta, args.batch * in_.c, in_.w * in_.h,
                                        args.gpu.stream());
    }
#endif

    void backward(BackwardArgs& args) override
    {
        if (!args.inputDelta)
            return;
        const std::size_t plane = std::size_t(in_.w) * std::size_t(in_.h);
        for (int b = 0; b < args.output.batch(); ++b)
            for (int c = 0; c < in_.c; ++c) {
                float* d = args.inputDelta->item(b) + std::size_t(c) * plane;
                const float g = args.outputDelta.item(b)[c] / float(plane);
                for (std::size_t i = 0; i < plane; ++i)
                    d[i] += g;
            }
    }

private:
    Shape in_;
};

} // namespace

std::unique_ptr<RuntimeLayer> AvgpoolLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<AvgpoolRuntime>(spec.input);
}

} // namespace nw
