#pragma once
#include "layers/layer_config.h"

namespace nw {

// [maxpool] / [max]: size defaults to stride, padding to size − 1 (total, not per side).
// Output (in + padding − size)/stride + 1. AB: stride_x/stride_y, and maxpool_depth=1 which pools
// across channels instead (spatial size kept, out_channels outputs).
class MaxpoolLayer final : public LayerConfig {
public:
    int size = 1, strideX = 1, strideY = 1, padding = 0;
    bool depth = false;
    int outChannels = 1;

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string sizeText() const override { return kernelText(size, strideX, strideY); }
};

} // namespace nw
