#include "layers/maxpool.h"

namespace nw {

std::unique_ptr<LayerConfig> MaxpoolLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<MaxpoolLayer>();
    const int stride = r.getInt("stride", 1);
    l->strideX = r.getInt("stride_x", stride);
    l->strideY = r.getInt("stride_y", stride);
    l->size = r.getInt("size", stride);
    l->padding = r.getInt("padding", l->size - 1);
    l->depth = r.getInt("maxpool_depth", 0) != 0;
    l->outChannels = r.getInt("out_channels", 1);
    r.accept({"antialiasing", "maxpool_zero_nonmax"});
    if (l->size < 1 || l->strideX < 1 || l->strideY < 1)
        r.error("size", "size and stride must be at least 1");
    if (l->depth && l->outChannels < 1)
        r.error("out_channels", "out_channels must be at least 1");
    return l;
}

LayerResult MaxpoolLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (size < 1 || strideX < 1 || strideY < 1 || !ctx.requireImage("maxpool"))
        return result;
    const Shape& in = ctx.input();
    if (depth) {
        result.output = Shape::image(in.w, in.h, outChannels);
        result.costs.bflops = double(in.c) * in.h * in.w / 1e9;
        return result;
    }
    const int outW = windowOutput(in.w, padding, size, strideX);
    const int outH = windowOutput(in.h, padding, size, strideY);
    if (outW <= 0 || outH <= 0) {
        ctx.error("output would be " + std::to_string(outW) + "x" + std::to_string(outH) + ": the " +
                      in.text() + " input is smaller than the " + std::to_string(size) + "x" +
                      std::to_string(size) + " window",
                  "size");
        return result;
    }
    result.output = Shape::image(outW, outH, in.c);
    result.costs.bflops = double(size) * size * in.c * outH * outW / 1e9;
    return result;
}

} // namespace nw
