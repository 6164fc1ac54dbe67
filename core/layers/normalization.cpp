#include "layers/normalization.h"

#include "graph/layer_spec.h"
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
        : config_(config), shape_(shape), window_(windowCounts())
    {
    }
    void forward(ForwardArgs& args) override
    {
        const std::size_t plane = std::size_t(shape_.w) * std::size_t(shape_.h);
        const int c = shape_.c;
        savedNorms_.clear();
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
            if (args.context.training)
                savedNorms_.insert(savedNorms_.end(), norms.begin(), norms.end());
        }
    }

    bool canTrain() const override { return true; }

    // y_k = x_k·n_k^−β with n_k = κ + α·Σ_j w_kj·x_j², w_kj the counts Darknet's running window gives
    // (its quirks included: the forward matches libdarknet). The exact gradient:
    // −∂loss/∂x_j = δ_j·n_j^−β − 2αβ·x_j·Σ_k w_kj·δ_k·x_k·n_k^(−β−1)
    // (Darknet's CPU backward keeps only the first term).
    void backward(BackwardArgs& args) override
    {
        if (!args.inputDelta)
            return;
        const std::size_t plane = std::size_t(shape_.w) * std::size_t(shape_.h);
        const int c = shape_.c;
        for (int b = 0; b < args.output.batch(); ++b) {
            const float* x = args.input.item(b);
            const float* delta = args.outputDelta.item(b);
            const float* n = savedNorms_.data() + std::size_t(b) * args.input.itemSize();
            float* in = args.inputDelta->item(b);
            for (int k = 0; k < c; ++k)
                for (std::size_t i = 0; i < plane; ++i) {
                    const std::size_t at = std::size_t(k) * plane + i;
                    in[at] += delta[at] * std::pow(n[at], -config_.beta);
                    const float common = -2 * config_.alpha * config_.beta * delta[at] * x[at] *
                                         std::pow(n[at], -config_.beta - 1);
                    for (const auto& [j, count] : window_[std::size_t(k)])
                        in[std::size_t(j) * plane + i] +=
                            float(count) * common * x[std::size_t(j) * plane + i];
                }
        }
    }

private:
    // For each channel k, the channels j whose squares its norm sums, with their counts, built by the
    // forward's own running-window steps.
    std::vector<std::vector<std::pair<int, int>>> windowCounts() const
    {
        const int c = shape_.c;
        std::vector<int> current(std::size_t(c), 0);
        for (int j = 0; j < std::min(c, config_.size / 2); ++j)
            ++current[std::size_t(j)];
        std::vector<std::vector<std::pair<int, int>>> result(static_cast<std::size_t>(c));
        for (int k = 0; k < c; ++k) {
            if (k > 0) {
                const int prev = k - (config_.size - 1) / 2 - 1, next = k + config_.size / 2;
                if (prev >= 0)
                    --current[std::size_t(prev)];
                if (next < c)
                    ++current[std::size_t(next)];
            }
            for (int j = 0; j < c; ++j)
                if (current[std::size_t(j)] != 0)
                    result[std::size_t(k)].emplace_back(j, current[std::size_t(j)]);
        }
        return result;
    }

    const NormalizationLayer config_;
    Shape shape_;
    const std::vector<std::vector<std::pair<int, int>>> window_; // windowCounts(), fixed by the shape
    std::vector<float> savedNorms_; // n per value, batch after batch, of the last training forward
};

} // namespace

std::unique_ptr<RuntimeLayer> NormalizationLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<NormalizationRuntime>(*this, spec.output);
}

} // namespace nw
