#pragma once
// Detections written as a YOLO label file: one "class x_center y_center width height" line per object (a
// detection's most likely class), relative to the image (Darknet's training format), so a network's
// boxes can be corrected and trained on.
#include "detect/detector.h"

#include <string>
#include <vector>

namespace nw {

std::string yoloLabelText(const std::vector<LabeledBox>& boxes, double imageWidth, double imageHeight);

} // namespace nw
