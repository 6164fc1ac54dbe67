#include "layers/empty.h"

namespace nw {

std::unique_ptr<LayerConfig> EmptyLayer::parse(cfg::SectionReader&)
{
    return std::make_unique<EmptyLayer>();
}

LayerResult EmptyLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    result.output = ctx.input();
    return result;
}

} // namespace nw
