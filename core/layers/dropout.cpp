#include "layers/dropout.h"

namespace nw {

std::unique_ptr<LayerConfig> DropoutLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<DropoutLayer>();
    l->probability = r.getFloat("probability", 0.5f);
    r.accept({"dropblock", "dropblock_size_rel", "dropblock_size_abs"});
    if (l->probability < 0 || l->probability >= 1)
        r.error("probability",
                "probability must be in [0, 1) (found " + std::to_string(l->probability) + ")");
    return l;
}

LayerResult DropoutLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    result.output = ctx.input();
    return result;
}

} // namespace nw
