#include "layers/local.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/activations.h"
#include "kernels/cpu/im2col.h"
#include "runtime/layer_runtime.h"
#include "util/uniform_float.h"

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/gpu_activation.h"
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/index_maps.h"
#include "kernels/cuda/training_kernels.h"
#endif

#include <cmath>

namespace nw {

std::unique_ptr<LayerConfig> LocalLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<LocalLayer>();
    l->filters = r.getInt("filters", 1);
    l->size = r.getInt("size", 1);
    l->stride = r.getInt("stride", 1);
    l->pad = r.getInt("pad", 0);
    l->activation = readActivation(r, "logistic");
    if (r.requirePositive({{"filters", l->filters}, {"size", l->size}, {"stride", l->stride}}) && l->pad < 0)
        r.error("pad", "pad is the padding in pixels: 0 or more, found " + std::to_string(l->pad));
    return l;
}

LayerResult LocalLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (filters < 1 || size < 1 || stride < 1 || pad < 0 || !ctx.requireImage("local"))
        return result;
    const Shape& in = ctx.input();
    const int outW = (pad ? in.w - 1 : in.w - size) / stride + 1;
    const int outH = (pad ? in.h - 1 : in.h - size) / stride + 1;
    if (outW <= 0 || outH <= 0) {
        ctx.error("output would be " + std::to_string(outW) + "x" + std::to_string(outH) + ": the " +
                      in.text() + " input is smaller than the kernel",
                  "size");
        return result;
    }
    result.output = Shape::image(outW, outH, filters);
    const std::int64_t locations = std::int64_t(outW) * outH;
    result.costs.bflops = (2.0 * locations * filters * size * size * in.c) / 1e9;
    result.costs.params = saturatingSum(
        {saturatingProduct({locations, filters, size, size, in.c}), saturatingProduct({locations, filters})});
    result.costs.workspaceBytes =
        saturatingProduct({locations, size, size, in.c, std::int64_t(sizeof(float))});
    return result;
}

namespace {

// A convolution with separate weights per output location: per location j, out[:, j] =
// W_j (filters × c·size²) · columns[:, j].
class LocalRuntime final : public RuntimeLayer {
public:
    LocalRuntime(const LocalLayer& config, const Shape& in, const Shape& out)
        : config_(config), activation_(activationFromName(config.activation)),
          geometry_{in.c, in.h, in.w, config.size, config.stride, config.stride, config.pad, 1, out.h, out.w},
          biases_(std::size_t(out.size), 0.0f),
          weights_(std::size_t(out.w) * std::size_t(out.h) * std::size_t(config.filters) * rows(), 0.0f)
    {
    }
    std::vector<WeightArray> weightArrays() override
    {
        return {{"biases", &biases_, false}, {"weights", &weights_, false}};
    }
    void initialize(std::mt19937& random) override
    {
        // Darknet's: uniform in ±sqrt(2 / (size·size·c)), every location's weights (Darknet's own loop
        // stops after the first location's, leaving the others at zero).
        const float scale = std::sqrt(2.0f / float(rows()));
        for (float& w : weights_)
            w = uniformFloat(random, -scale, scale);
    }
    std::size_t workspaceFloats() const override { return rows() * locations(); }
    void forward(ForwardArgs& args) override
    {
        const std::size_t k = rows(), n = std::size_t(config_.filters), l = locations();
        for (int b = 0; b < args.output.batch(); ++b) {
            im2col(args.input.item(b), geometry_, args.context.workspace);
            float* out = args.output.item(b);
            for (std::size_t j = 0; j < l; ++j)
                for (std::size_t f = 0; f < n; ++f) {
                    const float* w = weights_.data() + (j * n + f) * k;
                    float sum = biases_[f * l + j];
                    for (std::size_t r = 0; r < k; ++r)
                        sum += w[r] * args.context.workspace[r * l + j];
                    out[f * l + j] = sum;
                }
        }
        cache_.apply(args.output.data(), args.output.size(), activation_, args.context.training);
    }

