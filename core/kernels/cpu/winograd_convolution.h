#pragma once
// A convolutional layer's use of the Winograd kernel: which passes it serves, the weights flipped and
// transposed for the input gradient (redone only after the weights changed), and scratch for whole
// training batches. For inference the kernel transforms weights as it uses them, so nothing 4× larger is
// kept except for small layers (at most kKeptTransformPairs pairs, where transforming per block would
// cost more); a training pass transforms them once per call into one buffer shared by the layers.
#include "kernels/cpu/winograd.h"

#include <span>
#include <vector>

namespace nw {

class WinogradConvolution {
public:
    // geometry: the layer's (one group); filters: its output channels.
    WinogradConvolution(const ConvGeometry& geometry, int filters, bool allowed);

    bool servesForward() const { return forward_; }
    bool servesInputGradient() const { return backward_; }
    // Call whenever the weights may have changed (loaded, initialised, handed out for an update).
    void weightsChanged() { forwardStale_ = backwardStale_ = true; }
    std::size_t workspaceFloats() const; // for one image at a time from the shared workspace

    // output = act(convolution · scale + shift) for `images` images; workspace: nullptr for own scratch
    // (a training batch, whose weights are then transformed once for the call, not once per block).
    void forward(std::span<const float> weights, const float* scale, const float* shift,
                 Activation activation, int images, const float* input, float* output, float* workspace);
    // inputDelta += the gradient of the convolution's input for outputDelta (images side by side).
    void addInputGradient(std::span<const float> weights, int images, const float* outputDelta,
                          float* inputDelta);

private:
    ConvGeometry geometry_, backwardGeometry_; // the input gradient: the flipped kernel over the deltas
    int filters_;
    bool forward_, backward_;
    bool forwardStale_ = true, backwardStale_ = true;
    // Transformed weights, kept only for small layers (kKeptTransformPairs).
    std::vector<float> forwardWeights_, flipped_, ones_, zeros_, scratch_;

    float* scratch(const ConvGeometry& geometry, int filters, int images);
};

} // namespace nw
