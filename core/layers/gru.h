#pragma once
#include "layers/layer_config.h"

namespace nw {

// 3
class GruLayer final : public LayerConfig {
public:
    int outputs = 1;
    bool batchNormalize = false;
    bool tanh = false; // the candidate state: tanh instead of logistic

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    bool isRecurrent() const override { return true; }
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string filtersText() const override { return std::to_string(outputs); }
};

} // namespace nw
