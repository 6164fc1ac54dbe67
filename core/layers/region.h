#pragma once
#include "layers/layer_config.h"

namespace nw {

// [region] (YOLOv2 head): num anchors × (coords + 1 + classes) planes of the input grid; anchors in
// grid-cell units. Training uses pjreddie's region loss (region_loss.cpp) for coords=4 without a tree.
class RegionLayer final : public LayerConfig {
public:
    int coords = 4, classes = 20, num = 1, maxBoxes = 30;
    std::vector<float> anchors;
    bool softmax = false;
    float jitter = 0.2f, thresh = 0.5f;
    float random = 0; // multi-scale training (the trainer's input-size changes)
    float coordScale = 1, objectScale = 1, noobjectScale = 1, classScale = 1;
    bool rescore = false, biasMatch = false;
    std::string tree; // yolo9000's hierarchy file: not trainable here

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::optional<DetectionHeadInfo> detectionHead() const override
    {
        return DetectionHeadInfo{classes, maxBoxes, jitter, random};
    }
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string missingRuntimeReason() const override
    {
        return "uses yolo9000's hierarchical softmax (tree=" + tree + "), which is not supported yet";
    }
    std::string filtersText() const override { return std::to_string(classes) + " cls"; }
};

} // namespace nw
