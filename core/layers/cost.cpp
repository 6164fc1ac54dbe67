#include "layers/cost.h"

#include "graph/layer_spec.h"
#include "runtime/layer_runtime.h"
#include <algorithm>
#include <cmath>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/gpu_exec.h"
#include "backend/cuda/gpu_loss_delta.h"
#endif

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
        if (args.context.training && args.context.truth && args.context.truthStride == args.input.itemSize())
            lossAgainstTruth(args.input.data(), args.input.size(), args.context);
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

#if NETWRIGHT_WITH_CUDA
    // The values pass through on the device; the loss is taken on the host (its inputs are few) and
    // its scaled deltas go up.
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        const std::size_t n = args.outputItemSize * std::size_t(args.batch);
        args.gpu.copyOnDevice(args.input, args.output, n, "[cost]");
        delta_.clear();
        gpuDelta_.clear();
        const ExecContext* context = args.training;
        if (!context || !context->truth || context->truthStride != args.inputItemSize)
            return;
        std::vector<float> input(n);
        args.gpu.copyToHost(args.input, input);
        lossAgainstTruth(input.data(), n, *args.training);
        for (std::size_t i = 0; i < n; ++i) // the backward pass adds scale·delta
            input[i] = scale_ * delta_[i];
        gpuDelta_.upload(args.gpu, input);
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    void backwardGpu(GpuBackwardArgs& args) override
    {
        gpuDelta_.passBack(args, true);
    }
#endif

private:
    // Darknet's forward_cost_layer on `n` predictions: delta_ (unscaled) and the scaled loss.
    void lossAgainstTruth(const float* input, std::size_t n, ExecContext& context)
    {
        delta_.assign(n, 0.0f);
        double loss = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const float truth = context.truth[i], predicted = input[i];
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
        context.addLoss(scale_ * loss);
    }

    std::string type_;
    float scale_;
    std::vector<float> delta_;
#if NETWRIGHT_WITH_CUDA
    GpuLossDelta gpuDelta_; // scale·delta of a GPU training pass
#endif
};

} // namespace

std::unique_ptr<RuntimeLayer> CostLayer::createRuntime(const LayerSpec&) const
{
    return std::make_unique<CostRuntime>(type, scale);
}

} // namespace nw
