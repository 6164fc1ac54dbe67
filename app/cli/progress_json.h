#pragma once
// train --progress json: what a program following a run reads, one JSON object per line on stdout
// (docs/cli.md). The studio's multi-GPU runs (ui/train/child_training.h) parse exactly these.
#include "train/trainer.h"

#include <string>

namespace nw::cli {

// {"iteration":…, "max_batches":…, "loss":…, "avg_loss":…, "lr":…, "images_per_s":…, "elapsed_s":…,
//  "epoch":…, "valid_top1":… (when measured), "map50":… (when measured), "heads":[{"layer":…, "avg_iou":…,
//  "class":…, "obj":…, "no_obj":…, "recall50":…, "recall75":…, "count":…}, …]}, at a validation also
//  "confusion":[[…]] (a row per true class) with "undecided":[…] (NaN answers per class), or
//  "class_aps":[{"ap50","ap50_95","truths","detections","tp","fp"}, …]
std::string progressJson(const IterationStats& stats);
// {"message": "…"}
std::string messageJson(const std::string& text);

} // namespace nw::cli
