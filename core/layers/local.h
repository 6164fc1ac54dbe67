#pragma once
#include "layers/layer_config.h"

namespace nw {

// [local]: a locally connected layer (a convolution whose weights differ at each output location).
// `pad` is a flag: output (in − 1)/stride + 1 with it, (in − size)/stride + 1 without.
class LocalLayer final : public LayerConfig {
public:
    int filters = 1, size = 1, stride = 1;
    bool pad = false;
    std::string activation = "logistic";

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string filtersText() const override { return std::to_string(filters); }
    std::string sizeText() const override { return kernelText(size, stride, stride); }
};

} // namespace nw
