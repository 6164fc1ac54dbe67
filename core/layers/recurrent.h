#pragma once
// What the recurrent layers share: their gates are connected sub-layers ("blocks").
#include "kernels/cpu/activations.h"
#include "kernels/cpu/batchnorm.h"
#include "layers/layer_config.h"
#include "runtime/layer_runtime.h"
#include "runtime/weights_file.h"

#include <memory>
#include <random>
#include <vector>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/device_buffer.h"
#endif

namespace nw {

// Costs of `fromInput` connected blocks inputs→outputs plus `fromState` blocks outputs→outputs.
LayerCosts connectedBlocksCosts(std::int64_t inputs, std::int64_t outputs, int fromInput, int fromState);

// One connected sub-layer: y = act(BN(W·x + b)), with batch norm from its rolling statistics.
struct ConnectedBlock {
    int inputs = 0, outputs = 0;
    bool batchNormalize = false;
    Activation activation = Activation::Linear;
    ParamArray biases, weights, scales, mean, variance;

    ConnectedBlock(int inputs, int outputs, bool batchNormalize, Activation activation);
    // Darknet's connected order: biases, weights, then the batch-norm arrays.
    void appendWeightArrays(std::vector<WeightArray>& arrays);
    void initialize(std::mt19937& random);
    // Files with a transposed header (version > 1000) hold `weights` as [inputs][outputs], as Darknet
    // reads every connected block of a recurrent layer: inference then uses a repacked copy, and the
    // arrays stay as read, so a save writes the file's layout again.
    void prepare(bool transposedFile);
    void forward(const float* in, float* out, int batch) const;
    std::vector<float> packedWeights; // [outputs][inputs] from a transposed file; empty otherwise
};

// A connected block while training over time steps: each step keeps its input, output and batch
// statistics for the backward pass; the gradients add up over the steps (backpropagation through time).
class BlockTraining {
public:
    explicit BlockTraining(ConnectedBlock& block);
    ~BlockTraining();
    void setSteps(int steps);
    // out = act(BN(W·in + b)) for `batch` rows, with the batch's statistics (rolling ones updated).
    void forward(int step, const float* in, float* out, int batch);
    // `delta` (−∂loss/∂out of that step) is used up; −∂loss/∂in is added into inputDelta (if any).
    void backward(int step, float* delta, float* inputDelta, int batch);
    std::vector<Parameter> parameters();

#if NETWRIGHT_WITH_CUDA
    // The GPU twins, on device pointers: `training` null runs the block for inference (rolling
    // statistics, nothing kept); otherwise each step keeps its input, output and batch statistics.
    void forwardGpu(GpuExec& gpu, int step, const float* in, float* out, int batch, ExecContext* training);
    // As backward; gradients go to the device gradient buffer unless parameterGradients is false
    // (dont_update: the arrays are not in it).
    void backwardGpu(GpuExec& gpu, int step, float* delta, float* inputDelta, int batch,
                     bool parameterGradients);
#endif

private:
    struct Step {
        std::vector<float> input, output;
        BatchNormTraining batchNorm;
        ActivationCache activation;
    };
    ConnectedBlock& block_;
    std::vector<Step> steps_;
    ParamArray biasGradient_, scaleGradient_, weightGradient_;
    struct GpuSteps; // CUDA builds: each step's device copies (layers/recurrent.cpp)
    std::unique_ptr<GpuSteps> gpu_;
};

// What the connected recurrent runtimes ([rnn], [gru], [lstm]) share: they train, and in CUDA builds run
// and train on the GPU, though not inside a CUDA graph: their state carries on from call to call, so a
// replayed pass is not the same pass again.
class RecurrentRuntime : public RuntimeLayer {
public:
    // Training, and the GPU, cover blocks in the usual [outputs][inputs] order (not transposed files).
    bool canTrain() const override { return !transposedFile_; }
    std::string whyNotTrainable() const override { return transposedWeightsReason(); }
#if NETWRIGHT_WITH_CUDA
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return !transposedFile_;
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return !transposedFile_;
    }
    bool gpuForwardCapturable() const override
    {
        return false;
    }
#endif

protected:
    void prepareBlocks(const WeightsHeader& header, std::initializer_list<ConnectedBlock*> blocks)
    {
        transposedFile_ = header.transpose();
        for (ConnectedBlock* block : blocks)
            block->prepare(transposedFile_);
    }

private:
    bool transposedFile_ = false;
};

#if NETWRIGHT_WITH_CUDA
// A state a recurrent layer carries on the device ([rnn]'s, [gru]'s, [lstm]'s cell and hidden, [crnn]'s):
// training keeps every step's, from a zero start; inference one, kept from call to call (zeroed when
// the batch changes), which before(t) and after(t) then both name.
class GpuSequenceState {
public:
    void start(GpuExec& gpu, std::size_t width, int steps, bool training);
    float* before(int step) { return at(step); }    // what step t reads
    float* after(int step) { return at(step + 1); } // what step t writes
    // Whether a training pass of `steps` steps over `width` values ran (a backward needs it).
    bool trained(std::size_t width, int steps) const
    {
        return steps_.size() == std::size_t(steps + 1) * width;
    }

private:
    float* at(int index);
    DeviceBuffer steps_, kept_;
    std::size_t width_ = 0;
    bool training_ = false;
};
#endif

// Every learnable array of a recurrent layer's blocks, in block order.
std::vector<Parameter> blockParameters(std::initializer_list<BlockTraining*> blocks);

} // namespace nw
