#pragma once
// Darknet's SGD with momentum and weight decay, exactly (docs/training.md). B = batch·subdivisions:
//   v += −gradient summed over the batch; v += −decay·B·w (weights only); w += (rate/B)·v; v *= momentum.
// The solver owns v (Darknet keeps it inside the layers as *_updates).
#include "runtime/net.h"

#include <vector>

namespace nw {

class SgdSolver {
public:
    SgdSolver(float momentum, float decay) : momentum_(momentum), decay_(decay) {}

    // Applies one update to every parameter and clears the accumulated gradients.
    void step(std::vector<Net::LayerParameters>& layers, float rate, int batchSize);

    // The momentum buffers, in parameter order (saved with checkpoints).
    std::vector<std::vector<float>>& state() { return velocity_; }

private:
    float momentum_, decay_;
    std::vector<std::vector<float>> velocity_;
};

} // namespace nw
