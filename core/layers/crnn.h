#pragma once
#include "layers/layer_config.h"

namespace nw {

// [crnn]: a convolutional recurrent layer: three 3×3 same-size convolutions, input (c→hidden),
// self (hidden→hidden) and output (hidden→output). pj keys hidden_filters/output_filters, AB hidden/output.
class CrnnLayer final : public LayerConfig {
public:
    int hidden = 1, outputs = 1;
    bool batchNormalize = false;
    std::string activation = "logistic";
    const std::string* outputActivation() const override { return &activation; }
    bool shortcut = false;

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    bool isRecurrent() const override { return true; }
    LayerResult infer(LayerContext& context) const override;
    std::string filtersText() const override { return std::to_string(outputs); }
    std::string sizeText() const override { return kernelText(3, 1, 1); }
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
};

} // namespace nw
