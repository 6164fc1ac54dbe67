#pragma once
// What a layer's forward may use besides its tensors: threads and the net's one shared workspace. The
// CPU side of the execution context; the GPU's is backend/cuda/gpu_exec.h.
#include "runtime/head_stats.h"

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace nw {

// One thread's buffers for a training pass (a convolution's unrolled columns, its gathered deltas or
// products, its share of the weight gradient). The layers take them in turn, so one set per thread,
// sized by the largest layer, serves them all, as Darknet's one workspace does: kept per layer, they
// added up to 300 MB for yolov4-tiny at 416.
struct ThreadScratch {
    std::vector<float> columns, other, weightGradient;
};

struct ExecContext {
    int threads = 1;                 // this pass's threads (the net's setting, Net::setThreads)
    float* workspace = nullptr;      // shared by all layers, sized by the largest need
    std::size_t workspaceFloats = 0; // its size, in floats
    bool training = false;
    const float* truth = nullptr;            // training targets for the loss layers (batch × truthStride)
    std::size_t truthStride = 0;             // truth floats per batch item
    int netWidth = 0, netHeight = 0;         // the network's input size (YOLO anchors are in its pixels)
    std::vector<HeadStats>* heads = nullptr; // detection heads append their figures here
    std::uint64_t seen = 0;                  // images trained on so far (Darknet's warm-up rules)
    double loss = 0;                         // summed by loss layers during a training forward pass
    int lossLayers = 0;                      // how many added to it

    // A loss layer's cost for the pass. The pass reports their mean, as Darknet's get_network_cost does
    // (a [softmax] then [cost] classifier, or yolov4's three heads, printed the sum: 2 or 3× Darknet's).
    void addLoss(double cost)
    {
        loss += cost;
        ++lossLayers;
    }
    double meanLoss() const { return lossLayers > 0 ? loss / lossLayers : 0.0; }
    std::mt19937* random = nullptr;                      // dropout and other stochastic layers while training
    std::vector<ThreadScratch>* threadScratch = nullptr; // the net's (ThreadScratch); null: the layer's own
};

} // namespace nw
