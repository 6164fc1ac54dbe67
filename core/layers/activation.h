#pragma once
#include "layers/layer_config.h"

namespace nw {

// [activation]: applies an activation function on its own; shape unchanged.
class ActivationLayer final : public LayerConfig {
public:
    std::string activation = "linear";
    const std::string* outputActivation() const override { return &activation; }

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
};

} // namespace nw
