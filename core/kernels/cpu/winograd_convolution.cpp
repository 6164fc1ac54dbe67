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

// The transformed weights of the layer a training pass runs now: transformed once per call instead of
// once per block of the batch's tiles, into one buffer per calling thread sized by the largest layer (as
// Darknet's shared workspace) rather than kept per layer (4× every 3×3 weight: 1 GB for yolov4).
float* transformedForThisCall(const float* weights, int filters, int channels)
{
    thread_local std::vector<float> buffer; // grows, never shrinks: no refill between layers
    const std::size_t floats = std::size_t(kWinogradPoints) * std::size_t(filters) * std::size_t(channels);
    if (buffer.size() < floats)
        buffer.resize(floats);
    winogradTransformWeightsFast(weights, filters, channels, buffer.data());
    return buffer.data();
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
    if (std::size_t(filters_) * std::size_t(geometry_.channels) <= kKeptTransformPairs) {
        if (forwardStale_)
            winogradTransformWeights(weights.data(), filters_, geometry_.channels, forwardWeights_);
        forwardStale_ = false;
        kernel.transformed = forwardWeights_.data();
    } else if (!workspace) { // a training batch (every block of its tiles would transform them again)
        kernel.transformed = transformedForThisCall(weights.data(), filters_, geometry_.channels);
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
    }
    backwardStale_ = false;
    WinogradKernel kernel{backwardGeometry_, channels,           flipped_.data(),    ones_.data(),
                          zeros_.data(),     Activation::Linear, maxComputeThreads()};
    kernel.accumulate = true;
    kernel.transformed = transformedForThisCall(flipped_.data(), channels, filters_);
    convolveWinograd(kernel, images, outputDelta, inputDelta, scratch(backwardGeometry_, channels, images));
}

} // namespace nw
