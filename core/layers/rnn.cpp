#include "layers/rnn.h"

#include "layers/recurrent.h"

namespace nw {

std::unique_ptr<LayerConfig> RnnLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<RnnLayer>();
    l->outputs = r.getInt("output", 1);
    l->batchNormalize = r.getInt("batch_normalize", 0) != 0;
    l->activation = readActivation(r, "logistic");
    r.accept({"shortcut", "hidden"});
    if (l->outputs < 1)
        r.error("output", "output must be at least 1");
    return l;
}

LayerResult RnnLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (outputs < 1)
        return result;
    if (ctx.input().size <= 0) {
        ctx.error("[rnn] has no input values (the layer before it outputs nothing)");
        return result;
    }
    result.output = Shape::flat(outputs);
    result.costs = connectedBlocksCosts(ctx.input().size, outputs, 1, 2);
    return result;
}

} // namespace nw
