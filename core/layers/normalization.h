#pragma once
#include "layers/layer_config.h"

namespace nw {

// [normalization] / [lrn]: local response normalisation across `size` channels; shape unchanged.
class NormalizationLayer final : public LayerConfig {
public:
    int size = 5;
    float alpha = 0.0001f, beta = 0.75f, kappa = 1;

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
};

} // namespace nw
