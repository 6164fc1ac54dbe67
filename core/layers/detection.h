#pragma once
#include "layers/layer_config.h"

namespace nw {

// [detection] (YOLOv1 head): reads side² cells of (classes + num·(coords + 1)) values from a flat
// input; the output is that flat vector.
class DetectionLayer final : public LayerConfig {
public:
    int coords = 1, classes = 1, num = 1, side = 7;
    bool rescore = false, softmax = false, sqrt = false, forced = false;
    bool random = false; // training: random predictor per truth for the first 64,000 images
    float coordScale = 1, objectScale = 1, noobjectScale = 1, classScale = 1;
    int maxBoxes = 90; // truth boxes read per image while training
    float jitter = 0.2f;

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    // `random` here picks predictors at random, not input sizes (YOLOv1 trains at one size).
    std::optional<DetectionHeadInfo> detectionHead() const override
    {
        const long long cells = (long long)side * side;
        return DetectionHeadInfo{classes, maxBoxes, jitter, 0, {}, cells * (1 + coords) * num, cells};
    }
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string filtersText() const override { return std::to_string(classes) + " cls"; }
};

} // namespace nw
