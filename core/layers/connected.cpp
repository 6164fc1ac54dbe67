#include "layers/connected.h"

namespace nw {

std::unique_ptr<LayerConfig> ConnectedLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<ConnectedLayer>();
    l->outputs = r.getInt("output", 1);
    l->activation = readActivation(r, "logistic");
    l->batchNormalize = r.getInt("batch_normalize", 0) != 0;
    if (l->outputs < 1)
        r.error("output", "output must be at least 1 (found " + std::to_string(l->outputs) + ")");
    return l;
}

LayerResult ConnectedLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    const std::int64_t inputs = ctx.input().size;
    if (outputs < 1)
        return result;
    if (inputs <= 0) {
        ctx.error("[connected] has no input values (the layer before it outputs nothing)");
        return result;
    }
    result.output = Shape::image(1, 1, outputs);
    result.costs.bflops = (2.0 * inputs * outputs) / 1e9;
    result.costs.params = inputs * outputs + outputs;
    return result;
}

} // namespace nw
