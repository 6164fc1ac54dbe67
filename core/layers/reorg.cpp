#include "layers/reorg.h"

namespace nw {

std::unique_ptr<LayerConfig> ReorgLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<ReorgLayer>();
    l->stride = r.getInt("stride", 1);
    l->reverse = r.getInt("reverse", 0) != 0;
    l->flatten = r.getInt("flatten", 0) != 0;
    l->extra = r.getInt("extra", 0);
    if (l->stride < 1)
        r.error("stride", "stride must be at least 1");
    return l;
}

Shape spaceToDepthShape(LayerContext& ctx, int stride, bool reverse)
{
    const Shape& in = ctx.input();
    if (reverse) {
        if (in.c % (stride * stride) != 0) {
            ctx.error("reverse reorg needs channels (" + std::to_string(in.c) +
                          ") divisible by stride² = " + std::to_string(stride * stride),
                      "stride");
            return {};
        }
        return Shape::image(in.w * stride, in.h * stride, in.c / (stride * stride));
    }
    if (in.w % stride != 0 || in.h % stride != 0) {
        ctx.error("the " + in.text() + " input is not a multiple of stride " + std::to_string(stride),
                  "stride");
        return {};
    }
    return Shape::image(in.w / stride, in.h / stride, in.c * stride * stride);
}

LayerResult ReorgLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (stride < 1 || !ctx.requireImage("reorg"))
        return result;
    if (extra != 0) { // pjreddie: `extra` values are appended and the output becomes flat
        result.output = Shape::flat(ctx.input().size + extra);
        return result;
    }
    result.output = spaceToDepthShape(ctx, stride, reverse);
    return result;
}

} // namespace nw
