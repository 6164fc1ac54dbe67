#pragma once
// What training needs to know of a detection head ([yolo], [region], [detection]) without caring
// which kind it is: its classes, how many truth boxes it reads, its jitter and multi-scale setting.
#include "layers/layer_config.h"

#include <optional>

namespace nw {

struct DetectionHeadInfo {
    int classes = 0;
    int maxBoxes = 0;     // truth boxes per image
    float jitter = 0;     // crop jitter of the training images
    float multiScale = 0; // `random` of [yolo]/[region]: 0 off, 1 Darknet's ×/÷1.4, else that factor
};

// The head's figures, or nullopt when `config` is not a detection head.
std::optional<DetectionHeadInfo> detectionHeadInfo(const LayerConfig* config);

} // namespace nw
