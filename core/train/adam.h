#pragma once
// Darknet's Adam (adam_update_gpu; `adam=1`, B1, B2, eps in [net]), on the summed −gradient d of a batch:
//   d += −decay·B·w (weights only);  m = B1·m + (1 − B1)·d;  v = B2·v + (1 − B2)·d²;
//   w += rate · (m / (1 − B1^t)) / (sqrt(v / (1 − B2^t)) + eps),  t = the number of updates so far.
// Equal to PyTorch's Adam with weight_decay = decay on the batch-mean gradient (d/B scales m/√v by 1).
#include "train/solver.h"

namespace nw {

class AdamSolver final : public Solver {
public:
    AdamSolver(float b1, float b2, float eps, float decay) : b1_(b1), b2_(b2), eps_(eps), decay_(decay) {}

    void step(std::vector<Net::LayerParameters>& layers, float rate, int batchSize) override;
    // m of every parameter, then v of every parameter, then {t}: one list for checkpoints.
    std::vector<std::vector<float>>& state() override { return state_; }

private:
    float b1_, b2_, eps_, decay_;
    std::vector<std::vector<float>> state_;
};

} // namespace nw
