#pragma once
#include "kernels/shortcut_weights.h"
#include "layers/layer_config.h"

namespace nw {

// [shortcut]: adds the outputs of `from` (one index in pjreddie's fork, a list in AB's) to the
// previous layer's output; the output has the previous layer's shape. AB: weights_type
// per_feature/per_channel learns one weight per input (per channel).
class ShortcutLayer final : public LayerConfig {
public:
    std::vector<int> from;
    std::string activation = "linear";
    const std::string* outputActivation() const override { return &activation; }
    float alpha = 1, beta = 1;
    std::string weightsType = "none", weightsNormalization = "none";

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string filtersText() const override;
};

// The weights as the layer uses them (weights_type with weights_normalization applied):
// w[k·perInput + c] for input k (0: the previous layer; perInput = channels for per_channel, else 1).
std::vector<float> shortcutWeightsAsUsed(const ShortcutLayer& config, std::span<const float> weights,
                                         int channels);
// Its weights_normalization, as the shared formulas take it (kernels/shortcut_weights.h).
ShortcutNormalization shortcutNormalization(const ShortcutLayer& config);

} // namespace nw
