// init: a .weights file with Darknet-style random initial weights for a cfg (a fixed starting point
// for training, or weights for benchmarks and tests when no trained ones exist).
#include "commands.h"
#include "net_loading.h"

#include <iostream>

namespace nw::cli {

int initWeights(const std::string& cfg, const std::string& out, unsigned seed)
{
    auto net = loadNet(cfg, "", timeSteps(cfg)); // (a recurrent layer's batch is whole sequences)
    if (!net)
        return 1;
    net->initialize(seed);
    if (auto problem = net->saveWeights(out)) {
        std::cerr << "error: " << *problem << "\n";
        return 1;
    }
    return 0;
}

} // namespace nw::cli
