#pragma once
#include "layers/layer_config.h"

namespace nw {

// [connected] / [conn]: a fully connected layer, y = W·x + b over the flattened input.
// Output 1×1×output. Activation defaults to logistic, as in Darknet.
class ConnectedLayer final : public LayerConfig {
public:
    int outputs = 1;
    bool batchNormalize = false;
    std::string activation = "logistic";
    const std::string* outputActivation() const override { return &activation; }
    int trainingOutputCopies() const override
    {
        return LayerConfig::trainingOutputCopies() + (batchNormalize ? 2 : 0);
    }

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::string filtersText() const override { return std::to_string(outputs); }
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
};

} // namespace nw
