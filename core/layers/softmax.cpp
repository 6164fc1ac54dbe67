#include "layers/softmax.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/softmax.h"

#include "runtime/layer_runtime.h"
#include <algorithm>
#include <cmath>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/device_buffer.h"
#include "backend/cuda/gpu_exec.h"
#include "backend/cuda/gpu_loss_delta.h"
#include "kernels/cuda/inference_kernels.h"
#include "kernels/cuda/training_kernels.h"
#endif

namespace nw {

std::unique_ptr<LayerConfig> SoftmaxLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<SoftmaxLayer>();
    l->groups = r.getInt("groups", 1);
    l->temperature = r.getFloat("temperature", 1);
    l->tree = r.getString("tree", "");
    if (!l->tree.empty()) {
        std::string error;
        l->softmaxTree = loadTreeFor(l->tree, r.file(), error);
        if (!l->softmaxTree)
            r.error("tree", error);
    }
    r.accept({"spatial", "noloss"});
    if (!(l->temperature > 0) || !std::isfinite(l->temperature)) // (0 made every output NaN)
        r.error("temperature", "temperature must be a positive number (1: plain softmax; above 1 softer)");
    if (l->groups < 1)
        r.error("groups", "groups must be at least 1 (found " + std::to_string(l->groups) + ")");
    return l;
}

LayerResult SoftmaxLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    const std::int64_t inputs = ctx.input().size;
    result.output = Shape::flat(inputs);
    if (softmaxTree && softmaxTree->size() != inputs)
        ctx.error("the class tree (" + tree + ") has " + std::to_string(softmaxTree->size()) +
                      " classes but the layer before outputs " + std::to_string(inputs) + " values",
                  "tree");
    if (groups >= 1 && inputs % groups != 0)
        ctx.error("groups=" + std::to_string(groups) + " does not divide the " + std::to_string(inputs) +
                      " input values",
                  "groups");
    return result;
}

namespace {

class SoftmaxRuntime final : public RuntimeLayer {
public:
    SoftmaxRuntime(int groups, float temperature) : groups_(groups), temperature_(temperature) {}
    void forward(ForwardArgs& args) override
    {
        const std::size_t n = args.input.itemSize() / std::size_t(groups_);
        for (int b = 0; b < args.output.batch(); ++b)
            for (int g = 0; g < groups_; ++g)
                softmax(args.input.item(b) + std::size_t(g) * n, n, 1, temperature_,
                        args.output.item(b) + std::size_t(g) * n);
        if (args.context.training && args.context.truth)
            crossEntropy(args.output.data(), args.output.size(), args.context);
    }

    bool canTrain() const override { return true; }

#if NETWRIGHT_WITH_CUDA
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        const int n = int(args.inputItemSize / std::size_t(groups_));
        cuda::softmax(args.input, args.output, args.batch * groups_, n, temperature_, args.gpu.stream());
        truth_.clear();
        gpuDelta_.clear();
        if (!args.training || !args.training->truth)
            return;
        // The loss on the host (a classifier's outputs are few): the probabilities down, truth − p up.
        const std::size_t size = args.outputItemSize * std::size_t(args.batch);
        std::vector<float> p(size);
        args.gpu.copyToHost(args.output, p);
        crossEntropy(p.data(), size, *args.training);
        for (std::size_t i = 0; i < size; ++i)
            p[i] = truth_[i] - p[i];
        gpuDelta_.upload(args.gpu, p);
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    // As the CPU's: (truth − p) plus any later delta to the layer before.
    void backwardGpu(GpuBackwardArgs& args) override
    {
        gpuDelta_.passBack(args, true);
    }
#endif

    // Softmax and cross-entropy together: −∂loss/∂x = truth − p, passed on to the previous layer.
    void backward(BackwardArgs& args) override
    {
        float* delta = args.outputDelta.data();
        if (truth_.size() == args.output.size())
            for (std::size_t i = 0; i < truth_.size(); ++i)
                delta[i] += truth_[i] - args.output.data()[i];
        if (args.inputDelta)
            for (std::size_t i = 0; i < args.output.size(); ++i)
                args.inputDelta->data()[i] += delta[i];
    }

private:
    // The loss layer of a classifier: cross-entropy against the truth, −log p of the true class.
    void crossEntropy(const float* p, std::size_t size, ExecContext& context)
    {
        truth_.assign(context.truth, context.truth + size);
        double loss = 0;
        for (std::size_t i = 0; i < truth_.size(); ++i)
            if (truth_[i] != 0)
                loss -= truth_[i] * std::log(std::max(p[i], 1e-12f));
        context.addLoss(loss);
    }

    int groups_;
    float temperature_;
    std::vector<float> truth_;
#if NETWRIGHT_WITH_CUDA
    GpuLossDelta gpuDelta_; // truth − p of a GPU training pass
#endif
};

// darknet9000's hierarchical softmax: each group of the tree normalised on its own, on the CPU or the GPU
// (inference only: its training needs the truth spread up the tree, which Netwright's loaders do not do).
class TreeSoftmaxRuntime final : public RuntimeLayer {
public:
    TreeSoftmaxRuntime(std::shared_ptr<const SoftmaxTree> tree, float temperature)
        : tree_(std::move(tree)), temperature_(temperature)
    {
    }
    void forward(ForwardArgs& args) override
    {
        for (int b = 0; b < args.output.batch(); ++b)
            treeSoftmax(args.input.item(b), args.output.item(b), *tree_, 1, temperature_);
    }

#if NETWRIGHT_WITH_CUDA
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        if (gpuGroups_.size() == 0)
            uploadGroups(args.gpu); // the first pass: CUDA graphs are captured only from the third
        cuda::groupedSoftmax(args.input, args.output, args.batch, args.inputItemSize,
                             gpuGroups_.as<cuda::SoftmaxGroup>(), tree_->groups(), temperature_,
                             args.gpu.stream());
    }
#endif

private:
#if NETWRIGHT_WITH_CUDA
    void uploadGroups(GpuExec& gpu)
    {
        static_assert(sizeof(cuda::SoftmaxGroup) == 2 * sizeof(float));
        std::vector<cuda::SoftmaxGroup> groups;
        for (int g = 0; g < tree_->groups(); ++g)
            groups.push_back({tree_->groupOffset[std::size_t(g)], tree_->groupSize[std::size_t(g)]});
        gpuGroups_.resize(2 * groups.size());
        gpu.copyToDevice({reinterpret_cast<const float*>(groups.data()), gpuGroups_.size()},
                         gpuGroups_.data());
    }
    DeviceBuffer gpuGroups_; // the tree's (offset, size) pairs
#endif
    std::shared_ptr<const SoftmaxTree> tree_;
    float temperature_;
};

} // namespace

std::unique_ptr<RuntimeLayer> SoftmaxLayer::createRuntime(const LayerSpec&) const
{
    if (!tree.empty())
        return softmaxTree ? std::make_unique<TreeSoftmaxRuntime>(softmaxTree, temperature) : nullptr;
    return std::make_unique<SoftmaxRuntime>(groups, temperature);
}

} // namespace nw
