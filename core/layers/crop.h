#pragma once
#include "layers/layer_config.h"

namespace nw {

// [crop]: crops (randomly while training, centred at test) to crop_width × crop_height.
class CropLayer final : public LayerConfig {
public:
    int cropWidth = 1, cropHeight = 1;
    bool flip = false, noadjust = false;
    float angle = 0, saturation = 1, exposure = 1, shift = 0;

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
};

} // namespace nw
