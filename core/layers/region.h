#pragma once
#include "layers/layer_config.h"
#include "layers/softmax_tree.h"

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
    std::string tree;                               // tree= as written (yolo9000's hierarchy)
    std::shared_ptr<const SoftmaxTree> softmaxTree; // read when parsed; with it, inference only

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::optional<DetectionHeadInfo> detectionHead() const override
    {
        return DetectionHeadInfo{classes, maxBoxes,     jitter, random, {}, (long long)num * (coords + 1),
                                 num,     !tree.empty()};
    }
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string filtersText() const override { return std::to_string(classes) + " cls"; }
};

} // namespace nw
