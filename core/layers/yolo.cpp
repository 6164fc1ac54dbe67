#include "layers/yolo.h"
#include "layers/detection_heads.h"

#include "layers/yolo_loss.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/activations.h"
#include "runtime/layer_runtime.h"

#include <algorithm>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/gpu_exec.h"
#include "backend/cuda/gpu_loss_delta.h"
#include "kernels/cuda/inference_kernels.h"
#include "kernels/cuda/training_kernels.h"
#endif

namespace nw {

namespace {

std::unique_ptr<YoloLayer> parseHead(cfg::SectionReader& r, bool gaussian)
{
    auto l = std::make_unique<YoloLayer>();
    l->gaussian = gaussian;
    l->classes = r.getInt("classes", 20);
    l->num = r.getInt("num", 1);
    l->mask = r.getIntList("mask");
    if (l->mask.empty())
        for (int i = 0; i < l->num; ++i)
            l->mask.push_back(i);
    l->anchors = r.getFloatList("anchors");
    l->maxBoxes = r.getInt("max", gaussian ? 200 : 90); // (AB's own layer: AB's default)
    l->jitter = r.getFloat("jitter", 0.2f);
    l->ignoreThresh = r.getFloat("ignore_thresh", 0.5f);
    l->truthThresh = r.getFloat("truth_thresh", 1);
    l->random = r.getFloat("random", 0);
    l->scaleXY = r.getFloat("scale_x_y", 1);
    if (!gaussian) // (AB's [Gaussian_yolo] has no new_coords: left unread, it is named as unused)
        l->newCoords = r.getFlag("new_coords", false);
    else {
        l->ucNormalizer = r.getFloat("uc_normalizer", 1);
        const std::string point = r.getString("yolo_point", "center");
        l->pointOffset = point == "left_top" ? -0.5f : point == "right_bottom" ? 0.5f : 0.0f;
        if (point != "center" && point != "left_top" && point != "right_bottom")
            r.warning("yolo_point", "unknown yolo_point '" + point +
                                        "': AlexeyAB's Darknet takes it as center (known: center, left_top, "
                                        "right_bottom)");
    }
    l->iouLoss = r.getString("iou_loss", "mse");
    l->iouNormalizer = r.getFloat("iou_normalizer", 0.75f);
    l->objNormalizer = r.getFloat("obj_normalizer", 1);
    l->clsNormalizer = r.getFloat("cls_normalizer", 1);
    l->iouThresh = r.getFloat("iou_thresh", 1);
    l->labelSmoothEps = r.getFloat("label_smooth_eps", 0);
    l->nmsKind = r.getString("nms_kind", "default");
    l->betaNms = r.getFloat("beta_nms", 0.6f);
    l->maxDelta = r.getFloat("max_delta", std::numeric_limits<float>::infinity());
    if (!(l->maxDelta > 0))
        r.error("max_delta", "max_delta must be positive (the largest box delta an IoU loss passes on)");
    r.accept({"map", "delta_normalizer", "iou_thresh_kind", "resize", "embedding_layer", "track_history_size",
              "sim_thresh", "dets_for_track", "dets_for_show", "track_ciou_norm", "show_details"});
    r.warnUnimplemented({"focal_loss"}, "the classes train with the plain logistic loss");
    r.warnUnimplemented({"objectness_smooth"}, "the objectness targets stay 0 and 1");
    r.warnUnimplemented({"counters_per_class"}, "the classes are not weighted by their counts");
    if (l->classes < 1)
        r.error("classes", "classes must be at least 1");
    if (l->num < 1)
        r.error("num", "num (the total number of anchors) must be at least 1");
    for (int index : l->mask)
        if (index < 0 || index >= l->num) {
            r.error("mask", "mask index " + std::to_string(index) +
                                " is not an anchor: num=" + std::to_string(l->num) +
                                " anchors are numbered 0.." + std::to_string(l->num - 1));
            break;
        }
    if (!l->anchors.empty() && l->num >= 1 && l->anchors.size() < 2 * std::size_t(l->num))
        r.error("anchors", "anchors has " + std::to_string(l->anchors.size()) +
                               " numbers but num=" + std::to_string(l->num) + " needs " +
                               std::to_string(2 * std::int64_t(l->num)) + " (w,h pairs)");
    else if (auto note = extraAnchorsNote(l->anchors.size(), l->num))
        r.warning("anchors", *note);
    // (training gives a truth to the first of two equal anchors only: the second never learns)
    for (std::size_t i = 0; i < l->mask.size(); ++i)
        if (std::find(l->mask.begin(), l->mask.begin() + std::ptrdiff_t(i), l->mask[i]) !=
            l->mask.begin() + std::ptrdiff_t(i)) {
            r.warning("mask", "mask lists anchor " + std::to_string(l->mask[i]) +
                                  " twice: its second prediction never learns (a truth goes to the first)");
            break;
        }
    if (auto problem = anchorsProblem(l->anchors))
        r.error("anchors", *problem);
    // Values no cfg means (each trained or detected without a word): max=0 took the head for a classifier's.
    if (auto problem = maxBoxesProblem(l->maxBoxes, gaussian ? 200 : 90))
        r.error("max", *problem);
    if (!(l->scaleXY > 0))
        r.error("scale_x_y", "scale_x_y must be positive (1: none; scaled-YOLOv4's cfgs use 1.05 to 2)");
    if (!(l->jitter >= 0 && l->jitter < 1))
        r.warning("jitter", "jitter is the share of the image a random crop moves by: from 0 to below 1 "
                            "(Darknet's cfgs use 0.1 to 0.3)");
    if (!(l->ignoreThresh >= 0 && l->ignoreThresh <= 1))
        r.warning("ignore_thresh", "ignore_thresh is an IoU, from 0 to 1 (Darknet's cfgs use 0.7)");
    if (!(l->labelSmoothEps >= 0 && l->labelSmoothEps < 1))
        r.warning("label_smooth_eps", "label_smooth_eps is a share of the class targets, from 0 to below 1");
    if (!(l->betaNms >= 0))
        r.warning("beta_nms", "beta_nms (DIoU-NMS's penalty) cannot be negative");
    if (l->nmsKind != "default" && l->nmsKind != "greedynms" && l->nmsKind != "diounms" &&
        l->nmsKind != "cornersnms")
        r.warning(
            "nms_kind",
            "unknown nms_kind '" + l->nmsKind +
                "': AlexeyAB's Darknet takes the default (known: default, greedynms, diounms, cornersnms)");
    if (l->iouLoss != "mse" && l->iouLoss != "iou" && l->iouLoss != "giou" && l->iouLoss != "diou" &&
        l->iouLoss != "ciou")
        r.warning("iou_loss", "unknown iou_loss '" + l->iouLoss +
                                  "': AlexeyAB's Darknet uses iou (known: mse, iou, "
                                  "giou, diou, ciou)");
    return l;
}

} // namespace

std::unique_ptr<LayerConfig> YoloLayer::parse(cfg::SectionReader& r)
{
    return parseHead(r, false);
}

std::unique_ptr<LayerConfig> YoloLayer::parseGaussian(cfg::SectionReader& r)
{
    return parseHead(r, true);
}

LayerResult YoloLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    const char* name = gaussian ? "Gaussian_yolo" : "yolo";
    if (classes < 1 || !ctx.requireImage(name))
        return result;
    const Shape& in = ctx.input();
    const int n = static_cast<int>(mask.size());
    const int extra = gaussian ? 9 : 5;                        // box values (and their σ), objectness
    const long long needed = n * (classes + (long long)extra); // classes may be any int a file holds
    if (in.c != needed) {
        ctx.error("the layer before [" + std::string(name) + "] outputs " + std::to_string(in.c) +
                      " channels but " + std::to_string(n) + " anchors × (classes " +
                      std::to_string(classes) + " + " + std::to_string(extra) +
                      ") = " + std::to_string(needed) + " are needed: " + ctx.setFiltersBefore(needed),
                  "classes");
        return result;
    }
    result.output = Shape::image(in.w, in.h, in.c);
    return result;
}

