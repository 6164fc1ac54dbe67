#pragma once
// Darknet's SGD with momentum and weight decay, exactly (docs/training.md). B = batch·subdivisions:
//   v += −gradient summed over the batch; v += −decay·B·w (weights only); w += (rate/B)·v; v *= momentum.
// The solver owns v (Darknet keeps it inside the layers as *_updates).
#include "train/solver.h"

#include <vector>

namespace nw {

class SgdSolver final : public Solver {
public:
    SgdSolver(float momentum, float decay) : momentum_(momentum), decay_(decay) {}

    void step(std::vector<Net::LayerParameters>& layers, float rate, int batchSize) override;
    // The momentum buffers, in parameter order.
    std::vector<std::vector<float>>& state() override { return velocity_; }

private:
    float momentum_, decay_;
    std::vector<std::vector<float>> velocity_;
};

} // namespace nw
