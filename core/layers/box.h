#pragma once
// Box geometry shared by the detection losses (layers/*_loss.cpp) and by decoding and NMS (detect/):
// it lives with the layers so the layers need nothing from detect/.
#include <string>

namespace nw {

struct Box {
    float x = 0, y = 0, w = 0, h = 0; // centre and size
};

// The overlap of two 1-D segments given by centre and width (negative: a gap).
float overlap(float x1, float w1, float x2, float w2);
float boxIou(const Box& a, const Box& b);

// How NMS measures the overlap of two boxes: [yolo] nms_kind (AlexeyAB's diounms_sort). Plain IoU for
// "default"; IoU − (d²/c²)^p otherwise, d the distance of the centres and c the diagonal of the box
// enclosing both (DIoU: a box beside another is not suppressed as readily as one on top of it), with
// p = 0.6 for "greedynms" and beta_nms for "diounms".
struct NmsRule {
    enum class Kind { Iou, GreedyDiou, Diou };
    Kind kind = Kind::Iou;
    float beta = 0.6f;
};
NmsRule nmsRuleFromCfg(const std::string& nmsKind, float betaNms);
float nmsOverlap(const Box& a, const Box& b, const NmsRule& rule);

} // namespace nw
