#pragma once
// Where an inference pass keeps each layer's output. A layer's output is needed until the last layer
// that reads it (the next layer, and any route/shortcut/... naming it) has run; after that its
// memory holds a later layer's output, as Caffe's and ncnn's inference nets do. The detection heads
// and the output layer are kept whole (detections are decoded from them after the pass).
#include "graph/network_spec.h"

#include <cstdint>
#include <vector>

namespace nw {

struct ActivationPlan {
    std::vector<int> buffer;                // per layer: the buffer holding its output
    std::vector<std::int64_t> bufferFloats; // per buffer: its size in floats
    std::vector<std::int64_t> addedBytes;   // per layer: how much placing it grew the buffers
    std::int64_t totalBytes = 0;            // all buffers
};

// The layers whose outputs are still readable after an inference pass.
std::vector<bool> outputsKeptAfterInference(const NetworkSpec& spec);
// Buffers for `batch` images: best fit among the free ones, else the largest free one grown, else a
// new one. Deterministic, so the description and the runtime agree.
ActivationPlan planActivations(const NetworkSpec& spec, int batch);

} // namespace nw
