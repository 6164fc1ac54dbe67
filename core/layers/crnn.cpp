#include "layers/crnn.h"

namespace nw {

std::unique_ptr<LayerConfig> CrnnLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<CrnnLayer>();
    l->outputs = r.getInt("output_filters", r.getInt("output", 1));
    l->hidden = r.getInt("hidden_filters", r.getInt("hidden", 1));
    l->activation = readActivation(r, "logistic");
    l->batchNormalize = r.getInt("batch_normalize", 0) != 0;
    r.accept({"shortcut", "size", "stride", "pad"});
    if (l->outputs < 1 || l->hidden < 1)
        r.error("output_filters", "output_filters and hidden_filters must be at least 1");
    return l;
}

LayerResult CrnnLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (outputs < 1 || hidden < 1 || !ctx.requireImage("crnn"))
        return result;
    const Shape& in = ctx.input();
    result.output = Shape::image(in.w, in.h, outputs);
    const double pixels = double(in.w) * in.h;
    const std::int64_t kernels =
        std::int64_t(in.c) * hidden + std::int64_t(hidden) * hidden + std::int64_t(hidden) * outputs;
    result.costs.params = kernels * 9 + 2 * hidden + outputs;
    result.costs.bflops = 2.0 * double(kernels) * 9 * pixels / 1e9;
    result.costs.workspaceBytes =
        std::int64_t(pixels) * 9 * std::max(in.c, hidden) * std::int64_t(sizeof(float));
    return result;
}

} // namespace nw
