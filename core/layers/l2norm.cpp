#include "layers/l2norm.h"

#include "graph/layer_spec.h"
#include "runtime/layer_runtime.h"
#include <algorithm>
#include <cmath>

namespace nw {

std::unique_ptr<LayerConfig> L2normLayer::parse(cfg::SectionReader&)
{
    return std::make_unique<L2normLayer>();
}

LayerResult L2normLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    result.output = ctx.input();
    return result;
}

namespace {

// Divides each pixel's channel vector by its L2 norm.
class L2normRuntime final : public RuntimeLayer {
public:
    explicit L2normRuntime(const Shape& shape) : shape_(shape) {}
    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
        const std::size_t plane = std::size_t(std::max(1, shape_.w * shape_.h));
        const std::size_t channels = args.output.itemSize() / plane;
        norms_.resize(std::size_t(args.output.batch()) * plane);
        for (int b = 0; b < args.output.batch(); ++b)
            for (std::size_t i = 0; i < plane; ++i) {
                float* p = args.output.item(b) + i;
                float sum = 0;
                for (std::size_t c = 0; c < channels; ++c)
                    sum += p[c * plane] * p[c * plane];
                sum = std::sqrt(sum);
                norms_[std::size_t(b) * plane + i] = sum;
                for (std::size_t c = 0; c < channels; ++c)
                    p[c * plane] /= sum;
            }
    }

    bool canTrain() const override { return true; }

    // y = x/‖x‖: −∂loss/∂x_c = (δ_c − y_c·Σ_k δ_k y_k) / ‖x‖, per pixel.
    void backward(BackwardArgs& args) override
    {
        if (!args.inputDelta)
            return;
        const std::size_t plane = std::size_t(std::max(1, shape_.w * shape_.h));
        const std::size_t channels = args.output.itemSize() / plane;
        for (int b = 0; b < args.output.batch(); ++b)
            for (std::size_t i = 0; i < plane; ++i) {
                const float* y = args.output.item(b) + i;
                const float* delta = args.outputDelta.item(b) + i;
                float* in = args.inputDelta->item(b) + i;
                double dot = 0;
                for (std::size_t c = 0; c < channels; ++c)
                    dot += double(delta[c * plane]) * y[c * plane];
                const float norm = norms_[std::size_t(b) * plane + i];
                for (std::size_t c = 0; c < channels; ++c)
                    in[c * plane] += float((delta[c * plane] - y[c * plane] * dot) / norm);
            }
    }

private:
    Shape shape_;
    std::vector<float> norms_; // ‖x‖ per pixel of the last forward
};

} // namespace

std::unique_ptr<RuntimeLayer> L2normLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<L2normRuntime>(spec.output);
}

} // namespace nw
