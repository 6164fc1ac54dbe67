#include "layers/iseg.h"

namespace nw {

std::unique_ptr<LayerConfig> IsegLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<IsegLayer>();
    l->classes = r.getInt("classes", 20);
    l->ids = r.getInt("ids", 32);
    return l;
}

LayerResult IsegLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (!ctx.requireImage("iseg"))
        return result;
    const Shape& in = ctx.input();
    if (in.c != classes + ids) {
        ctx.error("the layer before [iseg] outputs " + std::to_string(in.c) +
                      " channels but classes + ids = " + std::to_string(classes + ids) + " are needed",
                  "classes");
        return result;
    }
    result.output = in;
    return result;
}

} // namespace nw
