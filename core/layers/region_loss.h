#pragma once
// The training targets of a [region] head (YOLOv2, pjreddie's region_layer.c): for one batch item,
// the deltas (target − output) of every anchor slot against the truth boxes, and the head's figures.
#include "layers/region.h"
#include "runtime/head_stats.h"

namespace nw {

// `output`: this item's head output after the forward's activations (x, y, w, h, obj, classes planes
// per anchor; anchors in grid cells). `truth`: up to `maxTruths` boxes (x, y, w, h, class), ended by a
// box of width 0. `warmup` (Darknet: fewer than 12,800 images seen) also pulls every box toward its
// anchor at its cell. `delta` (zeroed by the caller) receives the deltas; stats are sums.
void regionDeltas(const RegionLayer& config, int width, int height, const float* output, const float* truth,
                  int maxTruths, bool warmup, float* delta, HeadStats& stats);

} // namespace nw
