#pragma once
// The training targets of a [yolo] head (Darknet v3, with AlexeyAB's keys): for one batch item, the
// deltas (target − output, Darknet's sign) of every anchor slot against the truth boxes, and the
// figures Darknet prints. Kept apart from the layer so it can be checked by hand.
#include "layers/yolo.h"
#include "runtime/head_stats.h"

namespace nw {

struct YoloGrid {
    int width = 0, height = 0;       // cells of this head
    int netWidth = 0, netHeight = 0; // network input, the unit of the anchors
};

// `output`: this item's head output after the forward's logistic (x, y, w, h, obj, classes planes per
// mask slot). `truth`: up to `maxTruths` boxes (x, y, w, h, class), ended by a box of width 0.
// `delta` (same size as output, zeroed by the caller) receives the deltas; the stats are summed
// (average them with finishHeadStats in head_stats.h).
void yoloDeltas(const YoloLayer& config, const YoloGrid& grid, const float* output, const float* truth,
                int maxTruths, float* delta, HeadStats& stats);

// The IoU-family score AlexeyAB's iou_loss uses (iou, giou, diou, ciou) of a predicted box against a
// truth, and its gradient with respect to the predicted x, y, w, h (relative units).
struct IouGradient {
    float value = 0;
    float dx = 0, dy = 0, dw = 0, dh = 0;
};
IouGradient iouScore(const std::string& kind, float x, float y, float w, float h, float tx, float ty,
                     float tw, float th);

} // namespace nw
