#include "layers/deconvolutional.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/activations.h"
#include "kernels/cpu/batchnorm.h"
#include "kernels/cpu/bias_activation.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/im2col.h"
#include "runtime/layer_runtime.h"
#include "util/uniform_float.h"

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cudnn_convolution.h"
#include "backend/cuda/gpu_exec.h"
#include "backend/cuda/gpu_output_training.h"
#include "kernels/cuda/inference_kernels.h"
#endif

#include <algorithm>
#include <cmath>

namespace nw {

std::unique_ptr<LayerConfig> DeconvolutionalLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<DeconvolutionalLayer>();
    l->filters = r.getInt("filters", 1);
    l->size = r.getInt("size", 1);
    l->stride = r.getInt("stride", 1);
    l->activation = readActivation(r, "logistic");
    l->batchNormalize = r.getFlag("batch_normalize", false);
    const int pad = r.getInt("pad", 0);
    l->padding = r.getInt("padding", 0);
    if (pad)
        l->padding = l->size / 2;
    r.requirePositive({{"filters", l->filters}, {"size", l->size}, {"stride", l->stride}});
    return l;
}

LayerResult DeconvolutionalLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (filters < 1 || size < 1 || stride < 1 || !ctx.requireImage("deconvolutional"))
        return result;
    const Shape& in = ctx.input();
    const std::int64_t outW = std::int64_t(in.w - 1) * stride + size - 2 * std::int64_t(padding);
    const std::int64_t outH = std::int64_t(in.h - 1) * stride + size - 2 * std::int64_t(padding);
    if (!sideFits(ctx, outW, "size") || !sideFits(ctx, outH, "size"))
        return result;
    if (outW <= 0 || outH <= 0) {
        ctx.error("output would be " + std::to_string(outW) + "x" + std::to_string(outH) +
                      ": padding is too large for this size and stride",
                  "padding");
        return result;
    }
    result.output = Shape::image(int(outW), int(outH), filters);
    result.costs.bflops = (2.0 * filters * size * size * in.c * in.h * in.w) / 1e9;
    result.costs.params = saturatingSum({saturatingProduct({in.c, filters, size, size}), filters});
    result.costs.workspaceBytes =
        saturatingProduct({in.h, in.w, size, size, filters, std::int64_t(sizeof(float))});
    return result;
}

namespace {

// A transposed convolution: columns (filters·size² × h·w) = Wᵀ · input, then col2im adds every
// column back into the larger output; bias or batch norm (rolling statistics), activation.
class DeconvolutionalRuntime final : public RuntimeLayer {
public:
    DeconvolutionalRuntime(const DeconvolutionalLayer& config, const Shape& in, const Shape& out)
        : config_(config), activation_(activationFromName(config.activation)),
          in_(in), geometry_{config.filters, out.h,          out.w, config.size, config.stride,
                             config.stride,  config.padding, 1,     in.h,        in.w},
          biases_(std::size_t(config.filters), 0.0f),
          weights_(std::size_t(in.c) * std::size_t(config.filters) * std::size_t(config.size * config.size),
                   0.0f)
    {
        if (config.batchNormalize) {
            scales_.assign(std::size_t(config.filters), 1.0f);
            mean_.assign(std::size_t(config.filters), 0.0f);
            variance_.assign(std::size_t(config.filters), 1.0f);
        }
    }
    std::vector<WeightArray> weightArrays() override
    {
        std::vector<WeightArray> arrays{{"biases", &biases_, false}};
        if (config_.batchNormalize) {
            arrays.push_back({"scales", &scales_, true});
            arrays.push_back({"rolling_mean", &mean_, true});
            arrays.push_back({"rolling_variance", &variance_, true});
        }
        arrays.push_back({"weights", &weights_, false});
        return arrays;
    }
    void initialize(std::mt19937& random) override
    {
        // Darknet's: 0.02 · normal, drawn uniformly with the same variance (as the convolution's).
        const float scale = 0.02f * std::sqrt(3.0f);
        for (float& w : weights_)
            w = uniformFloat(random, -scale, scale);
    }
    std::size_t workspaceFloats() const override
    {
        return std::size_t(config_.filters) * std::size_t(config_.size * config_.size) *
               std::size_t(in_.w * in_.h);
    }
    void forward(ForwardArgs& args) override
    {
        const int rows = config_.filters * config_.size * config_.size, plane = in_.w * in_.h;
        const std::size_t outPlane = std::size_t(geometry_.height) * std::size_t(geometry_.width);
        for (int b = 0; b < args.output.batch(); ++b) { // Wᵀx, then each column added back into place
            gemm(true, false, rows, plane, in_.c, 1.0f, weights_.data(), rows, args.input.item(b), plane,
                 0.0f, args.context.workspace, plane);
            float* out = args.output.item(b);
            std::fill(out, out + args.output.itemSize(), 0.0f);
            col2imAdd(args.context.workspace, geometry_, out);
        }
        if (args.context.training) {
            trainingOutput(args, int(outPlane));
            return;
        }
        batchNormScaleShift(biases_, scales_, mean_, variance_, scale_, shift_);
        for (int b = 0; b < args.output.batch(); ++b)
            for (int f = 0; f < config_.filters; ++f) {
                float* p = args.output.item(b) + std::size_t(f) * outPlane;
                for (std::size_t i = 0; i < outPlane; ++i)
                    p[i] = activate(p[i] * scale_[std::size_t(f)] + shift_[std::size_t(f)], activation_);
            }
    }

