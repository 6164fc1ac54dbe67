#pragma once
#include "layers/layer_config.h"

namespace nw {

// [local]: a locally connected layer (a convolution whose weights differ at each output location).
// `pad` is Darknet's: the padding in pixels, and when it is not 0 the output is (in − 1)/stride + 1, else
// (in − size)/stride + 1 (size=5 pad=2 keeps the size; it was read as a flag, one pixel).
class LocalLayer final : public LayerConfig {
public:
    int filters = 1, size = 1, stride = 1;
    int pad = 0;
    std::string activation = "logistic";
    const std::string* outputActivation() const override { return &activation; }

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
    std::string filtersText() const override { return std::to_string(filters); }
    std::string sizeText() const override { return kernelText(size, stride, stride); }
};

} // namespace nw
