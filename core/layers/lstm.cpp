#include "layers/lstm.h"

#include "layers/recurrent.h"

namespace nw {

std::unique_ptr<LayerConfig> LstmLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<LstmLayer>();
    l->outputs = r.getInt("output", 1);
    l->batchNormalize = r.getInt("batch_normalize", 0) != 0;

    if (l->outputs < 1)
        r.error("output", "output must be at least 1");
    return l;
}

LayerResult LstmLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (outputs < 1)
        return result;
    if (ctx.input().size <= 0) {
        ctx.error("[lstm] has no input values (the layer before it outputs nothing)");
        return result;
    }
    result.output = Shape::flat(outputs);
    result.costs = connectedBlocksCosts(ctx.input().size, outputs, 4, 4);
    return result;
}

} // namespace nw
