#include "layers/deconvolutional.h"

namespace nw {

std::unique_ptr<LayerConfig> DeconvolutionalLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<DeconvolutionalLayer>();
    l->filters = r.getInt("filters", 1);
    l->size = r.getInt("size", 1);
    l->stride = r.getInt("stride", 1);
    l->activation = readActivation(r, "logistic");
    l->batchNormalize = r.getInt("batch_normalize", 0) != 0;
    const int pad = r.getInt("pad", 0);
    l->padding = r.getInt("padding", 0);
    if (pad)
        l->padding = l->size / 2;
    if (l->filters < 1 || l->size < 1 || l->stride < 1)
        r.error("filters", "filters, size and stride must be at least 1");
    return l;
}

LayerResult DeconvolutionalLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (filters < 1 || size < 1 || stride < 1 || !ctx.requireImage("deconvolutional"))
        return result;
    const Shape& in = ctx.input();
    const int outW = (in.w - 1) * stride + size - 2 * padding;
    const int outH = (in.h - 1) * stride + size - 2 * padding;
    if (outW <= 0 || outH <= 0) {
        ctx.error("output would be " + std::to_string(outW) + "x" + std::to_string(outH) +
                      ": padding is too large for this size and stride",
                  "padding");
        return result;
    }
    result.output = Shape::image(outW, outH, filters);
    result.costs.bflops = (2.0 * filters * size * size * in.c * in.h * in.w) / 1e9;
    result.costs.params = std::int64_t(in.c) * filters * size * size + filters;
    result.costs.workspaceBytes =
        std::int64_t(in.h) * in.w * size * size * filters * std::int64_t(sizeof(float));
    return result;
}

} // namespace nw
