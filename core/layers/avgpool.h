#pragma once
#include "layers/layer_config.h"

namespace nw {

// [avgpool] / [avg]: global average over each channel's H×W → 1×1×c.
class AvgpoolLayer final : public LayerConfig {
public:
    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
};

} // namespace nw
