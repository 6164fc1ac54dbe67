#include "layers/softmax.h"

namespace nw {

std::unique_ptr<LayerConfig> SoftmaxLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<SoftmaxLayer>();
    l->groups = r.getInt("groups", 1);
    l->temperature = r.getFloat("temperature", 1);
    l->tree = r.getString("tree", "");
    r.accept({"spatial", "noloss"});
    if (l->groups < 1)
        r.error("groups", "groups must be at least 1 (found " + std::to_string(l->groups) + ")");
    return l;
}

LayerResult SoftmaxLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    const std::int64_t inputs = ctx.input().size;
    result.output = Shape::flat(inputs);
    if (groups >= 1 && inputs % groups != 0)
        ctx.error("groups=" + std::to_string(groups) + " does not divide the " + std::to_string(inputs) +
                      " input values",
                  "groups");
    return result;
}

} // namespace nw
