#include "layers/batchnorm.h"

namespace nw {

std::unique_ptr<LayerConfig> BatchnormLayer::parse(cfg::SectionReader&)
{
    return std::make_unique<BatchnormLayer>();
}

LayerResult BatchnormLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (!ctx.requireImage("batchnorm"))
        return result;
    const Shape& in = ctx.input();
    result.output = Shape::image(in.w, in.h, in.c);
    result.costs.params = 2 * std::int64_t(in.c);
    result.costs.bflops = 2.0 * double(in.size) / 1e9;
    return result;
}

} // namespace nw
