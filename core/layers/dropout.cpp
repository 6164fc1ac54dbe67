#include "layers/dropout.h"

#include "graph/network_spec.h"
#include "runtime/layer_runtime.h"
#include <algorithm>

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

// Identity at inference (training scales and drops in the trainer).
class DropoutRuntime final : public RuntimeLayer {
public:
    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
    }
};

} // namespace

std::unique_ptr<RuntimeLayer> DropoutLayer::createRuntime(const LayerSpec&) const
{
    return std::make_unique<DropoutRuntime>();
}

} // namespace nw
