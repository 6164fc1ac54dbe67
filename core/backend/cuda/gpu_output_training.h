#pragma once
// The output stage of a weighted layer ([convolutional], [connected]) while training on the GPU: bias,
// or batch norm with the batch's statistics, then the activation, keeping what the backward pass needs —
// the GPU twin of the CPU's BatchNormTraining and ActivationCache (kernels/cpu/batchnorm.h).
#include "backend/cuda/device_buffer.h"
#include "backend/cuda/gpu_activation.h"
#include "kernels/cpu/activations.h"
#include "runtime/layer_runtime.h"

namespace nw {

class GpuOutputTraining {
public:
    // The output stage after the layer's linear part wrote args.output (batch × channels × plane):
    // training, forward() below; at inference bias or folded batch norm (rolling statistics) and the
    // activation in one pass.
    void apply(GpuForwardArgs& args, int channels, int plane, ParamArray* scales, ParamArray& biases,
               ParamArray& rollingMean, ParamArray& rollingVariance, Activation activation);
    // After the layer's linear part wrote args.output (batch × channels × plane): scales null means bias
    // only; with batch norm the rolling statistics are updated on the device.
    void forward(GpuForwardArgs& args, int channels, int plane, ParamArray* scales, ParamArray& biases,
                 ParamArray& rollingMean, ParamArray& rollingVariance, Activation activation);
    // args.outputDelta times the activation's derivative, then batch norm's backward (the delta becomes
    // the linear part's) or the bias sums; −gradients are added into the device gradient buffer.
    void backward(GpuBackwardArgs& args, int channels, int plane, ParamArray* scales,
                  ParamArray& scaleGradient, ParamArray& biasGradient, Activation activation);

private:
    // The per-channel reductions' partial sums (kernels/cuda/channel_statistics.h).
    double* scratch(int channels, int batch, int plane);

    DeviceBuffer mean_, variance_, normalized_; // the batch's statistics and x̂
    DeviceBuffer scratch_;
    GpuActivation activation_; // after the fused pass, for activations whose derivative needs the input
};

} // namespace nw
