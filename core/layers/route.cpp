#include "layers/route.h"

#include "graph/layer_spec.h"
#include "graph/net_config.h"
#include "runtime/layer_runtime.h"
#include <algorithm>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/inference_kernels.h"
#include "kernels/cuda/training_kernels.h"
#endif

namespace nw {

std::unique_ptr<LayerConfig> RouteLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<RouteLayer>();
    if (!r.has("layers"))
        r.error("layers", "[route] needs layers= (the layers to concatenate, e.g. layers=-1,8)");
    l->layers = r.getIntList("layers");
    l->groups = r.getInt("groups", 1);
    l->groupId = r.getInt("group_id", 0);
    if (l->groups < 1)
        r.error("groups", "groups must be at least 1");
    else if (l->groupId < 0 || l->groupId >= l->groups)
        r.error("group_id", "group_id must be between 0 and groups−1 = " + std::to_string(l->groups - 1));
    return l;
}

std::string RouteLayer::filtersText() const
{
    std::string text;
    for (int index : layers)
        text += (text.empty() ? "" : ",") + std::to_string(index);
    return text;
}

LayerResult RouteLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    for (int reference : layers)
        if (auto index = ctx.resolve(reference, "layers"))
            result.sources.push_back(*index);
    if (result.sources.size() != layers.size() || layers.empty() || groups < 1)
        return result;
    for (int index : result.sources)
        if (!ctx.isValid(index))
            return result; // the source already reported its problem; its shape is meaningless
    // pjreddie's rule, kept exactly: sizes are compared with the first input; a mismatch zeroes w/h/c.
    const Shape& first = ctx.outputOf(result.sources.front());
    Shape out = first;
    bool mismatch = false, imagesMismatch = false; // (not a flat vector beside an image)
    std::string sizes; // "layer 149 is 13x13x512 but layer 5 is 208x208x64": what to line up
    for (std::size_t i = 1; i < result.sources.size(); ++i) {
        const Shape& next = ctx.outputOf(result.sources[i]);
        out.size += next.size;
        if (next.w == first.w && next.h == first.h) {
            out.c += next.c;
        } else {
            if (!mismatch) {
                sizes = "layer " + std::to_string(result.sources.front()) + " is " + first.text() +
                        " but layer " + std::to_string(result.sources[i]) + " is " + next.text();
                imagesMismatch = first.isImage() && next.isImage();
            }
            out.w = out.h = out.c = 0;
            mismatch = true;
        }
    }
    if (mismatch) {
        // The usual cause: an input side that the network's strides do not divide (YOLO's: 32). Not
        // when a flat vector (a [softmax], a [connected]) meets an image: no input size lines those up.
        const NetConfig& net = ctx.net();
        const bool odd = imagesMismatch && (net.width % 32 != 0 || net.height % 32 != 0);
        ctx.warning(
            "the routed layers have different sizes (" + sizes + "), so the output is a flat vector of " +
                std::to_string(out.size) + " values; only [connected]-like layers can follow" +
                (odd ? " (the input is " + std::to_string(net.width) + "x" + std::to_string(net.height) +
                           ": with width and height multiples of 32 the downsampled sides stay whole "
                           "and line up)"
                     : std::string()),
            "layers");
    }
    if (groups > 1) {
        for (int index : result.sources)
            if (ctx.outputOf(index).c % groups != 0) {
                ctx.error("groups=" + std::to_string(groups) + " does not divide the " +
                              std::to_string(ctx.outputOf(index).c) + " channels of layer " +
                              std::to_string(index),
                          "groups");
                return result;
            }
        out.c /= groups;
        out.size /= groups;
    }
    result.output = out;
    return result;
}

namespace {

// Concatenates, per batch item, each source's channel block `groupId` of `groups` (the whole output
// when groups = 1).
class RouteRuntime final : public RuntimeLayer {
public:
    RouteRuntime(int groups, int groupId) : groups_(groups), groupId_(groupId) {}
    void forward(ForwardArgs& args) override
    {
        for (int b = 0; b < args.output.batch(); ++b) {
            float* out = args.output.item(b);
            for (const Tensor* source : args.sources) {
                const std::size_t part = source->itemSize() / std::size_t(groups_);
                const float* from = source->item(b) + part * std::size_t(groupId_);
                out = std::copy(from, from + part, out);
            }
        }
    }

    bool canTrain() const override { return true; }

#if NETWRIGHT_WITH_CUDA
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        // One 2-D copy per source: `batch` rows of its group's block into the output's rows.
        std::size_t at = 0;
        for (std::size_t k = 0; k < args.sources.size(); ++k) {
            const std::size_t part = args.sourceItemSizes[k] / std::size_t(groups_);
            cudaCheck(cudaMemcpy2DAsync(args.output + at, args.outputItemSize * sizeof(float),
                                        args.sources[k] + part * std::size_t(groupId_),
                                        args.sourceItemSizes[k] * sizeof(float), part * sizeof(float),
                                        std::size_t(args.batch), cudaMemcpyDeviceToDevice, args.gpu.stream()),
                      "[route] copying on the GPU");
            at += part;
        }
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    // Each source gets back its block of every batch item's delta.
    void backwardGpu(GpuBackwardArgs& args) override
    {
        std::size_t at = 0;
        for (std::size_t k = 0; k < args.sources.size(); ++k) {
            const std::size_t part = args.sourceItemSizes[k] / std::size_t(groups_);
            if (float* target = args.sourceDeltas[k])
                cuda::addRows(args.outputDelta + at, args.outputItemSize,
                              target + part * std::size_t(groupId_), args.sourceItemSizes[k], part,
                              args.batch, args.gpu.stream());
            at += part;
        }
    }
#endif

    // Each source gets back the block of the delta that came from it.
    void backward(BackwardArgs& args) override
    {
        for (int b = 0; b < args.output.batch(); ++b) {
            const float* delta = args.outputDelta.item(b);
            for (std::size_t k = 0; k < args.sources.size(); ++k) {
                const std::size_t part = args.sources[k]->itemSize() / std::size_t(groups_);
                if (Tensor* target = args.sourceDeltas[k]) {
                    float* into = target->item(b) + part * std::size_t(groupId_);
                    for (std::size_t i = 0; i < part; ++i)
                        into[i] += delta[i];
                }
                delta += part;
            }
        }
    }

private:
    int groups_, groupId_;
};

} // namespace

std::unique_ptr<RuntimeLayer> RouteLayer::createRuntime(const LayerSpec&) const
{
    return std::make_unique<RouteRuntime>(groups, groupId);
}

} // namespace nw
