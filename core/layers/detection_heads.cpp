#include "layers/detection_heads.h"

#include "layers/detection.h"
#include "layers/region.h"
#include "layers/yolo.h"

namespace nw {

std::optional<DetectionHeadInfo> detectionHeadInfo(const LayerConfig* config)
{
    if (const auto* yolo = dynamic_cast<const YoloLayer*>(config))
        return DetectionHeadInfo{yolo->classes, yolo->maxBoxes, yolo->jitter, yolo->random};
    if (const auto* region = dynamic_cast<const RegionLayer*>(config))
        return DetectionHeadInfo{region->classes, region->maxBoxes, region->jitter, region->random};
    // [detection]'s `random` picks predictors at random, not input sizes (YOLOv1 trains at one size).
    if (const auto* v1 = dynamic_cast<const DetectionLayer*>(config))
        return DetectionHeadInfo{v1->classes, v1->maxBoxes, v1->jitter, 0};
    return std::nullopt;
}

} // namespace nw
