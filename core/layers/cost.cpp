#include "layers/cost.h"

#include "graph/layer_spec.h"
#include "runtime/layer_runtime.h"
#include <algorithm>
#include <cmath>

namespace nw {

std::unique_ptr<LayerConfig> CostLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<CostLayer>();
    l->type = r.getString("type", "sse");
    l->scale = r.getFloat("scale", 1);
    r.accept({"ratio", "noobj", "thresh"});
    if (l->type != "sse" && l->type != "masked" && l->type != "smooth" && l->type != "L1" &&
        l->type != "seg" && l->type != "wgan")
        r.warning("type", "unknown cost type '" + l->type +
                              "': Darknet uses sse (known: sse, masked, smooth, L1, seg, "
                              "wgan)");
    return l;
}

LayerResult CostLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    result.output = Shape::flat(ctx.input().size);
    return result;
}

namespace {

// The values pass through. While training, the loss of the input against the truth (Darknet's
// forward_cost_layer): sse ½-less squares, L1, smooth L1, masked sse (truth −1234 ignored), wgan.
class CostRuntime final : public RuntimeLayer {
public:
    CostRuntime(std::string type, float scale) : type_(std::move(type)), scale_(scale) {}
    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
        delta_.clear();
        if (!args.context.training || !args.context.truth ||
            args.context.truthStride != args.input.itemSize())
            return;
        delta_.assign(args.input.size(), 0.0f);
        double loss = 0;
        for (std::size_t i = 0; i < delta_.size(); ++i) {
            const float truth = args.context.truth[i], predicted = args.input.data()[i];
            const float diff = truth - predicted;
            if (type_ == "masked" && truth == -1234.0f) // Darknet's SECRET_NUM: no truth here
                continue;
            if (type_ == "L1") {
                delta_[i] = diff > 0 ? 1.0f : diff < 0 ? -1.0f : 0.0f;
                loss += std::fabs(diff);
            } else if (type_ == "smooth" && std::fabs(diff) >= 1) {
                delta_[i] = diff > 0 ? 1.0f : -1.0f;
                loss += 2 * std::fabs(diff) - 1;
            } else if (type_ == "wgan") {
                delta_[i] = truth != 0 ? -1.0f : 1.0f;
                loss += truth != 0 ? -predicted : predicted;
            } else { // sse, masked, smooth inside ±1, seg
                delta_[i] = diff;
                loss += double(diff) * diff;
            }
        }
        args.context.loss += scale_ * loss;
    }

    bool canTrain() const override { return true; }

    void backward(BackwardArgs& args) override
    {
        if (!args.inputDelta)
            return;
        float* in = args.inputDelta->data();
        const float* out = args.outputDelta.data();
        for (std::size_t i = 0; i < args.output.size(); ++i)
            in[i] += out[i] + (delta_.empty() ? 0.0f : scale_ * delta_[i]);
    }

private:
    std::string type_;
    float scale_;
    std::vector<float> delta_;
};

} // namespace

std::unique_ptr<RuntimeLayer> CostLayer::createRuntime(const LayerSpec&) const
{
    return std::make_unique<CostRuntime>(type, scale);
}

} // namespace nw
