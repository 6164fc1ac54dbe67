#pragma once
// Batch normalisation at inference, folded into the preceding weights once:
// y = scale·(x − mean)/sqrt(var + 1e-5) + bias becomes y = (s·W)x + (bias − s·mean), s = scale/sqrt(var +
// 1e-5). The 1e-5 inside the square root is what GPU-trained Darknet models expect (cuDNN, AlexeyAB);
// pjreddie's CPU path uses sqrt(var) + 1e-6 instead (docs/runtime.md).
#include "kernels/batchnorm_epsilon.h"
#include "kernels/cpu/activations.h"

#include <cstddef>
#include <span>
#include <vector>

namespace nw {

// Bias, or batch norm with its rolling statistics, as one scale and shift per channel for the output
// pass: y = x·scale + shift. Without batch norm (empty `scales`): scale 1, shift = bias.
void batchNormScaleShift(std::span<const float> biases, std::span<const float> scales,
                         std::span<const float> mean, std::span<const float> variance,
                         std::vector<float>& scale, std::vector<float>& shift);

// In place over planes: x = scale·(x − mean)/sqrt(var + eps) + bias for each of `channels` planes.
void batchNormInference(float* x, std::size_t channels, std::size_t plane, const float* scales,
                        const float* mean, const float* variance, const float* biases);

// Training: statistics per channel over batch × plane, rolling averages updated by 0.99/0.01.
// Saves x̂ for the backward pass and leaves act(scale·x̂ + bias) in x (the activation fused in).
void batchNormTrainingForward(float* x, int batch, int channels, int plane, const float* scales,
                              const float* biases, float* mean, float* variance, float* rollingMean,
                              float* rollingVariance, float* savedNormalized, Activation activation);
// A leaky (slope 0.1) or relu (slope 0) fused into that forward pass, for the backward pass to take
// through on its way: its gradient is 1 where scale·x̂ + bias > 0, so neither the output nor a pass over
// the delta is needed for it (the delta of a 192×192×16 batch is 38 MB). No biases: no rectifier.
struct FusedRectifier {
    const float* biases = nullptr;
    float slope = 1;
};

// Backward of the above, given delta = −∂loss/∂(scale·x̂ + bias) (or, with a rectifier, at its output):
// −∂loss/∂scale and −∂loss/∂bias are added to the gradients (both null: not wanted), delta becomes
// −∂loss/∂x.
void batchNormBackward(float* delta, const float* savedNormalized, const float* variance, const float* scales,
                       int batch, int channels, int plane, float* scaleGradient, float* biasGradient,
                       FusedRectifier rectifier = {});

// What a training layer keeps of its batch normalisation from the forward to the backward pass: the
// batch's mean and variance and the normalised values (sized on use).
class BatchNormTraining {
public:
    void forward(float* x, int batch, int channels, int plane, const float* scales, const float* biases,
                 float* rollingMean, float* rollingVariance, Activation activation);
    void backward(float* delta, const float* scales, int batch, int channels, int plane, float* scaleGradient,
                  float* biasGradient, FusedRectifier rectifier = {}) const;

private:
    std::vector<float> mean_, variance_, normalized_;
};

} // namespace nw
