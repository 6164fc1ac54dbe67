#include "layers/region.h"
#include "layers/detection_heads.h"

#include "layers/region_loss.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/activations.h"
#include "kernels/cpu/softmax.h"
#include "runtime/layer_runtime.h"

#include <algorithm>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/gpu_exec.h"
#include "backend/cuda/gpu_host_head.h"
#endif

namespace nw {

std::unique_ptr<LayerConfig> RegionLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<RegionLayer>();
    l->coords = r.getInt("coords", 4);
    l->classes = r.getInt("classes", 20);
    l->num = r.getInt("num", 1);
    l->softmax = r.getFlag("softmax", false);
    l->maxBoxes = r.getInt("max", 30);
    l->jitter = r.getFloat("jitter", 0.2f);
    l->random = r.getFloat("random", 0);
    l->thresh = r.getFloat("thresh", 0.5f);
    l->anchors = r.getFloatList("anchors");
    l->coordScale = r.getFloat("coord_scale", 1);
    l->objectScale = r.getFloat("object_scale", 1);
    l->noobjectScale = r.getFloat("noobject_scale", 1);
    l->classScale = r.getFloat("class_scale", 1);
    l->rescore = r.getFlag("rescore", false);
    l->biasMatch = r.getFlag("bias_match", false);
    l->tree = r.getString("tree", "");
    if (!l->tree.empty()) {
        std::string error;
        l->softmaxTree = loadTreeFor(l->tree, r.file(), error);
        if (!l->softmaxTree)
            r.error("tree", error);
    }
    r.accept({"log", "sqrt", "background", "classfix", "absolute", "mask_scale", "map"});
    if (l->num < 1)
        r.error("num", "num (the number of anchors) must be at least 1");
    if (l->classes < 0)
        r.error("classes", "classes must not be negative");
    // A box is x, y, w, h: fewer coords read the objectness and classes as coordinates (the decoder
    // read past the output); more (pjreddie's masks) are not decoded here.
    if (l->coords != 4)
        r.error("coords", "coords=" + std::to_string(l->coords) +
                              ": a [region] box has 4 (x, y, w, h); leave coords out for Darknet's 4");
    if (!l->anchors.empty() && l->num >= 1 && l->anchors.size() < 2 * std::size_t(l->num))
        r.error("anchors", "anchors has " + std::to_string(l->anchors.size()) + " numbers but num=" +
                               std::to_string(l->num) + " needs " + std::to_string(2 * std::int64_t(l->num)));
    else if (auto note = extraAnchorsNote(l->anchors.size(), l->num))
        r.warning("anchors", *note);
    if (auto problem = maxBoxesProblem(l->maxBoxes, 30))
        r.error("max", *problem);
    if (auto problem = anchorsProblem(l->anchors))
        r.error("anchors", *problem);
    return l;
}

LayerResult RegionLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (num < 1 || !ctx.requireImage("region"))
        return result;
    const Shape& in = ctx.input();
    const long long needed = num * (classes + 1LL + coords); // any ints a file holds
    if (in.c != needed) {
        ctx.error("the layer before [region] outputs " + std::to_string(in.c) + " channels but num " +
                      std::to_string(num) + " × (classes + coords + 1) = " + std::to_string(needed) +
                      " are needed: " + ctx.setFiltersBefore(needed),
                  "classes");
        return result;
    }
    if (softmaxTree && softmaxTree->size() != classes) {
        ctx.error("the class tree (" + tree + ") has " + std::to_string(softmaxTree->size()) +
                      " classes but classes=" + std::to_string(classes),
                  "tree");
        return result;
    }
    result.output = Shape::image(in.w, in.h, in.c);
    return result;
}

