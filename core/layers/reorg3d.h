#pragma once
#include "layers/layer_config.h"

namespace nw {

// [reorg3d] (AB): true space-to-depth, w/s × h/s × c·s² (reverse=1 goes back).
class Reorg3dLayer final : public LayerConfig {
public:
    int stride = 1;
    bool reverse = false;

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::string sizeText() const override { return "/" + std::to_string(stride); }
};

} // namespace nw
