#include "layers/logistic.h"

#include "graph/network_spec.h"
#include "kernels/cpu/activations.h"
#include "runtime/layer_runtime.h"

#include <algorithm>

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
    }
};

} // namespace

std::unique_ptr<RuntimeLayer> LogisticLayer::createRuntime(const LayerSpec&) const
{
    return std::make_unique<LogisticRuntime>();
}

} // namespace nw
