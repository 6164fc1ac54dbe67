#include "layers/gru.h"

#include "layers/recurrent.h"

namespace nw {

std::unique_ptr<LayerConfig> GruLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<GruLayer>();
    l->outputs = r.getInt("output", 1);
    l->batchNormalize = r.getInt("batch_normalize", 0) != 0;
    r.accept({"tanh"});
    if (l->outputs < 1)
        r.error("output", "output must be at least 1");
    return l;
}

LayerResult GruLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (outputs < 1)
        return result;
    if (ctx.input().size <= 0) {
        ctx.error("[gru] has no input values (the layer before it outputs nothing)");
        return result;
    }
    result.output = Shape::flat(outputs);
    result.costs = connectedBlocksCosts(ctx.input().size, outputs, 3, 3);
    return result;
}

} // namespace nw
