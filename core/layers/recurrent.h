#pragma once
// What the recurrent layers share: their gates are connected sub-layers ("blocks").
#include "kernels/cpu/activations.h"
#include "layers/layer_config.h"
#include "runtime/layer_runtime.h"

#include <random>
#include <vector>

namespace nw {

// Costs of `fromInput` connected blocks inputs→outputs plus `fromState` blocks outputs→outputs.
LayerCosts connectedBlocksCosts(std::int64_t inputs, std::int64_t outputs, int fromInput, int fromState);

// One connected sub-layer: y = act(BN(W·x + b)), with batch norm from its rolling statistics.
struct ConnectedBlock {
    int inputs = 0, outputs = 0;
    bool batchNormalize = false;
    Activation activation = Activation::Linear;
    std::vector<float> biases, weights, scales, mean, variance;

    ConnectedBlock(int inputs, int outputs, bool batchNormalize, Activation activation);
    // Darknet's connected order: biases, weights, then the batch-norm arrays.
    void appendWeightArrays(std::vector<WeightArray>& arrays);
    void initialize(std::mt19937& random);
    void forward(const float* in, float* out, int batch) const;
};

} // namespace nw