    bool canTrain() const override { return true; }

    std::vector<Parameter> parameters() override
    {
        sizeTo(biasGradient_, biases_.size());
        sizeTo(weightGradient_, weights_.size());
        return {{&biases_, &biasGradient_, false}, {&weights_, &weightGradient_, true}};
    }

    // Each location j has its own filters: the same products as a convolution, one location at a time.
    void backward(BackwardArgs& args) override
    {
        cache_.multiplyByGradient(args.output.data(), args.output.size(), activation_,
                                  args.outputDelta.data());
        parameters();
        const std::size_t k = rows(), n = std::size_t(config_.filters), l = locations();
        std::vector<float> columns(k * l), columnDelta(k * l);
        for (int b = 0; b < args.output.batch(); ++b) {
            const float* delta = args.outputDelta.item(b);
            for (std::size_t i = 0; i < n * l; ++i)
                biasGradient_[i] += delta[i];
            im2col(args.input.item(b), geometry_, columns.data());
            std::fill(columnDelta.begin(), columnDelta.end(), 0.0f);
            for (std::size_t j = 0; j < l; ++j)
                for (std::size_t f = 0; f < n; ++f) {
                    const float d = delta[f * l + j];
                    const float* w = weights_.data() + (j * n + f) * k;
                    float* g = weightGradient_.data() + (j * n + f) * k;
                    for (std::size_t r = 0; r < k; ++r) {
                        g[r] += d * columns[r * l + j];
                        columnDelta[r * l + j] += d * w[r];
                    }
                }
            if (args.inputDelta)
                col2imAddStrided(columnDelta.data(), geometry_, args.inputDelta->item(b), long(l));
        }
    }

#if NETWRIGHT_WITH_CUDA
    // The same sums, one thread per output (forward) or per weight and per column (backward), reading
    // the input through im2col's rule (columnSource, kernels/cuda/index_maps.h).
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        GpuExec& gpu = args.gpu;
        cuda::localForward(args.input, gpu.device(weights_), gpu.device(biases_), args.output, args.batch,
                           columnMap(), config_.filters, gpu.stream());
        gpuActivation_.forward(gpu, args.output, args.outputItemSize * std::size_t(args.batch), activation_,
                               args.training != nullptr);
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    void backwardGpu(GpuBackwardArgs& args) override
    {
        GpuExec& gpu = args.gpu;
        gpuActivation_.backward(gpu, args.output, args.outputDelta,
                                args.outputItemSize * std::size_t(args.batch), activation_);
        const bool gradients = args.parameterGradients;
        if (gradients)
            parameters(); // sizes the gradient arrays
        cuda::localBackward(args.outputDelta, args.input, gpu.device(weights_),
                            gradients ? gpu.gradient(weightGradient_) : nullptr,
                            gradients ? gpu.gradient(biasGradient_) : nullptr, args.inputDelta, args.batch,
                            columnMap(), config_.filters, gpu.stream());
    }
    cuda::ColumnMap columnMap() const
    {
        const ConvGeometry& g = geometry_;
        return {g.channels, g.height, g.width, g.size, g.strideX, g.strideY, g.pad, g.outHeight, g.outWidth};
    }
    GpuActivation gpuActivation_;
#endif

private:
    std::size_t rows() const
    {
        return std::size_t(geometry_.channels) * std::size_t(config_.size) * std::size_t(config_.size);
    }
    std::size_t locations() const
    {
        return std::size_t(geometry_.outHeight) * std::size_t(geometry_.outWidth);
    }

    const LocalLayer config_;
    Activation activation_;
    ConvGeometry geometry_;
    ParamArray biases_, weights_, biasGradient_, weightGradient_;
    ActivationCache cache_;
};

} // namespace

std::unique_ptr<RuntimeLayer> LocalLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<LocalRuntime>(*this, spec.input, spec.output);
}

} // namespace nw
