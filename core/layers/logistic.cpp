#include "layers/logistic.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/activations.h"
#include "runtime/layer_runtime.h"

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
        // Darknet's logistic_x_ent: a multi-label loss, −Σ t·log p + (1 − t)·log(1 − p).
        truth_.assign(args.context.truth, args.context.truth + args.output.size());
        double loss = 0;
        for (std::size_t i = 0; i < truth_.size(); ++i) {
            const float p = std::clamp(args.output.data()[i], 1e-7f, 1 - 1e-7f);
            loss -= truth_[i] * std::log(p) + (1 - truth_[i]) * std::log(1 - p);
        }
        args.context.loss += loss;
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

private:
    std::vector<float> truth_;
};

} // namespace

std::unique_ptr<RuntimeLayer> LogisticLayer::createRuntime(const LayerSpec&) const
{
    return std::make_unique<LogisticRuntime>();
}

} // namespace nw
