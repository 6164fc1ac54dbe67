#pragma once
#include "layers/layer_config.h"

#include <limits>

namespace nw {

// [yolo] (YOLOv3/v4 head): for each anchor in `mask`, (classes + 5) planes of the input grid:
// x, y, w, h, objectness, class scores. Anchors are in network pixels. The previous layer must output
// len(mask)·(classes + 5) channels. Also holds AB's loss keys (iou_loss, normalizers, scale_x_y, ...).
//
// AlexeyAB's [Gaussian_yolo] (Gaussian YOLOv3) is the same head with an uncertainty after each box
// value: per anchor x, σx, y, σy, w, σw, h, σh, objectness, classes ((classes + 9) planes). A box's
// class scores are scaled by 1 − mean(σ), and training fits each box value as a Gaussian's mean with σ
// its spread (gaussian = true; yolo_loss.cpp).
class YoloLayer final : public LayerConfig {
public:
    int classes = 20, num = 1, maxBoxes = 90;
    bool gaussian = false;
    float ucNormalizer = 1; // [Gaussian_yolo]: weight of the σ deltas
    // [Gaussian_yolo] yolo_point: where x, y sit from the box's centre, in box sizes (−0.5 left_top,
    // 0 center, 0.5 right_bottom); decoding and the loss both go by it.
    float pointOffset = 0;

    // Where each value sits among an anchor's planes.
    int entries() const { return classes + (gaussian ? 9 : 5); }
    int xEntry() const { return 0; }
    int yEntry() const { return gaussian ? 2 : 1; }
    int wEntry() const { return gaussian ? 4 : 2; }
    int hEntry() const { return gaussian ? 6 : 3; }
    int objectnessEntry() const { return gaussian ? 8 : 4; }
    int classEntry(int c) const { return (gaussian ? 9 : 5) + c; }
    std::vector<int> mask;
    std::vector<float> anchors;
    float jitter = 0.2f, ignoreThresh = 0.5f, truthThresh = 1, random = 0;
    float scaleXY = 1, iouNormalizer = 0.75f, objNormalizer = 1, clsNormalizer = 1, iouThresh = 1;
    float labelSmoothEps = 0, betaNms = 0.6f;
    // AlexeyAB's max_delta: an IoU-family loss's box deltas clipped to ±max_delta (yolov4.cfg: 5).
    float maxDelta = std::numeric_limits<float>::infinity();
    bool newCoords = false;
    std::string iouLoss = "mse", nmsKind = "default";

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    static std::unique_ptr<LayerConfig> parseGaussian(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::optional<DetectionHeadInfo> detectionHead() const override
    {
        const auto masked = (long long)mask.size();
        return DetectionHeadInfo{
            classes, maxBoxes, jitter, random, nmsRuleFromCfg(nmsKind, betaNms), (gaussian ? 9 : 5) * masked,
            masked};
    }
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string filtersText() const override { return std::to_string(classes) + " cls"; }
};

} // namespace nw
