#pragma once
#include "layers/layer_config.h"

namespace nw {

// [convolutional] / [conv]: filters × (c/groups) × size × size kernels over the input image.
// pad=1 means padding = size/2 per side; otherwise `padding` is the explicit per-side padding.
// Output (w + 2·padding − size)/stride + 1 per axis (AB: stride_x/stride_y). Activation defaults to
// logistic, as in Darknet.
class ConvolutionalLayer final : public LayerConfig {
public:
    int filters = 1, size = 1, strideX = 1, strideY = 1, padding = 0, groups = 1, dilation = 1;
    bool batchNormalize = false, binary = false, xnor = false, flipped = false;
    std::string activation = "logistic";
    const std::string* outputActivation() const override { return &activation; }
    int trainingOutputCopies() const override
    {
        return LayerConfig::trainingOutputCopies() + (batchNormalize ? 2 : 0);
    }

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::string filtersText() const override { return std::to_string(filters); }
    std::string sizeText() const override { return kernelText(size, strideX, strideY); }
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
};

} // namespace nw
