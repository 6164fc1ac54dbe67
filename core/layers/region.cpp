#include "layers/region.h"

namespace nw {

std::unique_ptr<LayerConfig> RegionLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<RegionLayer>();
    l->coords = r.getInt("coords", 4);
    l->classes = r.getInt("classes", 20);
    l->num = r.getInt("num", 1);
    l->softmax = r.getInt("softmax", 0) != 0;
    l->maxBoxes = r.getInt("max", 30);
    l->jitter = r.getFloat("jitter", 0.2f);
    l->thresh = r.getFloat("thresh", 0.5f);
    l->anchors = r.getFloatList("anchors");
    r.accept({"log", "sqrt", "background", "rescore", "classfix", "absolute", "random", "coord_scale",
              "object_scale", "noobject_scale", "mask_scale", "class_scale", "bias_match", "tree", "map"});
    if (l->classes < 0 || l->coords < 0 || l->num < 1)
        r.error("num", "num must be at least 1 and classes, coords not negative");
    if (!l->anchors.empty() && l->anchors.size() < std::size_t(2 * l->num))
        r.error("anchors", "anchors has " + std::to_string(l->anchors.size()) + " numbers but num=" +
                               std::to_string(l->num) + " needs " + std::to_string(2 * l->num));
    return l;
}

LayerResult RegionLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (num < 1 || !ctx.requireImage("region"))
        return result;
    const Shape& in = ctx.input();
    const int needed = num * (classes + coords + 1);
    if (in.c != needed) {
        ctx.error("the layer before [region] outputs " + std::to_string(in.c) + " channels but num " +
                      std::to_string(num) + " × (classes + coords + 1) = " + std::to_string(needed) +
                      " are needed: set filters=" + std::to_string(needed) +
                      " in the [convolutional] before it",
                  "classes");
        return result;
    }
    result.output = Shape::image(in.w, in.h, needed);
    return result;
}

} // namespace nw
