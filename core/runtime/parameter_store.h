#pragma once
// ParameterStore: every parameter of a net in one flat buffer, and every trained array's gradient in
// another (Caffe's flat parameter blob). Each layer's arrays are views of their ranges (param_array.h),
// so the solver, checkpoints and the data-parallel all-reduce work on whole buffers, and a device
// backend mirrors two buffers instead of hundreds of arrays.
#include "runtime/layer_runtime.h"

#include <memory>
#include <span>
#include <vector>

namespace nw {

class ParameterStore {
public:
    // Moves every array of every layer, in .weights order, into the value buffer; the arrays' values
    // are kept. Called when the net is built.
    void bindValues(std::span<const std::unique_ptr<RuntimeLayer>> layers);
    // Moves the gradient of every parameter in `trained` (sized by the layers on first use) into the
    // gradient buffer, with what they hold. Called when training starts, and again after the layers
    // were rebuilt for another input size.
    void bindGradients(std::span<const std::vector<Parameter>> trained);

    std::span<float> values() { return values_; }
    std::span<const float> values() const { return values_; }
    // Empty until training starts.
    std::span<float> gradients() { return gradients_; }

private:
    std::vector<float> values_, gradients_;
};

} // namespace nw
