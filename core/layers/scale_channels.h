#pragma once
#include "layers/layer_config.h"

namespace nw {

// [scale_channels] (AB): multiplies each channel of layer `from` by the previous layer's 1×1×C value
// (squeeze-and-excitation); scale_wh=1 scales every channel by a W×H×1 map instead. Output = from's shape.
class ScaleChannelsLayer final : public LayerConfig {
public:
    int from = 0;
    bool scaleWh = false;
    std::string activation = "linear";

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string filtersText() const override { return std::to_string(from); }
};

} // namespace nw