namespace {

// Logistic on x, y, objectness and class scores of every anchor slot (AB new_coords: none), then
// AB's scale_x_y on x and y. Box decoding happens in the detector. While training, the forward pass
// also computes the head's deltas against the truth boxes (yolo_loss.cpp).
class YoloRuntime final : public RuntimeLayer {
public:
    YoloRuntime(const YoloLayer& config, const LayerSpec& spec)
        : config_(config), out_(spec.output), index_(spec.index)
    {
    }
    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
        const std::size_t plane = std::size_t(out_.w) * std::size_t(out_.h);
        const std::size_t slot = plane * std::size_t(config_.entries());
        for (int b = 0; b < args.output.batch(); ++b)
            for (std::size_t a = 0; a < config_.mask.size(); ++a) {
                float* p = args.output.item(b) + a * slot;
                if (config_.gaussian) {
                    // Logistic on x, σx, y, σy, σw, σh, objectness and classes; tw, th stay raw.
                    activateArray(p, 4 * plane, Activation::Logistic);
                    activateArray(p + 5 * plane, plane, Activation::Logistic);
                    activateArray(p + 7 * plane, (2 + std::size_t(config_.classes)) * plane,
                                  Activation::Logistic);
                    if (config_.scaleXY != 1.0f)
                        for (float* v : {p, p + 2 * plane})
                            for (std::size_t i = 0; i < plane; ++i)
                                v[i] = v[i] * config_.scaleXY - 0.5f * (config_.scaleXY - 1);
                    continue;
                }
                if (!config_.newCoords) {
                    activateArray(p, 2 * plane, Activation::Logistic);
                    activateArray(p + 4 * plane, (1 + std::size_t(config_.classes)) * plane,
                                  Activation::Logistic);
                }
                if (config_.scaleXY != 1.0f)
                    for (std::size_t i = 0; i < 2 * plane; ++i)
                        p[i] = p[i] * config_.scaleXY - 0.5f * (config_.scaleXY - 1);
            }
        if (args.context.training && args.context.truth)
            computeDeltas(args.output, args.context);
    }

