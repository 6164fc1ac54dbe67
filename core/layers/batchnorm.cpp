#include "layers/batchnorm.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/batchnorm.h"
#include "runtime/layer_runtime.h"

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/device_buffer.h"
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/channel_statistics.h"
#include "kernels/cuda/inference_kernels.h"
#include "kernels/cuda/training_kernels.h"
#endif

#include <algorithm>

namespace nw {

std::unique_ptr<LayerConfig> BatchnormLayer::parse(cfg::SectionReader&)
{
    return std::make_unique<BatchnormLayer>();
}

LayerResult BatchnormLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (!ctx.requireImage("batchnorm"))
        return result;
    const Shape& in = ctx.input();
    result.output = Shape::image(in.w, in.h, in.c);
    result.costs.params = 2 * std::int64_t(in.c);
    result.costs.bflops = 2.0 * double(in.size) / 1e9;
    return result;
}

namespace {

// pjreddie's file order for [batchnorm]: scales, rolling mean, rolling variance (biases stay 0).
class BatchnormRuntime final : public RuntimeLayer {
public:
    explicit BatchnormRuntime(const Shape& shape)
        : shape_(shape), scales_(std::size_t(shape.c), 1.0f), mean_(std::size_t(shape.c), 0.0f),
          variance_(std::size_t(shape.c), 1.0f), biases_(std::size_t(shape.c), 0.0f)
    {
    }
    std::vector<WeightArray> weightArrays() override
    {
        return {{"scales", &scales_, true},
                {"rolling_mean", &mean_, true},
                {"rolling_variance", &variance_, true}};
    }
    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
        const int plane = shape_.w * shape_.h;
        if (args.context.training) { // the batch's statistics; the rolling ones move toward them
            batchNorm_.forward(args.output.data(), args.output.batch(), shape_.c, plane, scales_.data(),
                               biases_.data(), mean_.data(), variance_.data(), Activation::Linear);
            return;
        }
        for (int b = 0; b < args.output.batch(); ++b)
            batchNormInference(args.output.item(b), std::size_t(shape_.c),
                               std::size_t(shape_.w) * std::size_t(shape_.h), scales_.data(), mean_.data(),
                               variance_.data(), biases_.data());
    }

    bool canTrain() const override { return true; }

    // The scales learn; the biases stay 0, as pjreddie's .weights have no place for them.
    std::vector<Parameter> parameters() override
    {
        sizeTo(scaleGradient_, scales_.size());
        return {{&scales_, &scaleGradient_, false}};
    }

    void backward(BackwardArgs& args) override
    {
        parameters();
        sizeTo(biasGradient_, biases_.size());
        std::vector<float>& delta = deltaCopy_;
        delta.assign(args.outputDelta.data(), args.outputDelta.data() + args.outputDelta.size());
        batchNorm_.backward(delta.data(), scales_.data(), args.output.batch(), shape_.c, shape_.w * shape_.h,
                            scaleGradient_.data(), biasGradient_.data());
        if (args.inputDelta)
            for (std::size_t i = 0; i < delta.size(); ++i)
                args.inputDelta->data()[i] += delta[i];
    }

#if NETWRIGHT_WITH_CUDA
    // As forward, on the device. The biases are zeros of its own (they are not in the weights file, so
    // not in the parameter store); their gradient goes to a buffer nobody reads.
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        GpuExec& gpu = args.gpu;
        const int channels = shape_.c, plane = shape_.w * shape_.h;
        const std::size_t n = args.outputItemSize * std::size_t(args.batch);
        gpu.copyOnDevice(args.input, args.output, n, "[batchnorm]");
        if (zeros_.size() != std::size_t(channels)) {
            zeros_.resize(std::size_t(channels));
            zeros_.zero(gpu.stream());
        }
        if (!args.training) {
            cuda::scaleShiftActivate(args.output, args.batch, channels, plane, zeros_.data(),
                                     gpu.device(scales_), gpu.device(mean_), gpu.device(variance_),
                                     Activation::Linear, gpu.stream());
            return;
        }
        batchMean_.resize(std::size_t(channels));
        batchVariance_.resize(std::size_t(channels));
        normalized_.resize(n);
        cuda::batchNormTrainingForward(args.output, args.batch, channels, plane, gpu.device(scales_),
                                       zeros_.data(), batchMean_.data(), batchVariance_.data(),
                                       gpu.device(mean_), gpu.device(variance_), normalized_.data(),
                                       Activation::Linear, scratch(args.batch), gpu.stream());
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    void backwardGpu(GpuBackwardArgs& args) override
    {
        GpuExec& gpu = args.gpu;
        const int channels = shape_.c, plane = shape_.w * shape_.h;
        const std::size_t n = args.outputItemSize * std::size_t(args.batch);
        float* scaleGradient = nullptr;
        if (args.parameterGradients) {
            parameters(); // sizes the gradient array
            scaleGradient = gpu.gradient(scaleGradient_);
            unusedBiasGradient_.reserve(std::size_t(channels));
        }
        cuda::batchNormBackward(args.outputDelta, normalized_.data(), batchVariance_.data(),
                                gpu.device(scales_), args.batch, channels, plane, scaleGradient,
                                scaleGradient ? unusedBiasGradient_.data() : nullptr, scratch(args.batch),
                                gpu.stream());
        if (args.inputDelta)
            cuda::addScaled(args.outputDelta, args.inputDelta, n, 1.0f, gpu.stream());
    }
    double* scratch(int batch)
    {
        scratch_.reserve(2 * cuda::channelScratchDoubles(shape_.c, batch, shape_.w * shape_.h));
        return scratch_.as<double>();
    }
    DeviceBuffer zeros_, batchMean_, batchVariance_, normalized_, unusedBiasGradient_, scratch_;
#endif

private:
    Shape shape_;
    ParamArray scales_, mean_, variance_, biases_;
    ParamArray scaleGradient_, biasGradient_;
    std::vector<float> deltaCopy_;
    BatchNormTraining batchNorm_;
};

} // namespace

std::unique_ptr<RuntimeLayer> BatchnormLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<BatchnormRuntime>(spec.output);
}

} // namespace nw
