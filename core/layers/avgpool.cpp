#include "layers/avgpool.h"

namespace nw {

std::unique_ptr<LayerConfig> AvgpoolLayer::parse(cfg::SectionReader&)
{
    return std::make_unique<AvgpoolLayer>();
}

LayerResult AvgpoolLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (!ctx.requireImage("avgpool"))
        return result;
    const Shape& in = ctx.input();
    result.output = Shape::image(1, 1, in.c);
    result.costs.bflops = double(in.size) / 1e9;
    return result;
}

} // namespace nw
