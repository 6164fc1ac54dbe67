#pragma once
#include "layers/layer_config.h"

namespace nw {

// [yolo] (YOLOv3/v4 head): for each anchor in `mask`, (classes + 5) planes of the input grid:
// x, y, w, h, objectness, class scores. Anchors are in network pixels. The previous layer must output
// len(mask)·(classes + 5) channels. Also holds AB's loss keys (iou_loss, normalizers, scale_x_y, ...).
class YoloLayer final : public LayerConfig {
public:
    int classes = 20, num = 1, maxBoxes = 90;
    std::vector<int> mask;
    std::vector<float> anchors;
    float jitter = 0.2f, ignoreThresh = 0.5f, truthThresh = 1, random = 0;
    float scaleXY = 1, iouNormalizer = 0.75f, objNormalizer = 1, clsNormalizer = 1, iouThresh = 1;
    float labelSmoothEps = 0, betaNms = 0.6f;
    bool newCoords = false;
    std::string iouLoss = "mse", nmsKind = "default";

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::optional<DetectionHeadInfo> detectionHead() const override
    {
        const auto masked = (long long)mask.size();
        return DetectionHeadInfo{classes,    maxBoxes, jitter, random, nmsRuleFromCfg(nmsKind, betaNms),
                                 5 * masked, masked};
    }
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string filtersText() const override { return std::to_string(classes) + " cls"; }
};

} // namespace nw
