#include "layers/activation.h"

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

} // namespace nw
