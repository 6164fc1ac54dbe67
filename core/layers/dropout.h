#pragma once
#include "layers/layer_config.h"

namespace nw {

// [dropout]: zeroes inputs with `probability` while training (scaling the rest by 1/(1 − p));
// identity at inference. Shape unchanged. Default probability: 0.5 (pjreddie), AB uses 0.2.
class DropoutLayer final : public LayerConfig {
public:
    float probability = 0.5f;

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
};

} // namespace nw
