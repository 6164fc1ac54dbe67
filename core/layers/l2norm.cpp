#include "layers/l2norm.h"

#include "graph/network_spec.h"
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
        for (int b = 0; b < args.output.batch(); ++b)
            for (std::size_t i = 0; i < plane; ++i) {
                float* p = args.output.item(b) + i;
                float sum = 0;
                for (std::size_t c = 0; c < channels; ++c)
                    sum += p[c * plane] * p[c * plane];
                sum = std::sqrt(sum);
                for (std::size_t c = 0; c < channels; ++c)
                    p[c * plane] /= sum;
            }
    }

private:
    Shape shape_;
};

} // namespace

std::unique_ptr<RuntimeLayer> L2normLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<L2normRuntime>(spec.output);
}

} // namespace nw
