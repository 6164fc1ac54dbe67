#pragma once
// The runtime side of a layer type: its weights (in .weights file order) and its forward pass.
// Each layer type implements it next to its shape rule, in core/layers/<type>.cpp.
#include "runtime/exec_context.h"
#include "runtime/param_array.h"
#include "runtime/tensor.h"

#include <random>
#include <span>
#include <string>
#include <vector>

namespace nw {

struct WeightsHeader;
class GpuExec; // backend/cuda/gpu_exec.h, in builds with the CUDA backend

// One array of a layer's parameters as it sits in a .weights file.
struct WeightArray {
    const char* name;        // "biases", "scales", "rolling_mean", "rolling_variance", "weights"
    ParamArray* data;        // the layer's (in the net's ParameterStore once the net is built)
    bool batchNormStatistic; // scales/mean/variance: skipped by dontloadscales
};

struct ForwardArgs {
    const Tensor& input;                    // the previous layer's output (or the net input)
    std::span<const Tensor* const> sources; // outputs of the layers named by route/shortcut/...
    Tensor& output;
    ExecContext& context;
};

// A layer's input, sources and output in GPU memory (NCHW, as on the host) for a GPU forward.
struct GpuForwardArgs {
    const float* input;
    std::size_t inputItemSize; // floats per batch item
    std::span<const float* const> sources;
    std::span<const std::size_t> sourceItemSizes;
    std::span<const Shape> sourceShapes;
    float* output;
    std::size_t outputItemSize;
    int batch;
    GpuExec& gpu;
    // A training pass (null at inference): batch statistics, and the host side of the loss — truth,
    // the network's size, the loss sum and the heads' figures — for loss layers, which compute their
    // deltas on the host as Darknet's GPU path does.
    ExecContext* training = nullptr;
};

// A GPU backward pass: as BackwardArgs, in device memory. The layer's parameter gradients are found
// through gpu.gradient(array) (the device mirror of the net's gradient buffer).
struct GpuBackwardArgs {
    const float* input;
    float* inputDelta; // null when nothing before this layer needs a gradient
    std::span<const float* const> sources;
    std::span<float* const> sourceDeltas; // null entries: no gradient needed
    std::span<const std::size_t> sourceItemSizes;
    std::span<const Shape> sourceShapes;
    const float* output;
    float* outputDelta; // may be modified in place
    std::size_t inputItemSize, outputItemSize;
    int batch;
    // False for a layer whose weights stay fixed (dont_update): only the deltas pass back (its
    // gradient arrays are not in the net's gradient buffer).
    bool parameterGradients;
    GpuExec& gpu;
};

// Gradients follow Darknet's convention: a "delta" holds −∂loss/∂value, and layers *add* into the
// deltas of their inputs (several layers may feed on one output).
struct BackwardArgs {
    const Tensor& input;
    Tensor* inputDelta;                     // null when nothing before this layer needs a gradient
    std::span<const Tensor* const> sources; // as in forward
    std::span<Tensor* const> sourceDeltas;  // deltas of the sources (null entries: no gradient needed)
    const Tensor& output;
    Tensor& outputDelta; // may be modified in place (activation derivative)
    ExecContext& context;
    // False for a layer whose weights stay fixed (dont_update): only the deltas pass back, its weight
    // gradients (which no solver reads) are not computed.
    bool parameterGradients = true;
};

// One learnable array and the accumulated −gradient for it (the solver keeps its own state).
struct Parameter {
    ParamArray* values;
    ParamArray* gradient;
    bool decay; // weight decay applies (weights yes; biases and batch-norm scales no)
};

// Zero-filled to n entries unless it already has them (gradients and batch statistics, sized on use).
inline void sizeTo(std::vector<float>& v, std::size_t n)
{
    if (v.size() != n)
        v.assign(n, 0.0f);
}

// The learnable arrays of a convolutional or connected layer: biases, batch-norm scales (null when the
// layer has none) and weights, each with its gradient array sized to match.
inline std::vector<Parameter> biasScaleWeightParameters(ParamArray& biases, ParamArray& biasGradient,
                                                        ParamArray* scales, ParamArray& scaleGradient,
                                                        ParamArray& weights, ParamArray& weightGradient)
{
    sizeTo(biasGradient, biases.size());
    sizeTo(weightGradient, weights.size());
    std::vector<Parameter> result{{&biases, &biasGradient, false}};
    if (scales) {
        sizeTo(scaleGradient, scales->size());
        result.push_back({scales, &scaleGradient, false});
    }
    result.push_back({&weights, &weightGradient, true});
    return result;
}

class RuntimeLayer {
public:
    virtual ~RuntimeLayer() = default;
    virtual void forward(ForwardArgs& args) = 0;
    // False for layer types that cannot train yet; the trainer names them before starting, with why.
    virtual bool canTrain() const { return false; }
    virtual std::string whyNotTrainable() const { return "no backward pass yet"; }
    virtual void backward(BackwardArgs&) {}
    virtual std::vector<Parameter> parameters() { return {}; }
    // Parameter arrays in .weights order (empty for layers without weights).
    virtual std::vector<WeightArray> weightArrays() { return {}; }
    // Called after weights were loaded or initialised: fix file-order quirks, fold batch norm, pack.
    virtual void prepare(const WeightsHeader&) {}
    // Fills the parameters for a net trained from scratch (Darknet's scaled uniform; BN identity).
    virtual void initialize(std::mt19937&) {}
    // Scratch floats this layer needs in the shared workspace for one batch item.
    virtual std::size_t workspaceFloats() const { return 0; }
    // The CUDA backend (NETWRIGHT_WITH_CUDA): whether this layer, as configured and with sources of
    // these shapes, has a GPU forward, and that forward (inference). Layers without one are named
    // before a GPU run starts.
    virtual bool hasGpuForward(std::span<const Shape> /*sourceShapes*/) const { return false; }
    virtual void forwardGpu(GpuForwardArgs&) {}
    // Whether its inference forwardGpu only queues device work (no host copies or waits), so a CUDA
    // graph can capture and replay it.
    virtual bool gpuForwardCapturable() const { return true; }
    // Whether it also trains on the GPU: a training forwardGpu (args.training set) and backwardGpu.
    virtual bool hasGpuBackward(std::span<const Shape> /*sourceShapes*/) const { return false; }
    virtual void backwardGpu(GpuBackwardArgs&) {}
    // check-device --train: how many of the last training pass's choices among inputs (a max-pool's
    // winners) the GPU made otherwise than the CPU. Two nearly equal inputs can be ordered either way by
    // rounding, and the whole delta then goes to the other one: every gradient below differs, rightly.
    // 0 for layers that choose nothing.
    virtual std::size_t gpuWinnersDiffering(GpuExec&) { return 0; }
};

// A loss head's backward: its own deltas, plus any a later layer added, go to the layer before it.
inline void passLossDelta(BackwardArgs& args, const std::vector<float>& delta)
{
    if (!args.inputDelta || delta.size() != args.output.size())
        return;
    float* in = args.inputDelta->data();
    const float* out = args.outputDelta.data();
    for (std::size_t i = 0; i < delta.size(); ++i)
        in[i] += delta[i] + out[i];
}

} // namespace nw
