#pragma once
#include "layers/layer_config.h"

namespace nw {

// [batchnorm]: batch normalisation on its own (scales, biases, rolling mean and variance per
// channel); shape unchanged.
class BatchnormLayer final : public LayerConfig {
public:
    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    int trainingOutputCopies() const override { return 2; } // the raw and the normalised values
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
};

} // namespace nw
