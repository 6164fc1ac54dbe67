#pragma once
// Per-channel reductions of training (bias gradients, batch norm's statistics and its backward) on the
// GPU. A channel holds batch × plane values — millions in a detector's first layers, a handful in a
// [connected] layer — so each is reduced in chunks by a 2-D grid (channel × chunk, partial sums in
// double), then finished per channel, then applied element by element: the work spreads over the whole
// GPU whatever the shape. The formulas are the CPU's (kernels/cpu/batchnorm.cpp), named below.
#include "kernels/cpu/activations.h"

#include <cstddef>
#include <cuda_runtime.h>

namespace nw::cuda {

// Device scratch (doubles) the calls below need for `channels` channels of batch × plane values.
std::size_t channelScratchDoubles(int channels, int batch, int plane);

// gradient[c] += Σ over the batch and the plane of channel c's delta (a bias's −gradient).
void addChannelSums(const float* delta, int batch, int channels, int plane, float* gradient, double* scratch,
                    cudaStream_t stream);

// batchNormTrainingForward: per channel the mean and the ÷N variance (moments about the channel's first
// value, as the CPU), rolling averages by 0.99/0.01 (÷(N−1) variance), x̂ saved, and
// x = f(scale·x̂ + bias) with `fused` (Linear: none).
void batchNormTrainingForward(float* x, int batch, int channels, int plane, const float* scales,
                              const float* biases, float* mean, float* variance, float* rollingMean,
                              float* rollingVariance, float* savedNormalized, Activation fused,
                              double* scratch, cudaStream_t stream);
// batchNormBackward: −∂loss/∂scale and −∂loss/∂bias added to the gradients (both null: not wanted);
// delta becomes −∂loss/∂x.
void batchNormBackward(float* delta, const float* savedNormalized, const float* variance, const float* scales,
                       int batch, int channels, int plane, float* scaleGradient, float* biasGradient,
                       double* scratch, cudaStream_t stream);

} // namespace nw::cuda
