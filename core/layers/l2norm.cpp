#include "layers/l2norm.h"

#include "graph/layer_spec.h"
#include "kernels/l2norm_formulas.h"
#include "runtime/layer_runtime.h"

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/device_buffer.h"
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/training_kernels.h"
#endif
#include <algorithm>
#include <cmath>

namespace nw {

std::unique_ptr<LayerConfig> L2normLayer::parse(cfg::SectionReader&)
{
    return std::make_unique<L2normLayer>();
}

LayerResult L2normLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    result.output = ctx.input();
    return result;
}

namespace {

// Divides each pixel's channel vector by its L2 norm.
class L2normRuntime final : public RuntimeLayer {
public:
    explicit L2normRuntime(const Shape& shape) : shape_(shape) {}
    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
        const std::size_t plane = std::size_t(std::max(1, shape_.w * shape_.h));
        const std::size_t channels = args.output.itemSize() / plane;
        norms_.resize(std::size_t(args.output.batch()) * plane);
        for (int b = 0; b < args.output.batch(); ++b)
            for (std::size_t i = 0; i < plane; ++i)
                norms_[std::size_t(b) * plane + i] =
                    l2normalizePixel(args.output.item(b) + i, channels, plane);
    }

    bool canTrain() const override { return true; }

    // y = x/‖x‖: −∂loss/∂x_c = (δ_c − y_c·Σ_k δ_k y_k) / ‖x‖, per pixel.
    void backward(BackwardArgs& args) override
    {
        if (!args.inputDelta)
            return;
        const std::size_t plane = std::size_t(std::max(1, shape_.w * shape_.h));
        const std::size_t channels = args.output.itemSize() / plane;
        for (int b = 0; b < args.output.batch(); ++b)
            for (std::size_t i = 0; i < plane; ++i)
                addL2normDelta(args.output.item(b) + i, args.outputDelta.item(b) + i,
                               norms_[std::size_t(b) * plane + i], args.inputDelta->item(b) + i, channels,
                               plane);
    }

#if NETWRIGHT_WITH_CUDA
    // The same per-pixel functions, one thread per pixel.
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        const std::size_t plane = std::size_t(std::max(1, shape_.w * shape_.h));
        args.gpu.copyOnDevice(args.input, args.output, args.outputItemSize * std::size_t(args.batch),
                              "[l2norm]");
        gpuNorms_.resize(std::size_t(args.batch) * plane);
        cuda::l2normalize(args.output, gpuNorms_.data(), args.batch, args.outputItemSize / plane, plane,
                          args.gpu.stream());
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    void backwardGpu(GpuBackwardArgs& args) override
    {
        const std::size_t plane = std::size_t(std::max(1, shape_.w * shape_.h));
        if (args.inputDelta)
            cuda::l2normBackward(args.output, args.outputDelta, gpuNorms_.data(), args.inputDelta, args.batch,
                                 args.outputItemSize / plane, plane, args.gpu.stream());
    }
    DeviceBuffer gpuNorms_;
#endif

private:
    Shape shape_;
    std::vector<float> norms_; // ‖x‖ per pixel of the last forward
};

} // namespace

std::unique_ptr<RuntimeLayer> L2normLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<L2normRuntime>(spec.output);
}

} // namespace nw
