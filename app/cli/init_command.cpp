// init: a .weights file with Darknet-style random initial weights for a cfg (a fixed starting point
// for training, or weights for benchmarks and tests when no trained ones exist).
// partial: the first layers of trained weights, to start another network's training from.
#include "cfg/document.h"
#include "commands.h"
#include "graph/network_spec.h"
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
    const int steps = timeSteps(cfg);
    // The whole network: its errors, and how many layers it has (without training buffers: yolov4 took
    // 1.9 GB with them).
    auto net = loadNet(cfg, "", steps, {}, steps > 1 ? Net::Use::Everything : Net::Use::InferenceOnly);
    if (!net)
        return 1;
    const int count = int(net->spec().layers.size());
    if (layers > count) {
        std::cerr << "error: " << cfg << " has " << count << " layers (0.." << count - 1 << "); " << layers
                  << " cannot be written: give at most " << count << "\n";
        return 1;
    }
    // The file is read as this network's (or its first layers': a backbone cut shorter, yolov4-tiny.conv.29
    // to 20). One that does not fit the whole is refused (another network's weights, yolov4.weights for
    // yolov4-tiny, hold bytes enough for any first layers); with --allow-extra only the layers written
    // must fit, as Darknet's partial reads just those (AlexeyAB's README cuts yolov4-tiny.weights of 80
    // classes with a cfg of its own classes).
    // Only the layers written need to be in the file: the network up to them reads it.
    cfg::Document front = cfg::Document::load(cfg);
    while (front.sections().size() > std::size_t(layers) + 1)
        front.removeSection(front.sections().size() - 1);
    SpecOptions options;
    options.batch = steps;
    std::string error;
    auto head = Net::create(buildNetworkSpec(front, options), steps, error,
                            steps > 1 ? Net::Use::Everything : Net::Use::InferenceOnly);
    if (!head) {
        std::cerr << cfg << ": error: " << error << "\n";
        return 1;
    }
    std::vector<std::string> headWarnings;
    if (auto problem = head->loadWeights(weights, &headWarnings, {true, false, {}})) {
        std::cerr << "error: " << *problem << " (partial " << layers << " needs layers 0.." << layers - 1
                  << ")\n";
        return 1;
    }
    // Then the whole network, to tell: a file that is not all of it (another network's: yolov4.weights for
    // yolov4-tiny holds bytes enough for any first layers) is refused, unless --allow-extra.
    std::vector<std::string> warnings;
    if (const auto whole = net->loadWeights(weights, &warnings, {false, true, {}})) {
        if (!extraWeightsAllowed()) {
            std::cerr << "error: " << *whole << " (partial: if only the layers after " << layers - 1
                      << " differ — a cfg of other classes than the weights', as AlexeyAB's README cuts "
                         "yolov4-tiny.weights — --allow-extra writes layers 0.."
                      << layers - 1 << " all the same)\n";
            return 1;
        }
        std::cerr << "warning: " << weights << " is not all of " << cfg << "; --allow-extra: its layers 0.."
                  << layers - 1 << " are written as they come in the file\n";
    }
    // NaN in the layers written (they went into a backbone unsaid); not what the whole network's load
    // says of the layers left out (a backbone's "start from random weights", --allow-extra's bytes).
    for (const std::string& warning : headWarnings)
        if (warning.find("are NaN or infinite") != std::string::npos)
            std::cerr << "warning: " << warning << "\n";
    if (auto problem = head->saveWeights(out, layers)) {
        std::cerr << "error: " << *problem << "\n";
        return 1;
    }
    reportStreamFor(out) << out << ": layers 0.." << layers - 1 << " of " << cfg << " (seen 0)\n";
    return 0;
}

} // namespace nw::cli
