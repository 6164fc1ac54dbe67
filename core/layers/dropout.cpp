#include "layers/dropout.h"

#include "graph/layer_spec.h"
#include "runtime/layer_runtime.h"
#include <algorithm>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/inference_kernels.h"
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
    // Inference: the identity.
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        cudaCheck(cudaMemcpyAsync(args.output, args.input,
                                  args.outputItemSize * std::size_t(args.batch) * sizeof(float),
                                  cudaMemcpyDeviceToDevice, args.gpu.stream()),
                  "[dropout] copying on the GPU");
    }
#endif

    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
        if (!args.context.training || !args.context.random)
            return;
        const float scale = 1.0f / (1.0f - probability_);
        mask_.resize(args.output.size());
        std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
        for (std::size_t i = 0; i < mask_.size(); ++i) {
            mask_[i] = uniform(*args.context.random) < probability_ ? 0.0f : scale;
            args.output.data()[i] *= mask_[i];
        }
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
    float probability_;
    std::vector<float> mask_;
};

} // namespace

std::unique_ptr<RuntimeLayer> DropoutLayer::createRuntime(const LayerSpec&) const
{
    return std::make_unique<DropoutRuntime>(probability);
}

} // namespace nw
