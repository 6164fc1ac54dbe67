#include "layers/cost.h"

namespace nw {

std::unique_ptr<LayerConfig> CostLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<CostLayer>();
    l->type = r.getString("type", "sse");
    l->scale = r.getFloat("scale", 1);
    r.accept({"ratio", "noobj", "thresh"});
    if (l->type != "sse" && l->type != "masked" && l->type != "smooth" && l->type != "L1" &&
        l->type != "seg" && l->type != "wgan")
        r.warning("type", "unknown cost type '" + l->type +
                              "': Darknet uses sse (known: sse, masked, smooth, L1, seg, "
                              "wgan)");
    return l;
}

LayerResult CostLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    result.output = Shape::flat(ctx.input().size);
    return result;
}

} // namespace nw
