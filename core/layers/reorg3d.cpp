#include "layers/reorg3d.h"

#include "layers/reorg.h"

namespace nw {

std::unique_ptr<LayerConfig> Reorg3dLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<Reorg3dLayer>();
    l->stride = r.getInt("stride", 1);
    l->reverse = r.getFlag("reverse", false);
    if (l->stride < 1)
        r.error("stride", "stride must be at least 1");
    return l;
}

LayerResult Reorg3dLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (stride >= 1 && ctx.requireImage("reorg3d"))
        result.output = spaceToDepthShape(ctx, stride, reverse);
    return result;
}

} // namespace nw
