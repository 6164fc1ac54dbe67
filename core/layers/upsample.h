#pragma once
#include "layers/layer_config.h"

namespace nw {

// [upsample]: nearest-neighbour upsampling by `stride` (default 2), times `scale`. A negative stride
// downsamples instead, summing each |stride|×|stride| block.
class UpsampleLayer final : public LayerConfig {
public:
    int stride = 2;
    float scale = 1;

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string sizeText() const override
    {
        return (stride < 0 ? "/" : "x") + std::to_string(stride < 0 ? -stride : stride);
    }
};

} // namespace nw
