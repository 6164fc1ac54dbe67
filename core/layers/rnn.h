#pragma once
#include "layers/layer_config.h"

namespace nw {

// 2
class RnnLayer final : public LayerConfig {
public:
    int outputs = 1;
    bool batchNormalize = false;
    std::string activation = "logistic";
    const std::string* outputActivation() const override { return &activation; }
    bool shortcut = false;
    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    bool isRecurrent() const override { return true; }
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string filtersText() const override { return std::to_string(outputs); }
};

} // namespace nw
