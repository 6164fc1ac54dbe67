#include "layers/reorg3d.h"

#include "graph/layer_spec.h"
#include "layers/reorg.h"
#include "runtime/layer_runtime.h"

namespace nw {

std::unique_ptr<LayerConfig> Reorg3dLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<Reorg3dLayer>();
    l->stride = r.getInt("stride", 1);
    l->reverse = r.getFlag("reverse", false);
    if (l->stride < 1)
        r.error("stride", "stride must be at least 1");
    return l;
}

LayerResult Reorg3dLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (stride < 1 || !ctx.requireImage("reorg3d"))
        return result;
    // AlexeyAB's reorg_cpu runs over the output's dims and deals its channels into stride² groups: the
    // reverse form needs the output's channels divisible by stride² again (it divides by zero or
    // drops values otherwise).
    const std::int64_t area = std::int64_t(stride) * stride;
    if (reverse && ctx.input().c % (area * area) != 0) {
        ctx.error("reverse reorg3d needs channels (" + std::to_string(ctx.input().c) +
                      ") divisible by stride⁴ = " + std::to_string(area * area) +
                      " (AlexeyAB's reorg deals the output's channels into stride² "
                      "groups)",
                  "stride");
        return result;
    }
    result.output = spaceToDepthShape(ctx, stride, reverse);
    return result;
}

std::unique_ptr<RuntimeLayer> Reorg3dLayer::createRuntime(const LayerSpec& spec) const
{
    ReorgLayer pairing;
    pairing.stride = stride;
    pairing.reverse = reverse;
    return reorgRuntime(pairing, spec.output);
}

} // namespace nw
