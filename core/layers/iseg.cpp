#include "layers/iseg.h"

#include "graph/layer_spec.h"
#include "runtime/layer_runtime.h"

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/gpu_exec.h"
#endif
#include <algorithm>

namespace nw {

std::unique_ptr<LayerConfig> IsegLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<IsegLayer>();
    l->classes = r.getInt("classes", 20);
    l->ids = r.getInt("ids", 32);
    return l;
}

LayerResult IsegLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (!ctx.requireImage("iseg"))
        return result;
    const Shape& in = ctx.input();
    if (in.c != classes + ids) {
        ctx.error("the layer before [iseg] outputs " + std::to_string(in.c) +
                      " channels but classes + ids = " + std::to_string(classes + ids) + " are needed",
                  "classes");
        return result;
    }
    result.output = in;
    return result;
}

namespace {

// At inference the segmentation head passes its input through, as in Darknet.
class IsegRuntime final : public RuntimeLayer {
public:
    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
    }
#if NETWRIGHT_WITH_CUDA
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        args.gpu.copyOnDevice(args.input, args.output, args.outputItemSize * std::size_t(args.batch),
                              "[iseg]");
    }
#endif
};

} // namespace

std::unique_ptr<RuntimeLayer> IsegLayer::createRuntime(const LayerSpec&) const
{
    return std::make_unique<IsegRuntime>();
}

} // namespace nw
