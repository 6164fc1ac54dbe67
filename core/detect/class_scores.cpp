#include "detect/class_scores.h"

#include "layers/layer_config.h"
#include "layers/softmax_tree.h"

namespace nw {

std::vector<float> classScores(const Net& net, int item)
{
    const Tensor& out = net.output();
    std::vector<float> scores(out.item(item), out.item(item) + out.itemSize());
    const NetworkSpec& spec = net.spec();
    const LayerSpec& last = spec.layers.back();
    if (last.config)
        if (const SoftmaxTree* tree = last.config->classTree(); tree && tree->size() == int(scores.size()))
            hierarchyPredictions(scores.data(), *tree, 1, true);
    return scores;
}

} // namespace nw
