#pragma once
#include "layers/layer_config.h"

namespace nw {

// [reorg]: Darknet's (quirky-order) space-to-depth: w/s × h/s × c·s²; reverse=1 goes back. pj's
// extra=N appends N values and makes the output flat.
class ReorgLayer final : public LayerConfig {
public:
    int stride = 1, extra = 0;
    bool reverse = false, flatten = false;

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string sizeText() const override { return "/" + std::to_string(stride); }
};

// Output of a space-to-depth (or its reverse) shared by [reorg] and [reorg3d]; reports bad strides.
Shape spaceToDepthShape(LayerContext& context, int stride, bool reverse);

// Darknet's reorg_cpu pairing run over `dims`: [reorg] passes its input's dims, AlexeyAB's [reorg3d] its
// output's (which makes the non-reverse form a true space-to-depth).
std::unique_ptr<RuntimeLayer> reorgRuntime(const ReorgLayer& config, const Shape& dims);

} // namespace nw
