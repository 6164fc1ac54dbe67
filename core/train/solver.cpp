#include "train/solver.h"

#include "train/adam.h"
#include "train/sgd.h"

namespace nw {

std::unique_ptr<Solver> makeSolver(const NetConfig& net)
{
    if (net.adam)
        return std::make_unique<AdamSolver>(net.b1, net.b2, net.eps, net.decay);
    return std::make_unique<SgdSolver>(net.momentum, net.decay);
}

} // namespace nw
