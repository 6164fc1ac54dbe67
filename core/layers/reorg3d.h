#pragma once
#include "layers/layer_config.h"

namespace nw {

// [reorg3d] (AB): true space-to-depth, w/s × h/s × c·s² (reverse=1: AlexeyAB's reverse, which pairs the
// values over the output's dims as its reorg_cpu does — not the exact inverse).
class Reorg3dLayer final : public LayerConfig {
public:
    int stride = 1;
    bool reverse = false;

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string sizeText() const override { return "/" + std::to_string(stride); }
};

} // namespace nw
