#pragma once
// Weights scored on a .data file's validation set, the network's kind deciding how: a classifier's
// top-1 and confusion matrix (as `valid`), a detector's mAP and AP per class (as `map`). The studio's
// Evaluate runs it on a worker thread; it can be cancelled between batches.
#include "detect/map.h"
#include "train/trainer.h"

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nw {

struct EvaluationRequest {
    std::string dataPath, cfgPath;
    std::string cfgText; // the cfg as an editor shows it; empty: read cfgPath
    std::string weightsPath;
};

struct Evaluation {
    std::size_t images = 0;            // scored
    std::vector<std::string> names;    // the classes' names from the .data file (may be empty)
    std::optional<Accuracy> accuracy;  // a classifier's
    std::optional<MapResult> map;      // a detector's
    std::vector<std::string> warnings; // images or list lines left out, a names file not read
};

// The evaluation, or nullopt with `error` (what and where: the .data, the cfg's line, the weights, the
// list) — "cancelled" when `cancelled` was set. `progress` gets (images done, images in all).
std::optional<Evaluation> evaluateWeights(const EvaluationRequest& request, std::string& error,
                                          const std::function<void(std::size_t, std::size_t)>& progress = {},
                                          const std::atomic<bool>* cancelled = nullptr);

} // namespace nw
