#include "layers/upsample.h"

namespace nw {

std::unique_ptr<LayerConfig> UpsampleLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<UpsampleLayer>();
    l->stride = r.getInt("stride", 2);
    l->scale = r.getFloat("scale", 1);
    if (l->stride == 0)
        r.error("stride", "stride must not be 0 (use 2 to double the size, -2 to halve it)");
    return l;
}

LayerResult UpsampleLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (stride == 0 || !ctx.requireImage("upsample"))
        return result;
    const Shape& in = ctx.input();
    const int outW = stride > 0 ? in.w * stride : in.w / -stride;
    const int outH = stride > 0 ? in.h * stride : in.h / -stride;
    if (outW <= 0 || outH <= 0) {
        ctx.error("downsampling " + in.text() + " by " + std::to_string(-stride) + " leaves nothing",
                  "stride");
        return result;
    }
    result.output = Shape::image(outW, outH, in.c);
    return result;
}

} // namespace nw