namespace {

// Logistic on x, y and objectness; softmax (or logistic) over the classes of each cell. While
// training, the forward pass also computes the deltas against the truth (region_loss.cpp).
class RegionRuntime final : public RuntimeLayer {
public:
    RegionRuntime(const RegionLayer& config, const LayerSpec& spec)
        : config_(config), out_(spec.output), index_(spec.index)
    {
    }
    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
        const std::size_t plane = std::size_t(out_.w) * std::size_t(out_.h);
        const std::size_t entries = std::size_t(config_.coords + 1 + config_.classes);
        const std::size_t classes = std::size_t(config_.classes);
        for (int b = 0; b < args.output.batch(); ++b)
            for (int a = 0; a < config_.num; ++a) {
                float* p = args.output.item(b) + std::size_t(a) * entries * plane;
                activateArray(p, 2 * plane, Activation::Logistic);
                activateArray(p + std::size_t(config_.coords) * plane, plane, Activation::Logistic);
                float* scores = p + std::size_t(config_.coords + 1) * plane;
                if (config_.softmaxTree) { // each group of the hierarchy at every cell (Darknet's GPU rule)
                    const float* in = args.input.item(b) + (scores - args.output.item(b));
                    for (std::size_t i = 0; i < plane; ++i)
                        treeSoftmax(in + i, scores + i, *config_.softmaxTree, plane, 1.0f);
                    continue;
                }
                if (!config_.softmax) {
                    activateArray(scores, classes * plane, Activation::Logistic);
                    continue;
                }
                const float* in = args.input.item(b) + (scores - args.output.item(b));
                for (std::size_t i = 0; i < plane; ++i)
                    softmax(in + i, classes, plane, 1.0f, scores + i);
            }
        if (args.context.training && args.context.truth)
            computeDeltas(args.output, args.context);
    }

    bool canTrain() const override { return config_.coords == 4 && config_.tree.empty(); }

    void backward(BackwardArgs& args) override { passLossDelta(args, delta_); }

#if NETWRIGHT_WITH_CUDA
    // On the host, as Darknet's GPU path does for its heads: the input down, the CPU's own forward (and
    // loss while training), the output and the deltas up. A head's values are few.
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        // (a region head keeps its input's shape)
        hostHead_.forward(
            args, out_, [this](ForwardArgs& host) { forward(host); }, delta_);
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
        const bool warmup = context.seen < 12800;
        for (int b = 0; b < output.batch(); ++b)
            regionDeltas(config_, out_.w, out_.h, output.item(b),
                         context.truth + std::size_t(b) * context.truthStride, int(context.truthStride / 5),
                         warmup, delta_.data() + std::size_t(b) * output.itemSize(), stats);
        for (float d : delta_)
            stats.loss += double(d) * d;
        // Darknet's working (GPU) path: once the loss is taken, the x, y and objectness deltas go through
        // the logistic's derivative; class deltas (softmax or logistic with cross-entropy) and raw w, h
        // deltas pass to the layer before as they are.
        const std::size_t plane = std::size_t(out_.w) * std::size_t(out_.h);
        const std::size_t entries = std::size_t(config_.coords + 1 + config_.classes);
        for (int b = 0; b < output.batch(); ++b)
            for (int a = 0; a < config_.num; ++a)
                for (std::size_t entry : {std::size_t(0), std::size_t(1), std::size_t(config_.coords)}) {
                    const std::size_t offset =
                        std::size_t(b) * output.itemSize() + (std::size_t(a) * entries + entry) * plane;
                    for (std::size_t i = 0; i < plane; ++i) {
                        const float y = output.data()[offset + i];
                        delta_[offset + i] *= y * (1 - y);
                    }
                }
        finishHeadStats(stats, double(output.batch()) * config_.num * out_.w * out_.h);
        context.addLoss(stats.loss);
        if (context.heads)
            context.heads->push_back(stats);
    }

    const RegionLayer config_;
    Shape out_;
    int index_;
    std::vector<float> delta_; // what backward passes on (x, y, objectness already through σ′)
#if NETWRIGHT_WITH_CUDA
    GpuHostHead hostHead_; // a GPU pass's head, on the host
#endif
};

} // namespace

std::unique_ptr<RuntimeLayer> RegionLayer::createRuntime(const LayerSpec& spec) const
{
    if (!tree.empty() && !softmaxTree)
        return nullptr; // (the unreadable tree is already an error on its line)
    return std::make_unique<RegionRuntime>(*this, spec);
}

} // namespace nw
