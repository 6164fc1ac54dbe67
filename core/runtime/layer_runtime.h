#pragma once
// The runtime side of a layer type: its weights (in .weights file order) and its forward pass.
// Each layer type implements it next to its shape rule, in core/layers/<type>.cpp.
#include "runtime/exec_context.h"
#include "runtime/tensor.h"

#include <random>
#include <span>
#include <string>
#include <vector>

namespace nw {

struct WeightsHeader;

// One array of a layer's parameters as it sits in a .weights file.
struct WeightArray {
    const char* name;         // "biases", "scales", "rolling_mean", "rolling_variance", "weights"
    std::vector<float>* data; // owned by the layer
    bool batchNormStatistic;  // scales/mean/variance: skipped by dontloadscales
};

struct ForwardArgs {
    const Tensor& input;                    // the previous layer's output (or the net input)
    std::span<const Tensor* const> sources; // outputs of the layers named by route/shortcut/...
    Tensor& output;
    ExecContext& context;
};

class RuntimeLayer {
public:
    virtual ~RuntimeLayer() = default;
    virtual void forward(ForwardArgs& args) = 0;
    // Parameter arrays in .weights order (empty for layers without weights).
    virtual std::vector<WeightArray> weightArrays() { return {}; }
    // Called after weights were loaded or initialised: fix file-order quirks, fold batch norm, pack.
    virtual void prepare(const WeightsHeader&) {}
    // Fills the parameters for a net trained from scratch (Darknet's scaled uniform; BN identity).
    virtual void initialize(std::mt19937&) {}
    // Scratch floats this layer needs in the shared workspace for one batch item.
    virtual std::size_t workspaceFloats() const { return 0; }
};

} // namespace nw
