#include "layers/detection.h"

#include "graph/network_spec.h"
#include "kernels/cpu/softmax.h"
#include "runtime/layer_runtime.h"

#include <algorithm>

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

namespace {

// YOLOv1: the input as is, with a softmax over each cell's class scores when softmax=1.
class DetectionRuntime final : public RuntimeLayer {
public:
    explicit DetectionRuntime(const DetectionLayer& config) : config_(config) {}
    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
        if (!config_.softmax)
            return;
        const std::size_t classes = std::size_t(config_.classes);
        for (int b = 0; b < args.output.batch(); ++b)
            for (std::size_t cell = 0; cell < std::size_t(config_.side * config_.side); ++cell) {
                float* p = args.output.item(b) + cell * classes;
                softmax(p, classes, 1, 1.0f, p);
            }
    }

private:
    const DetectionLayer config_;
};

} // namespace

std::unique_ptr<RuntimeLayer> DetectionLayer::createRuntime(const LayerSpec&) const
{
    return std::make_unique<DetectionRuntime>(*this);
}

} // namespace nw
