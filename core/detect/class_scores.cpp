#include "detect/class_scores.h"

#include "layers/layer_config.h"
#include "layers/softmax_tree.h"

namespace nw {

std::vector<float> classScores(const Net& net, int item)
{
    const Tensor& out = net.output();
    std::vector<float> scores(out.item(item), out.item(item) + out.itemSize());
    // As Darknet's net->hierarchy: any tree softmax whose classes are the output's (darknet9000 ends with
    // a [cost] after it).
    for (const LayerSpec& layer : net.spec().layers)
        if (const SoftmaxTree* tree = layer.config ? layer.config->classTree() : nullptr;
            tree && tree->size() == int(scores.size())) {
            hierarchyPredictions(scores.data(), *tree, 1, true);
            break;
        }
    return scores;
}

bool scoresAreProbabilities(const NetworkSpec& spec)
{
    for (auto layer = spec.layers.rbegin(); layer != spec.layers.rend(); ++layer) {
        if (layer->isLossOnly() || layer->type == "dropout")
            continue; // (they pass their input on at inference)
        if (layer->type == "softmax" || layer->type == "logistic")
            return true;
        // (as read, with its default: a [connected] without activation= is logistic, as in Darknet)
        const std::string* activation = layer->config ? layer->config->outputActivation() : nullptr;
        return activation && *activation == "logistic";
    }
    return false;
}

} // namespace nw
