// init: a .weights file with Darknet-style random initial weights for a cfg (a fixed starting point
// for training, or weights for benchmarks and tests when no trained ones exist).
// partial: the first layers of trained weights, to start another network's training from.
#include "commands.h"
#include "net_loading.h"
#include "util/file_check.h"

#include <iostream>

namespace nw::cli {

int initWeights(const std::string& cfg, const std::string& out, unsigned seed)
{
    if (auto problem = outputIsAnInput(out, {cfg})) {
        std::cerr << "error: " << *problem << "\n";
        return 1;
    }
    // Weights only: the layers' outputs shared as for inference (yolov4: 1.3 GB and 8.9 s held every
    // output before). A recurrent layer's batch is whole sequences, and it keeps its own buffers.
    const int steps = timeSteps(cfg);
    auto net = loadNet(cfg, "", steps, {}, steps > 1 ? Net::Use::Everything : Net::Use::InferenceOnly);
    if (!net)
        return 1;
    net->initialize(seed);
    if (auto problem = net->saveWeights(out)) {
        std::cerr << "error: " << *problem << "\n";
        return 1;
    }
    return 0;
}

int partialWeights(const std::string& cfg, const std::string& weights, const std::string& out, int layers)
{
    if (auto problem = outputIsAnInput(out, {cfg, weights})) {
        std::cerr << "error: " << *problem << "\n";
        return 1;
    }
    auto net = loadNet(cfg, weights, timeSteps(cfg)); // the whole network's: a backbone of one is refused
    if (!net)
        return 1;
    const int count = int(net->spec().layers.size());
    if (layers > count) {
        std::cerr << "error: " << cfg << " has " << count << " layers (0.." << count - 1 << "); " << layers
                  << " cannot be written: give at most " << count << "\n";
        return 1;
    }
    if (auto problem = net->saveWeights(out, layers)) {
        std::cerr << "error: " << *problem << "\n";
        return 1;
    }
    std::cout << out << ": layers 0.." << layers - 1 << " of " << cfg << " (seen 0)\n";
    return 0;
}

} // namespace nw::cli
