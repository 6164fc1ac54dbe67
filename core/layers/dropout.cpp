#include "layers/dropout.h"

#include "graph/layer_spec.h"
#include "runtime/layer_runtime.h"
#include "util/uniform_float.h"
#include <algorithm>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/inference_kernels.h"
#include "kernels/cuda/training_kernels.h"
#endif

namespace nw {

std::unique_ptr<LayerConfig> DropoutLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<DropoutLayer>();
    l->probability = r.getFloat("probability", 0.5f);
    r.accept({"dropblock", "dropblock_size_rel", "dropblock_size_abs"});
    if (l->probability < 0 || l->probability >= 1)
        r.error("probability",
                "probability must be in [0, 1) (found " + std::to_string(l->probability) + ")");
    return l;
}

LayerResult DropoutLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    result.output = ctx.input();
    return result;
}

namespace {

// Identity at inference. Training zeroes each value with `probability` and scales the rest by
// 1/(1 − p), so the expected output is unchanged.
class DropoutRuntime final : public RuntimeLayer {
public:
    explicit DropoutRuntime(float probability) : probability_(probability) {}

#if NETWRIGHT_WITH_CUDA
    // The identity at inference; while training the CPU's mask, drawn on the host from the same random
    // stream (so a GPU run drops what a CPU run drops) and uploaded.
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        const std::size_t n = args.outputItemSize * std::size_t(args.batch);
        if (args.training && args.training->random) {
            drawMask(n, *args.training->random);
            gpuMask_.resize(n);
            args.gpu.copyToDevice(mask_, gpuMask_.data());
            cuda::multiply(args.input, gpuMask_.data(), args.output, n, args.gpu.stream());
            return;
        }
        mask_.clear();
        args.gpu.copyOnDevice(args.input, args.output, n, "[dropout]");
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    void backwardGpu(GpuBackwardArgs& args) override
    {
        const std::size_t n = args.outputItemSize * std::size_t(args.batch);
        if (!args.inputDelta)
            return;
        if (mask_.size() == n)
            cuda::addProduct(args.outputDelta, gpuMask_.data(), args.inputDelta, n, args.gpu.stream());
        else
            cuda::addScaled(args.outputDelta, args.inputDelta, n, 1.0f, args.gpu.stream());
    }
#endif

    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
        if (!args.context.training || !args.context.random)
            return;
        drawMask(args.output.size(), *args.context.random);
        for (std::size_t i = 0; i < mask_.size(); ++i)
            args.output.data()[i] *= mask_[i];
    }

    bool canTrain() const override
    {
        return true;
    }

    void backward(BackwardArgs& args) override
    {
        if (!args.inputDelta)
            return;
        for (std::size_t i = 0; i < args.output.size(); ++i)
            args.inputDelta->data()[i] += args.outputDelta.data()[i] * (i < mask_.size() ? mask_[i] : 1.0f);
    }

private:
    // Each value kept with 1 − p, scaled by 1/(1 − p).
    void drawMask(std::size_t n, std::mt19937& random)
    {
        const float scale = 1.0f / (1.0f - probability_);
        mask_.resize(n);
        for (float& m : mask_)
            m = uniformFloat(random, 0.0f, 1.0f) < probability_ ? 0.0f : scale;
    }

    float probability_;
    std::vector<float> mask_;
#if NETWRIGHT_WITH_CUDA
    DeviceBuffer gpuMask_;
#endif
};

} // namespace

std::unique_ptr<RuntimeLayer> DropoutLayer::createRuntime(const LayerSpec&) const
{
    return std::make_unique<DropoutRuntime>(probability);
}

} // namespace nw
