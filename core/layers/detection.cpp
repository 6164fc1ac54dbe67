#include "layers/detection.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/softmax.h"
#include "layers/detection_heads.h"
#include "layers/detection_loss.h"
#include "runtime/layer_runtime.h"

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/gpu_exec.h"
#include "backend/cuda/gpu_host_head.h"
#endif

#include <algorithm>

namespace nw {

std::unique_ptr<LayerConfig> DetectionLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<DetectionLayer>();
    l->coords = r.getInt("coords", 1);
    l->classes = r.getInt("classes", 1);
    l->rescore = r.getFlag("rescore", false);
    l->num = r.getInt("num", 1);
    l->side = r.getInt("side", 7);
    l->softmax = r.getFlag("softmax", false);
    l->sqrt = r.getFlag("sqrt", false);
    l->forced = r.getFlag("forced", false);
    l->random = r.getFlag("random", false);
    l->coordScale = r.getFloat("coord_scale", 1);
    l->objectScale = r.getFloat("object_scale", 1);
    l->noobjectScale = r.getFloat("noobject_scale", 1);
    l->classScale = r.getFloat("class_scale", 1);
    l->maxBoxes = r.getInt("max", 90);
    l->jitter = r.getFloat("jitter", 0.2f);
    r.accept({"reorg"});
    if (l->side < 1 || l->num < 1 || l->classes < 0)
        r.error("side", "side and num must be at least 1, and classes not negative");
    // Darknet's default is 1, but its decoder and loss read 4 per box (x, y, w, h) whatever coords
    // says: another value read past the output. YOLOv1's cfgs set coords=4.
    if (l->coords != 4)
        r.error("coords", "coords=" + std::to_string(l->coords) +
                              ": a [detection] box has 4 (x, y, w, h): set coords=4, as YOLOv1's cfgs do");
    if (auto problem = maxBoxesProblem(l->maxBoxes, 90))
        r.error("max", *problem);
    return l;
}

LayerResult DetectionLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    const std::int64_t inputs = ctx.input().size;
    // (held at INT64_MAX rather than wrapping: side=2147483647 said "needs -4611686082851897329")
    const std::int64_t needed = saturatingProduct(
        {side, side, saturatingSum({saturatingProduct({1LL + coords, num}), std::int64_t(classes)})});
    if (inputs != needed) {
        if (!ctx.inputKnown()) // (behind a layer with an error: that one message is enough)
            return result;
        ctx.error("[detection] with side " + std::to_string(side) + ", num " + std::to_string(num) +
                      ", coords " + std::to_string(coords) + " and classes " + std::to_string(classes) +
                      " needs " + std::to_string(needed) +
                      " input values (side²·((1+coords)·num+classes)) but gets " + std::to_string(inputs) +
                      ": set output=" + std::to_string(needed) + " in the layer before it",
                  "side");
        return result;
    }
    result.output = Shape::flat(inputs);
    return result;
}

namespace {

// YOLOv1: the input as is, with a softmax over each cell's class scores when softmax=1. While
// training, the forward pass also computes the deltas against the truth (detection_loss.cpp).
class DetectionRuntime final : public RuntimeLayer {
public:
    DetectionRuntime(const DetectionLayer& config, int index) : config_(config), index_(index) {}
    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
        const std::size_t classes = std::size_t(config_.classes);
        if (config_.softmax)
            for (int b = 0; b < args.output.batch(); ++b)
                for (std::size_t cell = 0; cell < std::size_t(config_.side * config_.side); ++cell) {
                    float* p = args.output.item(b) + cell * classes;
                    softmax(p, classes, 1, 1.0f, p);
                }
        if (args.context.training && args.context.truth)
            computeDeltas(args.output, args.context);
    }

    bool canTrain() const override { return config_.coords == 4; }

    // As in Darknet, the deltas go to the layer before as they are (the softmax is not differentiated).
    void backward(BackwardArgs& args) override { passLossDelta(args, delta_); }

#if NETWRIGHT_WITH_CUDA
    // On the host, as [region]: the input down, the CPU's own forward (and loss while training), the
    // output and the deltas up. A yolov1 head is a few thousand values.
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        hostHead_.forward(
            args, Shape::flat(std::int64_t(args.outputItemSize)),
            [this](ForwardArgs& host) { forward(host); }, delta_);
    }
    // Its forward runs on the host: no CUDA graph can replay it.
    bool gpuForwardCapturable() const override
    {
        return false;
    }
    bool hasGpuBackward(std::span<const Shape> sources) const override
    {
        return hasGpuForward(sources) && canTrain();
    }
    // passLossDelta's rule: the head's deltas plus any a later layer added go to the layer before.
    void backwardGpu(GpuBackwardArgs& args) override
    {
        hostHead_.backward(args);
    }
#endif

private:
    void computeDeltas(const Tensor& output, ExecContext& context)
    {
        delta_.assign(output.size(), 0.0f);
        HeadStats stats;
        stats.layer = index_;
        const bool randomPick = config_.random && context.seen < 64000;
        for (int b = 0; b < output.batch(); ++b)
            detectionDeltas(config_, output.item(b), context.truth + std::size_t(b) * context.truthStride,
                            int(context.truthStride / 5), randomPick, context.random,
                            delta_.data() + std::size_t(b) * output.itemSize(), stats);
        for (float d : delta_)
            stats.loss += double(d) * d;
        finishHeadStats(stats, double(output.batch()) * config_.num * config_.side * config_.side);
        context.addLoss(stats.loss);
        if (context.heads)
            context.heads->push_back(stats);
    }

    const DetectionLayer config_;
    int index_;
    std::vector<float> delta_;
#if NETWRIGHT_WITH_CUDA
    GpuHostHead hostHead_; // a GPU pass's head, on the host
#endif
};

} // namespace

std::unique_ptr<RuntimeLayer> DetectionLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<DetectionRuntime>(*this, spec.index);
}

} // namespace nw
