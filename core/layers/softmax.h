#pragma once
#include "layers/layer_config.h"

namespace nw {

// [softmax] / [soft]: softmax(x / temperature) over `groups` contiguous chunks of the input.
// The output is flat (Darknet leaves its w, h, c at 0).
class SoftmaxLayer final : public LayerConfig {
public:
    int groups = 1;
    float temperature = 1;
    std::string tree;

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string missingRuntimeReason() const override
    {
        return "uses yolo9000's hierarchical softmax (tree=" + tree + "), which is not supported yet";
    }
};

} // namespace nw
