#pragma once
#include "layers/layer_config.h"

namespace nw {

// [cost]: the loss of a classifier or regressor (sse, masked, smooth, L1, seg, wgan); flat output of
// the input's size.
class CostLayer final : public LayerConfig {
public:
    std::string type = "sse";
    float scale = 1;

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    bool isLossOnly() const override { return true; }
};

} // namespace nw
