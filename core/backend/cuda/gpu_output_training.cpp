#include "backend/cuda/gpu_output_training.h"

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/channel_statistics.h"
#include "kernels/cuda/inference_kernels.h"
#include "kernels/cuda/training_kernels.h"

namespace nw {

void GpuOutputTraining::apply(GpuForwardArgs& args, int channels, int plane, ParamArray* scales,
                              ParamArray& biases, ParamArray& rollingMean, ParamArray& rollingVariance,
                              Activation activation)
{
    if (args.training) {
        forward(args, channels, plane, scales, biases, rollingMean, rollingVariance, activation);
        return;
    }
    GpuExec& gpu = args.gpu;
    cuda::scaleShiftActivate(args.output, args.batch, channels, plane, gpu.device(biases),
                             scales ? gpu.device(*scales) : nullptr,
                             scales ? gpu.device(rollingMean) : nullptr,
                             scales ? gpu.device(rollingVariance) : nullptr, activation, gpu.stream());
}

void GpuOutputTraining::forward(GpuForwardArgs& args, int channels, int plane, ParamArray* scales,
                                ParamArray& biases, ParamArray& rollingMean, ParamArray& rollingVariance,
                                Activation activation)
{
    GpuExec& gpu = args.gpu;
    const std::size_t n = std::size_t(args.batch) * std::size_t(channels) * std::size_t(plane);
    // As on the CPU: activations whose derivative needs their input run after the fused pass.
    const Activation fused = gradientFromOutput(activation) ? activation : Activation::Linear;
    if (scales) {
        mean_.resize(std::size_t(channels));
        variance_.resize(std::size_t(channels));
        normalized_.resize(n);
        cuda::batchNormTrainingForward(
            args.output, args.batch, channels, plane, gpu.device(*scales), gpu.device(biases), mean_.data(),
            variance_.data(), gpu.device(rollingMean), gpu.device(rollingVariance), normalized_.data(), fused,
            scratch(channels, args.batch, plane), gpu.stream());
    } else {
        cuda::scaleShiftActivate(args.output, args.batch, channels, plane, gpu.device(biases), nullptr,
                                 nullptr, nullptr, fused, gpu.stream());
    }
    if (fused != activation)
        activation_.forward(gpu, args.output, n, activation, true);
}

void GpuOutputTraining::backward(GpuBackwardArgs& args, int channels, int plane, ParamArray* scales,
                                 ParamArray& scaleGradient, ParamArray& biasGradient, Activation activation)
{
    GpuExec& gpu = args.gpu;
    const std::size_t n = std::size_t(args.batch) * std::size_t(channels) * std::size_t(plane);
    activation_.backward(gpu, args.output, args.outputDelta, n, activation);
    const bool gradients = args.parameterGradients; // false: dont_update, only the delta
    if (scales)
        cuda::batchNormBackward(args.outputDelta, normalized_.data(), variance_.data(), gpu.device(*scales),
                                args.batch, channels, plane,
                                gradients ? gpu.gradient(scaleGradient) : nullptr,
                                gradients ? gpu.gradient(biasGradient) : nullptr,
                                scratch(channels, args.batch, plane), gpu.stream());
    else if (gradients)
        cuda::addChannelSums(args.outputDelta, args.batch, channels, plane, gpu.gradient(biasGradient),
                             scratch(channels, args.batch, plane), gpu.stream());
}

double* GpuOutputTraining::scratch(int channels, int batch, int plane)
{
    scratch_.reserve(2 * cuda::channelScratchDoubles(channels, batch, plane)); // doubles in a float buffer
    return scratch_.as<double>();
}

} // namespace nw
