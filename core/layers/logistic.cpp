#include "layers/logistic.h"

namespace nw {

std::unique_ptr<LayerConfig> LogisticLayer::parse(cfg::SectionReader&)
{
    return std::make_unique<LogisticLayer>();
}

LayerResult LogisticLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    result.output = ctx.input();
    return result;
}

} // namespace nw
