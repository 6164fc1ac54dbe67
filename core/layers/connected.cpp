#include "layers/connected.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/activations.h"
#include "kernels/cpu/batchnorm.h"
#include "kernels/cpu/gemm.h"
#include "runtime/layer_runtime.h"
#include "runtime/weights_file.h"
#include "util/uniform_float.h"

#include <cmath>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/gpu_exec.h"
#include "backend/cuda/gpu_output_training.h"
#include "kernels/cuda/inference_kernels.h"
#endif

namespace nw {

std::unique_ptr<LayerConfig> ConnectedLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<ConnectedLayer>();
    l->outputs = r.getInt("output", 1);
    l->activation = readActivation(r, "logistic");
    l->batchNormalize = r.getFlag("batch_normalize", false);
    if (l->outputs < 1)
        r.error("output", "output must be at least 1 (found " + std::to_string(l->outputs) + ")");
    return l;
}

LayerResult ConnectedLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    const std::int64_t inputs = ctx.input().size;
    if (outputs < 1)
        return result;
    if (inputs <= 0) {
        if (ctx.inputKnown()) // (behind a layer with an error: that one message is enough)
            ctx.error("[connected] has no input values (the layer before it outputs nothing)");
        return result;
    }
    result.output = Shape::image(1, 1, outputs);
    result.costs.bflops = (2.0 * inputs * outputs) / 1e9;
    result.costs.params = saturatingSum({saturatingProduct({inputs, outputs}), outputs});
    return result;
}

namespace {

class ConnectedRuntime final : public RuntimeLayer {
public:
    ConnectedRuntime(const ConnectedLayer& config, std::size_t inputs)
        : config_(config), activation_(activationFromName(config.activation)), inputs_(inputs)
    {
        const auto outputs = std::size_t(config.outputs);
        biases_.assign(outputs, 0.0f);
        weights_.assign(outputs * inputs, 0.0f);
        if (config.batchNormalize) {
            scales_.assign(outputs, 1.0f);
            mean_.assign(outputs, 0.0f);
            variance_.assign(outputs, 1.0f);
        }
    }

    // Darknet's order for connected layers: biases, weights, then the batch-norm arrays.
    std::vector<WeightArray> weightArrays() override
    {
        std::vector<WeightArray> arrays{{"biases", &biases_, false}, {"weights", &weights_, false}};
        if (config_.batchNormalize) {
            arrays.push_back({"scales", &scales_, true});
            arrays.push_back({"rolling_mean", &mean_, true});
            arrays.push_back({"rolling_variance", &variance_, true});
        }
        return arrays;
    }

    void initialize(std::mt19937& random) override
    {
        // Darknet's: uniform in ±sqrt(2 / inputs) (not the convolution's normal draw; √3 wider before).
        const float scale = std::sqrt(2.0f / float(inputs_));
        for (float& w : weights_)
            w = uniformFloat(random, -scale, scale);
        std::fill(biases_.begin(), biases_.end(), 0.0f);
    }

    void prepare(const WeightsHeader& header) override
    {
        packedWeights_.clear();
        transposedFile_ = header.transpose();
        if (!transposedFile_)
            return;
        const auto outputs = std::size_t(config_.outputs);
        packedWeights_.resize(weights_.size()); // the file holds [inputs][outputs]
        for (std::size_t i = 0; i < inputs_; ++i)
            for (std::size_t o = 0; o < outputs; ++o)
                packedWeights_[o * inputs_ + i] = weights_[i * outputs + o];
    }

    void forward(ForwardArgs& args) override
    {
        const int batch = args.output.batch();
        const int outputs = config_.outputs;
        // output[b][o] = Σ_i input[b][i] · W[o][i]
        gemm(false, true, batch, outputs, static_cast<int>(inputs_), 1.0f, args.input.data(),
             static_cast<int>(inputs_), packedWeights_.empty() ? weights_.data() : packedWeights_.data(),
             static_cast<int>(inputs_), 0.0f, args.output.data(), outputs);
        if (args.context.training) {
            trainingOutput(args);
            return;
        }
        // Bias, or batch norm with its rolling statistics, as one scale and shift per output.
        batchNormScaleShift(biases_, scales_, mean_, variance_, scale_, shift_);
        for (int b = 0; b < batch; ++b) {
            float* out = args.output.item(b);
            for (std::size_t o = 0; o < std::size_t(outputs); ++o)
                out[o] = activate(out[o] * scale_[o] + shift_[o], activation_);
        }
    }

    // Training covers weights stored in the usual [outputs][inputs] order (not transposed files).
    bool canTrain() const override { return !transposedFile_; }
    std::string whyNotTrainable() const override { return transposedWeightsReason(); }

#if NETWRIGHT_WITH_CUDA
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return !transposedFile_;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        // Row-major output[b][o] = Σ_i input[b][i]·W[o][i] is, in cuBLAS's column-major terms,
        // C (outputs × batch) = Wᵀ · A with W an inputs × outputs matrix and A inputs × batch.
        GpuExec& gpu = args.gpu;
        const int outputs = config_.outputs, inputs = int(inputs_);
        const float one = 1.0f, zero = 0.0f;
        cublasCheck(cublasSgemm(gpu.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, outputs, args.batch, inputs, &one,
                                gpu.device(weights_), inputs, args.input, inputs, &zero, args.output,
                                outputs),
                    "[connected] on the GPU");
        gpuTraining_.apply(args, outputs, 1, config_.batchNormalize ? &scales_ : nullptr, biases_, mean_,
                           variance_, activation_);
    }

