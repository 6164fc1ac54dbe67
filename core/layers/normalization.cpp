#include "layers/normalization.h"

namespace nw {

std::unique_ptr<LayerConfig> NormalizationLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<NormalizationLayer>();
    l->alpha = r.getFloat("alpha", 0.0001f);
    l->beta = r.getFloat("beta", 0.75f);
    l->kappa = r.getFloat("kappa", 1);
    l->size = r.getInt("size", 5);
    if (l->size < 1)
        r.error("size", "size must be at least 1");
    return l;
}

LayerResult NormalizationLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (!ctx.requireImage("normalization"))
        return result;
    const Shape& in = ctx.input();
    result.output = Shape::image(in.w, in.h, in.c);
    return result;
}

} // namespace nw
