#pragma once
// Detections as Darknet represents them: a centre/size box relative to the image (0..1), an
// objectness and one probability per class (0 where below the threshold), and its NMS.
#include "layers/box.h"

#include <vector>

namespace nw {

struct Detection {
    Box box;
    float objectness = 0;
    std::vector<float> prob; // per class, objectness·class score, 0 if ≤ threshold
};

// Darknet's do_nms_sort: detections with objectness 0 go last; per class, sort by probability and
// zero the probability of every later box whose IoU with a kept one exceeds `threshold`. With another
// `rule` (a [yolo] nms_kind), AlexeyAB's diounms_sort: the same with the rule's overlap.
void nmsSort(std::vector<Detection>& detections, int classes, float threshold, const NmsRule& rule = {});

} // namespace nw
