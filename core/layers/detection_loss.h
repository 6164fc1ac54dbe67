#pragma once
// The training targets of a [detection] head (YOLOv1, pjreddie's detection_layer.c): for one batch
// item, the deltas (target − output) of every cell against the truth boxes, and the head's figures.
#include "layers/detection.h"
#include "runtime/head_stats.h"

#include <random>

namespace nw {

// `output`: this item's head output — side² cells of class scores, then side²·num confidences, then
// side²·num boxes (x, y within the cell, w, h of the image; square roots with sqrt=1). `truth`: up to
// `maxTruths` boxes (x, y, w, h, class), ended by a box of width 0; as Darknet's loader does, the
// first box whose centre falls in a cell owns it. `randomPick` (random=1 before 64,000 images)
// assigns each truth to a random predictor of its cell. `delta` (zeroed by the caller) receives the
// deltas; stats are sums.
void detectionDeltas(const DetectionLayer& config, const float* output, const float* truth, int maxTruths,
                     bool randomPick, std::mt19937* random, float* delta, HeadStats& stats);

} // namespace nw
