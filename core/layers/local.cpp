#include "layers/local.h"

namespace nw {

std::unique_ptr<LayerConfig> LocalLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<LocalLayer>();
    l->filters = r.getInt("filters", 1);
    l->size = r.getInt("size", 1);
    l->stride = r.getInt("stride", 1);
    l->pad = r.getInt("pad", 0) != 0;
    l->activation = readActivation(r, "logistic");
    if (l->filters < 1 || l->size < 1 || l->stride < 1)
        r.error("filters", "filters, size and stride must be at least 1");
    return l;
}

LayerResult LocalLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (filters < 1 || size < 1 || stride < 1 || !ctx.requireImage("local"))
        return result;
    const Shape& in = ctx.input();
    const int outW = (pad ? in.w - 1 : in.w - size) / stride + 1;
    const int outH = (pad ? in.h - 1 : in.h - size) / stride + 1;
    if (outW <= 0 || outH <= 0) {
        ctx.error("output would be " + std::to_string(outW) + "x" + std::to_string(outH) + ": the " +
                      in.text() + " input is smaller than the kernel",
                  "size");
        return result;
    }
    result.output = Shape::image(outW, outH, filters);
    const std::int64_t locations = std::int64_t(outW) * outH;
    result.costs.bflops = (2.0 * locations * filters * size * size * in.c) / 1e9;
    result.costs.params = locations * filters * size * size * in.c + locations * filters;
    result.costs.workspaceBytes = locations * size * size * in.c * std::int64_t(sizeof(float));
    return result;
}

} // namespace nw