    bool canTrain() const override { return true; }

#if NETWRIGHT_WITH_CUDA
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        args.gpu.copyOnDevice(args.input, args.output, args.outputItemSize * std::size_t(args.batch),
                              "[yolo]");
        cuda::yoloActivate(args.output, args.batch, int(config_.mask.size()), config_.classes,
                           out_.w * out_.h, config_.gaussian || !config_.newCoords, config_.scaleXY,
                           args.gpu.stream(), config_.gaussian);
        delta_.clear();
        gpuDelta_.clear();
        if (!args.training || !args.training->truth)
            return;
        // The loss on the host, as Darknet's GPU path does: the outputs down, the deltas up.
        hostOutput_.reset(out_, args.batch);
        args.gpu.copyToHost(args.output, hostOutput_.span());
        computeDeltas(hostOutput_, *args.training);
        gpuDelta_.upload(args.gpu, delta_);
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    // passLossDelta's rule: the head's deltas plus any a later layer added go to the layer before.
    void backwardGpu(GpuBackwardArgs& args) override
    {
        gpuDelta_.passBack(args);
    }
#endif

    // Darknet passes the head's deltas straight to the convolution before it: they are already the
    // gradients of the logistic outputs' logits (x, y, objectness, classes) and of the raw w, h.
    void backward(BackwardArgs& args) override
    {
        passLossDelta(args, delta_);
    }

private:
    void computeDeltas(const Tensor& output, ExecContext& context)
    {
        delta_.assign(output.size(), 0.0f);
        const YoloGrid grid{out_.w, out_.h, context.netWidth, context.netHeight};
        HeadStats stats;
        stats.layer = index_;
        for (int b = 0; b < output.batch(); ++b)
            yoloDeltas(config_, grid, output.item(b), context.truth + std::size_t(b) * context.truthStride,
                       int(context.truthStride / 5), delta_.data() + std::size_t(b) * output.itemSize(),
                       stats);
        for (float d : delta_)
            stats.loss += double(d) * d;
        finishHeadStats(stats, double(output.batch()) * double(config_.mask.size()) * out_.w * out_.h);
        context.addLoss(stats.loss);
        if (context.heads)
            context.heads->push_back(stats);
    }

    const YoloLayer config_;
    Shape out_;
    int index_;
    std::vector<float> delta_;
#if NETWRIGHT_WITH_CUDA
    Tensor hostOutput_;     // a GPU training pass's output, for the loss
    GpuLossDelta gpuDelta_; // and its deltas on the device
#endif
};

} // namespace

std::unique_ptr<RuntimeLayer> YoloLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<YoloRuntime>(*this, spec);
}

} // namespace nw