    bool hasGpuBackward(std::span<const Shape> sources) const override
    {
        return hasGpuForward(sources);
    }
    // As the CPU's backward, in cuBLAS's column-major terms: the weights' gradient (inputs × outputs,
    // column-major) += A · Dᵀ with A the inputs × batch input and D the outputs × batch delta; the
    // input's delta (inputs × batch) += W · D.
    void backwardGpu(GpuBackwardArgs& args) override
    {
        GpuExec& gpu = args.gpu;
        const int outputs = config_.outputs, inputs = int(inputs_);
        if (!args.parameterGradients && !args.inputDelta)
            return; // dont_update at the front: nothing to pass on
        if (args.parameterGradients)
            parameters(); // sizes the gradient arrays
        gpuTraining_.backward(args, outputs, 1, config_.batchNormalize ? &scales_ : nullptr, scaleGradient_,
                              biasGradient_, activation_);
        const float one = 1.0f;
        if (args.parameterGradients)
            cublasCheck(cublasSgemm(gpu.cublas(), CUBLAS_OP_N, CUBLAS_OP_T, inputs, outputs, args.batch, &one,
                                    args.input, inputs, args.outputDelta, outputs, &one,
                                    gpu.gradient(weightGradient_), inputs),
                        "[connected] weight gradient on the GPU");
        if (args.inputDelta)
            cublasCheck(cublasSgemm(gpu.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, inputs, args.batch, outputs, &one,
                                    gpu.device(weights_), inputs, args.outputDelta, outputs, &one,
                                    args.inputDelta, inputs),
                        "[connected] input gradient on the GPU");
    }
#endif

    std::vector<Parameter> parameters() override
    {
        return biasScaleWeightParameters(biases_, biasGradient_, config_.batchNormalize ? &scales_ : nullptr,
                                         scaleGradient_, weights_, weightGradient_);
    }

    void backward(BackwardArgs& args) override
    {
        const bool gradients = args.parameterGradients; // false: dont_update, only the input's delta
        if (!gradients && !args.inputDelta)
            return;
        const int batch = args.output.batch(), outputs = config_.outputs, inputs = static_cast<int>(inputs_);
        float* delta = args.outputDelta.data();
        activationCache_.multiplyByGradient(args.output.data(), args.output.size(), activation_, delta);
        if (gradients)
            parameters();
        if (config_.batchNormalize)
            batchNorm_.backward(delta, scales_.data(), batch, outputs, 1,
                                gradients ? scaleGradient_.data() : nullptr,
                                gradients ? biasGradient_.data() : nullptr);
        else if (gradients)
            for (int b = 0; b < batch; ++b)
                for (int o = 0; o < outputs; ++o)
                    biasGradient_[std::size_t(o)] +=
                        delta[std::size_t(b) * std::size_t(outputs) + std::size_t(o)];
        if (gradients)
            gemm(true, false, outputs, inputs, batch, 1.0f, delta, outputs, args.input.data(), inputs, 1.0f,
                 weightGradient_.data(), inputs);
        if (args.inputDelta)
            gemm(false, false, batch, inputs, outputs, 1.0f, delta, outputs, weights_.data(), inputs, 1.0f,
                 args.inputDelta->data(), inputs);
    }

private:
    // The training output: bias, or batch norm with the batch's statistics (Darknet's
    // forward_batchnorm_layer over outputs × 1 planes), then the activation.
    void trainingOutput(ForwardArgs& args)
    {
        const int batch = args.output.batch(), outputs = config_.outputs;
        const Activation fused = gradientFromOutput(activation_) ? activation_ : Activation::Linear;
        if (config_.batchNormalize) {
            batchNorm_.forward(args.output.data(), batch, outputs, 1, scales_.data(), biases_.data(),
                               mean_.data(), variance_.data(), fused);
        } else {
            for (int b = 0; b < batch; ++b) {
                float* out = args.output.item(b);
                for (std::size_t o = 0; o < std::size_t(outputs); ++o)
                    out[o] = activate(out[o] + biases_[o], fused);
            }
        }
        if (fused != activation_)
            activationCache_.activate(args.output.data(), args.output.size(), activation_);
    }

    const ConnectedLayer config_;
    Activation activation_;
    std::size_t inputs_;
    ParamArray biases_, weights_, scales_, mean_, variance_;
    std::vector<float> packedWeights_; // only for files that store [inputs][outputs]
    ParamArray biasGradient_, weightGradient_, scaleGradient_;
    BatchNormTraining batchNorm_;
    ActivationCache activationCache_;
    std::vector<float> scale_, shift_; // per output, for the output pass
    bool transposedFile_ = false;
#if NETWRIGHT_WITH_CUDA
    GpuOutputTraining gpuTraining_;
#endif
};

} // namespace

std::unique_ptr<RuntimeLayer> ConnectedLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<ConnectedRuntime>(*this, std::size_t(spec.input.size));
}

} // namespace nw
