#include "kernels/cpu/winograd_convolution.h"

#include "kernels/cpu/gemm.h"

namespace nw {

namespace {

// The input gradient of a 3×3 stride-1 convolution with padding p is a 3×3 convolution of the output
// deltas with the kernel rotated by 180° and filters and channels swapped, padding 2 − p.
ConvGeometry inputGradientGeometry(const ConvGeometry& g, int filters)
{
    return {filters, g.outHeight, g.outWidth, 3, 1, 1, 2 - g.pad, 1, g.height, g.width};
}

} // namespace

WinogradConvolution::WinogradConvolution(const ConvGeometry& geometry, int filters, bool allowed)
    : geometry_(geometry), backwardGeometry_(inputGradientGeometry(geometry, filters)), filters_(filters),
      forward_(allowed && winogradPays(geometry, 1, filters)),
      // Only for layers the kernel applies to: the rotated-kernel geometry is always 3×3 stride 1, so
      // it must not stand for a 1×1 or strided layer's gradient.
      backward_(allowed && winogradApplies(geometry, 1) && geometry.pad <= 2 &&
                winogradPays(backwardGeometry_, 1, geometry.channels)),
      ones_(std::size_t(std::max(filters, geometry.channels)), 1.0f),
      zeros_(std::size_t(std::max(filters, geometry.channels)), 0.0f)
{
}

std::size_t WinogradConvolution::workspaceFloats() const
{
    return forward_ ? winogradWorkspaceFloats(geometry_, filters_, 1, maxComputeThreads()) : 0;
}

float* WinogradConvolution::scratch(const ConvGeometry& geometry, int filters, int images)
{
    const std::size_t floats = winogradWorkspaceFloats(geometry, filters, images, maxComputeThreads());
    if (scratch_.size() < floats)
        scratch_.resize(floats);
    return scratch_.data();
}

void WinogradConvolution::forward(std::span<const float> weights, const float* scale, const float* shift,
                                  Activation activation, int images, const float* input, float* output,
                                  float* workspace)
{
    WinogradKernel kernel{geometry_,
                          filters_,
                          weights.data(),
                          scale ? scale : ones_.data(),
                          shift ? shift : zeros_.data(),
                          activation,
                          maxComputeThreads()};
    // A whole batch in its own scratch (training) keeps them too: every block of tiles would transform
    // them again (5 % of a shapes-tiny training pass), and the scratch is batch-sized anyway.
    const bool small = std::size_t(filters_) * std::size_t(geometry_.channels) <= kKeptTransformPairs;
    if (small || !workspace) {
        if (forwardStale_ && small)
            winogradTransformWeights(weights.data(), filters_, geometry_.channels, forwardWeights_);
        else if (forwardStale_) // (the kernel's own float transform: the numbers it would use per block)
            winogradTransformWeightsFast(weights.data(), filters_, geometry_.channels, forwardWeights_);
        forwardStale_ = false;
        kernel.transformed = forwardWeights_.data();
    }
    convolveWinograd(kernel, images, input, output,
                     workspace ? workspace : scratch(geometry_, filters_, images));
}

void WinogradConvolution::addInputGradient(std::span<const float> weights, int images,
                                           const float* outputDelta, float* inputDelta)
{
    const int channels = geometry_.channels;
    if (backwardStale_) { // w'[c][f][i][j] = w[f][c][2 − i][2 − j]
        flipped_.resize(weights.size());
        for (int f = 0; f < filters_; ++f)
            for (int c = 0; c < channels; ++c)
                for (int tap = 0; tap < 9; ++tap)
                    flipped_[(std::size_t(c) * std::size_t(filters_) + std::size_t(f)) * 9 +
                             std::size_t(8 - tap)] =
                        weights[(std::size_t(f) * std::size_t(channels) + std::size_t(c)) * 9 +
                                std::size_t(tap)];
        // Transformed once per weight change, not again for every block of the batch's tiles.
        winogradTransformWeightsFast(flipped_.data(), channels, filters_, backwardWeights_);
    }
    backwardStale_ = false;
    WinogradKernel kernel{backwardGeometry_, channels,           flipped_.data(),    ones_.data(),
                          zeros_.data(),     Activation::Linear, maxComputeThreads()};
    kernel.accumulate = true;
    kernel.transformed = backwardWeights_.data();
    convolveWinograd(kernel, images, outputDelta, inputDelta, scratch(backwardGeometry_, channels, images));
}

} // namespace nw
