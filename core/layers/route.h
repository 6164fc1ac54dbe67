#pragma once
#include "layers/layer_config.h"

namespace nw {

// [route]: concatenates the outputs of `layers` (negative = relative) along channels. Inputs of
// different spatial sizes give Darknet's flat concatenation (w = h = c = 0). AB: groups/group_id take
// channel block group_id of `groups` from each input (the yolov4-tiny split).
class RouteLayer final : public LayerConfig {
public:
    std::vector<int> layers;
    int groups = 1, groupId = 0;

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string filtersText() const override;
};

} // namespace nw
