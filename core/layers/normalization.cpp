#include "layers/normalization.h"

#include "graph/network_spec.h"
#include "runtime/layer_runtime.h"
#include <cmath>
#include <vector>

namespace nw {

std::unique_ptr<LayerConfig> NormalizationLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<NormalizationLayer>();
    l->alpha = r.getFloat("alpha", 0.0001f);
    l->beta = r.getFloat("beta", 0.75f);
    l->kappa = r.getFloat("kappa", 1);
    l->size = r.getInt("size", 5);
    if (l->size < 1)
        r.error("size", "size must be at least 1");
    return l;
}

LayerResult NormalizationLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (!ctx.requireImage("normalization"))
        return result;
    const Shape& in = ctx.input();
    result.output = Shape::image(in.w, in.h, in.c);
    return result;
}

namespace {

// Local response normalisation exactly as pjreddie computes it (including its running window).
class NormalizationRuntime final : public RuntimeLayer {
public:
    NormalizationRuntime(const NormalizationLayer& config, const Shape& shape)
        : config_(config), shape_(shape)
    {
    }
    void forward(ForwardArgs& args) override
    {
        const std::size_t plane = std::size_t(shape_.w) * std::size_t(shape_.h);
        const int c = shape_.c;
        std::vector<float> squared(args.input.itemSize()), norms(args.input.itemSize());
        for (int b = 0; b < args.output.batch(); ++b) {
            const float* in = args.input.item(b);
            for (std::size_t i = 0; i < squared.size(); ++i)
                squared[i] = in[i] * in[i];
            std::fill(norms.begin(), norms.begin() + std::ptrdiff_t(plane), config_.kappa);
            for (int k = 0; k < config_.size / 2; ++k)
                for (std::size_t i = 0; i < plane; ++i)
                    norms[i] += config_.alpha * squared[std::size_t(k) * plane + i];
            for (int k = 1; k < c; ++k) {
                float* norm = norms.data() + std::size_t(k) * plane;
                std::copy(norm - plane, norm, norm);
                const int prev = k - (config_.size - 1) / 2 - 1, next = k + config_.size / 2;
                for (std::size_t i = 0; i < plane; ++i) {
                    if (prev >= 0)
                        norm[i] -= config_.alpha * squared[std::size_t(prev) * plane + i];
                    if (next < c)
                        norm[i] += config_.alpha * squared[std::size_t(next) * plane + i];
                }
            }
            float* out = args.output.item(b);
            for (std::size_t i = 0; i < norms.size(); ++i)
                out[i] = in[i] * std::pow(norms[i], -config_.beta);
        }
    }

private:
    const NormalizationLayer config_;
    Shape shape_;
};

} // namespace

std::unique_ptr<RuntimeLayer> NormalizationLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<NormalizationRuntime>(*this, spec.output);
}

} // namespace nw
