#include "layers/detection.h"

namespace nw {

std::unique_ptr<LayerConfig> DetectionLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<DetectionLayer>();
    l->coords = r.getInt("coords", 1);
    l->classes = r.getInt("classes", 1);
    l->rescore = r.getInt("rescore", 0) != 0;
    l->num = r.getInt("num", 1);
    l->side = r.getInt("side", 7);
    l->softmax = r.getInt("softmax", 0) != 0;
    l->sqrt = r.getInt("sqrt", 0) != 0;
    r.accept({"max", "coord_scale", "forced", "object_scale", "noobject_scale", "class_scale", "jitter",
              "random", "reorg"});
    if (l->side < 1 || l->num < 1 || l->classes < 0 || l->coords < 0)
        r.error("side", "side and num must be at least 1");
    return l;
}

LayerResult DetectionLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    const std::int64_t inputs = ctx.input().size;
    const std::int64_t needed = std::int64_t(side) * side * ((1 + coords) * num + classes);
    if (inputs != needed) {
        ctx.error("[detection] with side " + std::to_string(side) + ", num " + std::to_string(num) +
                      ", coords " + std::to_string(coords) + " and classes " + std::to_string(classes) +
                      " needs " + std::to_string(needed) +
                      " input values (side²·((1+coords)·num+classes)) but gets " + std::to_string(inputs) +
                      ": set output=" + std::to_string(needed) + " in the layer before it",
                  "side");
        return result;
    }
    result.output = Shape::flat(inputs);
    return result;
}

} // namespace nw
