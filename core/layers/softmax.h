#pragma once
#include "layers/layer_config.h"
#include "layers/softmax_tree.h"

namespace nw {

// [softmax] / [soft]: softmax(x / temperature) over `groups` contiguous chunks of the input, or with
// tree= over each group of a class hierarchy (darknet9000; inference only).
// The output is flat (Darknet leaves its w, h, c at 0).
class SoftmaxLayer final : public LayerConfig {
public:
    int groups = 1;
    float temperature = 1;
    std::string tree;                               // tree= as written
    std::shared_ptr<const SoftmaxTree> softmaxTree; // read when parsed (yolo9000's hierarchy)

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    const SoftmaxTree* classTree() const override { return softmaxTree.get(); }
};

} // namespace nw
