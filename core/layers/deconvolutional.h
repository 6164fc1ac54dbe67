#pragma once
#include "layers/layer_config.h"

namespace nw {

// [deconvolutional] / [deconv] (pjreddie's fork): a transposed convolution.
// Output (in − 1)·stride + size − 2·padding per axis; weights c × filters × size × size.
class DeconvolutionalLayer final : public LayerConfig {
public:
    int filters = 1, size = 1, stride = 1, padding = 0;
    bool batchNormalize = false;
    std::string activation = "logistic";
    const std::string* outputActivation() const override { return &activation; }
    int trainingOutputCopies() const override
    {
        return LayerConfig::trainingOutputCopies() + (batchNormalize ? 2 : 0);
    }

    static std::unique_ptr<LayerConfig> parse(cfg::SectionReader& reader);
    LayerResult infer(LayerContext& context) const override;
    std::string filtersText() const override { return std::to_string(filters); }
    std::string sizeText() const override { return kernelText(size, stride, stride); }
    std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const override;
};

} // namespace nw
