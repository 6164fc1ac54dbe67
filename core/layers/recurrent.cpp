#include "layers/recurrent.h"

#include "kernels/cpu/batchnorm.h"
#include "kernels/cpu/gemm.h"

#include <cmath>

namespace nw {

LayerCosts connectedBlocksCosts(std::int64_t inputs, std::int64_t outputs, int fromInput, int fromState)
{
    LayerCosts costs;
    costs.params = fromInput * (inputs * outputs + outputs) + fromState * (outputs * outputs + outputs);
    costs.bflops = 2.0 * double(fromInput * inputs * outputs + fromState * outputs * outputs) / 1e9;
    return costs;
}

ConnectedBlock::ConnectedBlock(int in, int out, bool bn, Activation act)
    : inputs(in), outputs(out), batchNormalize(bn), activation(act), biases(std::size_t(out), 0.0f),
      weights(std::size_t(in) * std::size_t(out), 0.0f)
{
    if (bn) {
        scales.assign(std::size_t(out), 1.0f);
        mean.assign(std::size_t(out), 0.0f);
        variance.assign(std::size_t(out), 1.0f);
    }
}

void ConnectedBlock::appendWeightArrays(std::vector<WeightArray>& arrays)
{
    arrays.push_back({"biases", &biases, false});
    arrays.push_back({"weights", &weights, false});
    if (batchNormalize) {
        arrays.push_back({"scales", &scales, true});
        arrays.push_back({"rolling_mean", &mean, true});
        arrays.push_back({"rolling_variance", &variance, true});
    }
}

void ConnectedBlock::initialize(std::mt19937& random)
{
    const float scale = std::sqrt(2.0f / float(inputs)) * std::sqrt(3.0f);
    std::uniform_real_distribution<float> uniform(-scale, scale);
    for (float& w : weights)
        w = uniform(random);
}

void ConnectedBlock::forward(const float* in, float* out, int batch) const
{
    gemm(false, true, batch, outputs, inputs, 1.0f, in, inputs, weights.data(), inputs, 0.0f, out, outputs);
    std::vector<float> scale, shift;
    batchNormScaleShift(biases, scales, mean, variance, scale, shift);
    for (int b = 0; b < batch; ++b)
        for (std::size_t o = 0; o < std::size_t(outputs); ++o) {
            float& v = out[std::size_t(b) * std::size_t(outputs) + o];
            v = activate(v * scale[o] + shift[o], activation);
        }
}

} // namespace nw
