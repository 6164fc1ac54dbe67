#include "layers/logistic.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/activations.h"
#include "runtime/layer_runtime.h"

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/gpu_exec.h"
#include "backend/cuda/gpu_loss_delta.h"
#include "kernels/cuda/training_kernels.h"
#endif

#include <algorithm>
#include <cmath>
#include <vector>

namespace nw {

std::unique_ptr<LayerConfig> LogisticLayer::parse(cfg::SectionReader&)
{
    return std::make_unique<LogisticLayer>();
}

LayerResult LogisticLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    result.output = ctx.input();
    return result;
}

namespace {

// The logistic cross-entropy layer outputs logistic(x).
class LogisticRuntime final : public RuntimeLayer {
public:
    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
        activateArray(args.output.data(), args.output.size(), Activation::Logistic);
        truth_.clear();
        if (!args.context.training || !args.context.truth ||
            args.context.truthStride != args.output.itemSize())
            return;
        truth_.assign(args.context.truth, args.context.truth + args.output.size());
        args.context.addLoss(crossEntropy(args.output.data(), truth_.data(), truth_.size()));
    }

    bool canTrain() const override { return true; }

    // With its loss: −∂loss/∂x = t − p; a later layer's delta goes through σ′.
    void backward(BackwardArgs& args) override
    {
        if (!args.inputDelta)
            return;
        const float* y = args.output.data();
        const float* delta = args.outputDelta.data();
        float* in = args.inputDelta->data();
        for (std::size_t i = 0; i < args.output.size(); ++i)
            in[i] += delta[i] * y[i] * (1 - y[i]) + (truth_.empty() ? 0.0f : truth_[i] - y[i]);
    }

#if NETWRIGHT_WITH_CUDA
    // σ on the device; while training, the loss on the host from the downloaded outputs (its truth is
    // there) and its delta t − p uploaded for the backward pass.
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        const std::size_t n = args.outputItemSize * std::size_t(args.batch);
        args.gpu.copyOnDevice(args.input, args.output, n, "[logistic]");
        cuda::activate(args.output, n, Activation::Logistic, args.gpu.stream());
        gpuDelta_.clear();
        ExecContext* context = args.training;
        if (!context || !context->truth || context->truthStride != args.outputItemSize)
            return;
        hostOutput_.resize(n); // reused pass after pass
        args.gpu.copyToHost(args.output, hostOutput_);
        context->addLoss(crossEntropy(hostOutput_.data(), context->truth, n));
        for (std::size_t i = 0; i < n; ++i)
            hostOutput_[i] = context->truth[i] - hostOutput_[i];
        gpuDelta_.upload(args.gpu, hostOutput_);
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    // As backward: a later layer's delta through σ′, plus the loss's t − p.
    void backwardGpu(GpuBackwardArgs& args) override
    {
        const std::size_t n = args.outputItemSize * std::size_t(args.batch);
        cuda::multiplyByActivationGradient(args.output, nullptr, n, Activation::Logistic, args.outputDelta,
                                           args.gpu.stream());
        gpuDelta_.passBack(args, true);
    }
    GpuLossDelta gpuDelta_;
    std::vector<float> hostOutput_; // a training pass's p, then t − p
#endif

private:
    // Darknet's logistic_x_ent: a multi-label loss, −Σ t·log p + (1 − t)·log(1 − p).
    static double crossEntropy(const float* p, const float* truth, std::size_t n)
    {
        double loss = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const float q = std::clamp(p[i], 1e-7f, 1 - 1e-7f);
            loss -= truth[i] * std::log(q) + (1 - truth[i]) * std::log(1 - q);
        }
        return loss;
    }

    std::vector<float> truth_;
};

} // namespace

std::unique_ptr<RuntimeLayer> LogisticLayer::createRuntime(const LayerSpec&) const
{
    return std::make_unique<LogisticRuntime>();
}

} // namespace nw
