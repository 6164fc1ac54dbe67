#pragma once
// A solver turns the gradients accumulated over a batch into a weight update. Darknet has two: SGD with
// momentum (train/sgd.h) and Adam (train/adam.h, `adam=1` in [net]).
#include "graph/net_config.h"
#include "runtime/net.h"

#include <memory>
#include <vector>

namespace nw {

class Solver {
public:
    virtual ~Solver() = default;
    // Applies one update to every parameter (rate: the policy's learning rate; batchSize: images the
    // gradients were summed over) and clears the accumulated gradients.
    virtual void step(std::vector<Net::LayerParameters>& layers, float rate, int batchSize) = 0;
    // Everything the solver carries from one step to the next, in parameter order (checkpoints).
    virtual std::vector<std::vector<float>>& state() = 0;
};

// The solver [net] asks for: Adam with adam=1 (B1, B2, eps), else SGD with momentum; both with decay.
std::unique_ptr<Solver> makeSolver(const NetConfig& net);

} // namespace nw
