#include "layers/sam.h"

namespace nw {

std::unique_ptr<LayerConfig> SamLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<SamLayer>();
    if (!r.has("from"))
        r.error("from", "[sam] needs from= (the layer to multiply with)");
    l->from = r.getInt("from", 0);
    l->activation = readActivation(r, "linear");
    return l;
}

LayerResult SamLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    const auto index = ctx.resolve(from, "from");
    if (!index || !ctx.isValid(*index))
        return result;
    result.sources.push_back(*index);
    const Shape& target = ctx.outputOf(*index);
    if (!target.isImage() || ctx.input() != target) {
        ctx.error("[sam] multiplies two outputs of the same shape, but the previous layer is " +
                      ctx.input().text() + " and layer " + std::to_string(*index) + " is " + target.text(),
                  "from");
        return result;
    }
    result.output = target;
    result.costs.bflops = double(target.size) / 1e9;
    return result;
}

} // namespace nw
