#pragma once
#include "layers/layer_config.h"

namespace nw {

// [sam] (AB): spatial attention, out = previous ⊙ from (same shapes).
class SamLayer final : public LayerConfig {
public:
    int from = 0;
    std::string activation = "linear";

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string filtersText() const override { return std::to_string(from); }
};

} // namespace nw
