#include "layers/recurrent.h"

#include "kernels/cpu/batchnorm.h"
#include "kernels/cpu/gemm.h"
#include "util/uniform_float.h"

#include <cmath>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/gpu_exec.h"
#include "backend/cuda/gpu_output_training.h"
#endif

namespace nw {

#if NETWRIGHT_WITH_CUDA
struct BlockTraining::GpuSteps {
    struct Step {
        DeviceBuffer input, output;
        GpuOutputTraining stage; // the batch statistics and what the activation's backward needs
    };
    std::vector<Step> steps;
    GpuOutputTraining inference;
};
#else
struct BlockTraining::GpuSteps {};
#endif

BlockTraining::BlockTraining(ConnectedBlock& block) : block_(block) {}
BlockTraining::~BlockTraining() = default;

LayerCosts connectedBlocksCosts(std::int64_t inputs, std::int64_t outputs, int fromInput, int fromState)
{
    LayerCosts costs;
    costs.params = saturatingSum(
        {saturatingProduct({fromInput, saturatingSum({saturatingProduct({inputs, outputs}), outputs})}),
         saturatingProduct({fromState, saturatingSum({saturatingProduct({outputs, outputs}), outputs})})});
    costs.bflops = 2.0 * double(fromInput * inputs * outputs + fromState * outputs * outputs) / 1e9;
    return costs;
}

ConnectedBlock::ConnectedBlock(int in, int out, bool bn, Activation act)
    : inputs(in), outputs(out), batchNormalize(bn), activation(act), biases(std::size_t(out), 0.0f),
      weights(std::size_t(in) * std::size_t(out), 0.0f)
{
    if (bn) {
        scales.assign(std::size_t(out), 1.0f);
        mean.assign(std::size_t(out), 0.0f);
        variance.assign(std::size_t(out), 1.0f);
    }
}

void ConnectedBlock::appendWeightArrays(std::vector<WeightArray>& arrays)
{
    arrays.push_back({"biases", &biases, false});
    arrays.push_back({"weights", &weights, false});
    if (batchNormalize) {
        arrays.push_back({"scales", &scales, true});
        arrays.push_back({"rolling_mean", &mean, true});
        arrays.push_back({"rolling_variance", &variance, true});
    }
}

void ConnectedBlock::initialize(std::mt19937& random)
{
    // Darknet's recurrent layers are made of [connected] ones: uniform in ±sqrt(2 / inputs).
    const float scale = std::sqrt(2.0f / float(inputs));
    for (float& w : weights)
        w = uniformFloat(random, -scale, scale);
}

void ConnectedBlock::prepare(bool transposedFile)
{
    packedWeights.clear();
    if (!transposedFile)
        return;
    const auto in = std::size_t(inputs), out = std::size_t(outputs);
    packedWeights.resize(weights.size());
    for (std::size_t i = 0; i < in; ++i)
        for (std::size_t o = 0; o < out; ++o)
            packedWeights[o * in + i] = weights[i * out + o];
}

void ConnectedBlock::forward(const float* in, float* out, int batch) const
{
    gemm(false, true, batch, outputs, inputs, 1.0f, in, inputs,
         packedWeights.empty() ? weights.data() : packedWeights.data(), inputs, 0.0f, out, outputs);
    std::vector<float> scale, shift;
    batchNormScaleShift(biases, scales, mean, variance, scale, shift);
    for (int b = 0; b < batch; ++b)
        for (std::size_t o = 0; o < std::size_t(outputs); ++o) {
            float& v = out[std::size_t(b) * std::size_t(outputs) + o];
            v = activate(v * scale[o] + shift[o], activation);
        }
}

void BlockTraining::setSteps(int steps)
{
    if (int(steps_.size()) != steps)
        steps_.resize(std::size_t(steps));
}

void BlockTraining::forward(int step, const float* in, float* out, int batch)
{
    Step& s = steps_[std::size_t(step)];
    const ConnectedBlock& b = block_;
    const std::size_t n = std::size_t(batch) * std::size_t(b.outputs);
    s.input.assign(in, in + std::size_t(batch) * std::size_t(b.inputs));
    // (A transposed file's layer trains not, but runs here when frozen before a stopbackward.)
    gemm(false, true, batch, b.outputs, b.inputs, 1.0f, in, b.inputs,
         b.packedWeights.empty() ? b.weights.data() : b.packedWeights.data(), b.inputs, 0.0f, out, b.outputs);
    const Activation fused = gradientFromOutput(b.activation) ? b.activation : Activation::Linear;
    if (b.batchNormalize) {
        s.batchNorm.forward(out, batch, b.outputs, 1, block_.scales.data(), block_.biases.data(),
                            block_.mean.data(), block_.variance.data(), fused);
    } else {
        for (std::size_t i = 0; i < n; ++i)
            out[i] = activate(out[i] + b.biases[i % std::size_t(b.outputs)], fused);
    }
    if (fused != b.activation)
        s.activation.activate(out, n, b.activation);
    s.output.assign(out, out + n);
}

void BlockTraining::backward(int step, float* delta, float* inputDelta, int batch)
{
    Step& s = steps_[std::size_t(step)];
    const ConnectedBlock& b = block_;
    const std::size_t n = std::size_t(batch) * std::size_t(b.outputs);
    parameters();
    s.activation.multiplyByGradient(s.output.data(), n, b.activation, delta);
    if (b.batchNormalize)
        s.batchNorm.backward(delta, b.scales.data(), batch, b.outputs, 1, scaleGradient_.data(),
                             biasGradient_.data());
    else
        for (std::size_t i = 0; i < n; ++i)
            biasGradient_[i % std::size_t(b.outputs)] += delta[i];
    gemm(true, false, b.outputs, b.inputs, batch, 1.0f, delta, b.outputs, s.input.data(), b.inputs, 1.0f,
         weightGradient_.data(), b.inputs);
    if (inputDelta)
        gemm(false, false, batch, b.inputs, b.outputs, 1.0f, delta, b.outputs, b.weights.data(), b.inputs,
             1.0f, inputDelta, b.inputs);
}

std::vector<Parameter> blockParameters(std::initializer_list<BlockTraining*> blocks)
{
    std::vector<Parameter> all;
    for (BlockTraining* block : blocks) {
        auto mine = block->parameters();
        all.insert(all.end(), mine.begin(), mine.end());
    }
    return all;
}

std::vector<Parameter> BlockTraining::parameters()
{
    return biasScaleWeightParameters(block_.biases, biasGradient_,
                                     block_.batchNormalize ? &block_.scales : nullptr, scaleGradient_,
                                     block_.weights, weightGradient_);
}

#if NETWRIGHT_WITH_CUDA
void GpuSequenceState::start(GpuExec& gpu, std::size_t width, int steps, bool training)
{
    width_ = width;
    training_ = training;
    if (training) {
        steps_.resize(std::size_t(steps + 1) * width);
        steps_.zero(gpu.stream()); // the zero start, and nothing stale after it
    } else if (kept_.size() != width) {
        kept_.resize(width);
        kept_.zero(gpu.stream());
    }
}

float* GpuSequenceState::at(int index)
{
    return training_ ? steps_.data() + std::size_t(index) * width_ : kept_.data();
}

// As forward, in cuBLAS's column-major terms (as [connected]'s GPU pass): out (outputs × batch) = Wᵀ·in
// with W an inputs × outputs matrix; then GpuOutputTraining's bias or batch norm and the activation.
void BlockTraining::forwardGpu(GpuExec& gpu, int step, const float* in, float* out, int batch,
                               ExecContext* training)
{
    ConnectedBlock& b = block_;
    const float one = 1.0f, zero = 0.0f;
    cublasCheck(cublasSgemm(gpu.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, b.outputs, batch, b.inputs, &one,
                            gpu.device(b.weights), b.inputs, in, b.inputs, &zero, out, b.outputs),
                "a recurrent layer's gate on the GPU");
    if (!gpu_)
        gpu_ = std::make_unique<GpuSteps>();
    GpuForwardArgs args{in,  std::size_t(b.inputs),  {},    {},  {},
                        out, std::size_t(b.outputs), batch, gpu, training};
    ParamArray* scales = b.batchNormalize ? &b.scales : nullptr;
    if (!training) {
        gpu_->inference.apply(args, b.outputs, 1, scales, b.biases, b.mean, b.variance, b.activation);
        return;
    }
    if (gpu_->steps.size() != steps_.size())
        gpu_->steps.resize(steps_.size());
    GpuSteps::Step& s = gpu_->steps[std::size_t(step)];
    const std::size_t inputs = std::size_t(batch) * std::size_t(b.inputs);
    const std::size_t outputs = std::size_t(batch) * std::size_t(b.outputs);
    s.input.resize(inputs); // the caller's input may be scratch that the next step overwrites
    gpu.copyOnDevice(in, s.input.data(), inputs, "a recurrent layer's gate");
    s.stage.forward(args, b.outputs, 1, scales, b.biases, b.mean, b.variance, b.activation);
    s.output.resize(outputs);
    gpu.copyOnDevice(out, s.output.data(), outputs, "a recurrent layer's gate");
}

// As backward: the delta through the activation and batch norm (or the bias sums), then the weights'
// gradient (inputs × outputs) += in · deltaᵀ and the input's delta (inputs × batch) += W · delta.
void BlockTraining::backwardGpu(GpuExec& gpu, int step, float* delta, float* inputDelta, int batch,
                                bool parameterGradients)
{
    ConnectedBlock& b = block_;
    if (!gpu_ || std::size_t(step) >= gpu_->steps.size())
        throw GpuError("a recurrent layer's GPU backward ran without its training forward");
    GpuSteps::Step& s = gpu_->steps[std::size_t(step)];
    if (parameterGradients)
        parameters(); // sizes the gradient arrays
    GpuBackwardArgs args{s.input.data(),
                         inputDelta,
                         {},
                         {},
                         {},
                         {},
                         s.output.data(),
                         delta,
                         std::size_t(b.inputs),
                         std::size_t(b.outputs),
                         batch,
                         parameterGradients,
                         gpu};
    s.stage.backward(args, b.outputs, 1, b.batchNormalize ? &b.scales : nullptr, scaleGradient_,
                     biasGradient_, b.activation);
    const float one = 1.0f;
    if (parameterGradients)
        cublasCheck(cublasSgemm(gpu.cublas(), CUBLAS_OP_N, CUBLAS_OP_T, b.inputs, b.outputs, batch, &one,
                                s.input.data(), b.inputs, delta, b.outputs, &one,
                                gpu.gradient(weightGradient_), b.inputs),
                    "a recurrent layer's gate weight gradient on the GPU");
    if (inputDelta)
        cublasCheck(cublasSgemm(gpu.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, b.inputs, batch, b.outputs, &one,
                                gpu.device(b.weights), b.inputs, delta, b.outputs, &one, inputDelta,
                                b.inputs),
                    "a recurrent layer's gate input gradient on the GPU");
}
#endif

} // namespace nw