    bool canTrain() const override { return true; }

    std::vector<Parameter> parameters() override
    {
        return biasScaleWeightParameters(biases_, biasGradient_, config_.batchNormalize ? &scales_ : nullptr,
                                         scaleGradient_, weights_, weightGradient_);
    }

    // The transpose of a convolution's backward: the output delta unrolled (im2col) gives
    // dW += x·colsᵀ and dx += W·cols.
    void backward(BackwardArgs& args) override
    {
        const int batch = args.output.batch(), filters = config_.filters;
        const int rows = filters * config_.size * config_.size, plane = in_.w * in_.h;
        const int outPlane = geometry_.height * geometry_.width;
        float* delta = args.outputDelta.data();
        cache_.multiplyByGradient(args.output.data(), args.output.size(), activation_, delta);
        parameters();
        if (config_.batchNormalize)
            batchNorm_.backward(delta, scales_.data(), batch, filters, outPlane, scaleGradient_.data(),
                                biasGradient_.data());
        else
            for (int b = 0; b < batch; ++b)
                for (int f = 0; f < filters; ++f) {
                    const float* d = args.outputDelta.item(b) + std::size_t(f) * std::size_t(outPlane);
                    for (int i = 0; i < outPlane; ++i)
                        biasGradient_[std::size_t(f)] += d[i];
                }
        std::vector<float> columns(std::size_t(rows) * std::size_t(plane));
        for (int b = 0; b < batch; ++b) {
            im2col(args.outputDelta.item(b), geometry_, columns.data());
            gemm(false, true, in_.c, rows, plane, 1.0f, args.input.item(b), plane, columns.data(), plane,
                 1.0f, weightGradient_.data(), rows);
            if (args.inputDelta)
                gemm(false, false, in_.c, plane, rows, 1.0f, weights_.data(), rows, columns.data(), plane,
                     1.0f, args.inputDelta->item(b), plane);
        }
    }

#if NETWRIGHT_WITH_CUDA
    // The transpose of the convolution from this layer's output to its input (cuDNN): its backward-data
    // pass is this forward; its forward is this backward's input delta, its backward-filter this
    // weight gradient. The weights are already in that convolution's layout (in_c × filters × size²).
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        GpuExec& gpu = args.gpu;
        const std::size_t n = args.outputItemSize * std::size_t(args.batch);
        cudaCheck(cudaMemsetAsync(args.output, 0, n * sizeof(float), gpu.stream()), "[deconvolutional]");
        cudnn_.backwardData(gpu, transposed(), args.batch, gpu.device(weights_), args.input, args.output);
        gpuTraining_.apply(args, config_.filters, geometry_.height * geometry_.width,
                           config_.batchNormalize ? &scales_ : nullptr, biases_, mean_, variance_,
                           activation_);
    }
    bool hasGpuBackward(std::span<const Shape> sources) const override
    {
        return hasGpuForward(sources);
    }
    void backwardGpu(GpuBackwardArgs& args) override
    {
        GpuExec& gpu = args.gpu;
        if (!args.parameterGradients && !args.inputDelta)
            return; // dont_update at the front: nothing to pass on
        if (args.parameterGradients)
            parameters(); // sizes the gradient arrays
        gpuTraining_.backward(args, config_.filters, geometry_.height * geometry_.width,
                              config_.batchNormalize ? &scales_ : nullptr, scaleGradient_, biasGradient_,
                              activation_);
        if (args.parameterGradients)
            cudnn_.backwardFilter(gpu, transposed(), args.batch, args.outputDelta, args.input,
                                  gpu.gradient(weightGradient_));
        if (args.inputDelta)
            cudnn_.forward(gpu, transposed(), args.batch, args.outputDelta, gpu.device(weights_),
                           args.inputDelta, true);
    }
    ConvolutionShape transposed() const
    {
        return {config_.filters, geometry_.height, geometry_.width, in_.c, 1,     config_.size,
                config_.stride,  config_.stride,   config_.padding, 1,     in_.h, in_.w};
    }
    CudnnConvolution cudnn_;
    GpuOutputTraining gpuTraining_;
#endif

private:
    // Bias, or batch norm with the batch's statistics, then the activation (derivatives kept).
    void trainingOutput(ForwardArgs& args, int outPlane)
    {
        const int batch = args.output.batch(), filters = config_.filters;
        const Activation fused = gradientFromOutput(activation_) ? activation_ : Activation::Linear;
        if (config_.batchNormalize) {
            batchNorm_.forward(args.output.data(), batch, filters, outPlane, scales_.data(), biases_.data(),
                               mean_.data(), variance_.data(), fused);
        } else {
            for (int b = 0; b < batch; ++b)
                addBiasActivate(args.output.item(b), std::size_t(filters), std::size_t(outPlane),
                                biases_.data(), fused);
        }
        if (fused != activation_)
            cache_.activate(args.output.data(), args.output.size(), activation_);
    }

    const DeconvolutionalLayer config_;
    Activation activation_;
    Shape in_;
    ConvGeometry geometry_;
    ParamArray biases_, scales_, mean_, variance_, weights_;
    std::vector<float> scale_, shift_; // per filter, for the output pass
    ParamArray biasGradient_, scaleGradient_, weightGradient_;
    BatchNormTraining batchNorm_;
    ActivationCache cache_;
};

} // namespace

std::unique_ptr<RuntimeLayer> DeconvolutionalLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<DeconvolutionalRuntime>(*this, spec.input, spec.output);
}

} // namespace nw
