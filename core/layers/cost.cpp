#include "layers/cost.h"

#include "graph/network_spec.h"
#include "runtime/layer_runtime.h"
#include <algorithm>

namespace nw {

std::unique_ptr<LayerConfig> CostLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<CostLayer>();
    l->type = r.getString("type", "sse");
    l->scale = r.getFloat("scale", 1);
    r.accept({"ratio", "noobj", "thresh"});
    if (l->type != "sse" && l->type != "masked" && l->type != "smooth" && l->type != "L1" &&
        l->type != "seg" && l->type != "wgan")
        r.warning("type", "unknown cost type '" + l->type +
                              "': Darknet uses sse (known: sse, masked, smooth, L1, seg, "
                              "wgan)");
    return l;
}

LayerResult CostLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    result.output = Shape::flat(ctx.input().size);
    return result;
}

namespace {

// At inference the loss is not computed; the values pass through (Darknet leaves garbage).
class CostRuntime final : public RuntimeLayer {
public:
    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
    }
};

} // namespace

std::unique_ptr<RuntimeLayer> CostLayer::createRuntime(const LayerSpec&) const
{
    return std::make_unique<CostRuntime>();
}

} // namespace nw
