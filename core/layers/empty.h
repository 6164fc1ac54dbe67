#pragma once
#include "layers/layer_config.h"

namespace nw {

// [empty] / [silence] (AB): passes its input through unchanged.
class EmptyLayer final : public LayerConfig {
public:
    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
};

} // namespace nw
