#pragma once
#include "layers/layer_config.h"

namespace nw {

// [l2norm] (pjreddie): L2-normalises across channels; shape unchanged.
class L2normLayer final : public LayerConfig {
public:
    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
};

} // namespace nw
