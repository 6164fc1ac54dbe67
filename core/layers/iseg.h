#pragma once
#include "layers/layer_config.h"

namespace nw {

// [iseg] (pjreddie): instance-segmentation head; input planes = classes + ids.
class IsegLayer final : public LayerConfig {
public:
    int classes = 20, ids = 32;

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
};

} // namespace nw
