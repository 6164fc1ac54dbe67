#pragma once
// Darknet's activation functions, applied in place. One enum so hot loops switch once per array.
#include <cstddef>
#include <string>
#include <vector>

namespace nw {

enum class Activation {
    Logistic,
    Loggy,
    Relu,
    Elu,
    Selu,
    Relie,
    Plse,
    Hardtan,
    Lhtan,
    Linear,
    Ramp,
    Leaky,
    Tanh,
    Stair,
    Relu6,
    Swish,
    Mish,
    HardMish,
    Gelu
};

// Unknown names give Relu, as Darknet does (the description already warned).
Activation activationFromName(const std::string& name);
float activate(float x, Activation a);
// In place, on all threads for long arrays.
void activateArray(float* x, std::size_t n, Activation a);
// In place on the calling thread, sixteen at a time where lanes.h has the activation in vectors
// (within a few ulps of activate(); exp-based ones to 2e-7 relative, tested).
void activateSpan(float* x, std::size_t n, Activation a);

// Whether the derivative can be computed from the activation's output alone (Darknet's gradient
// functions); mish, swish, gelu and hard_mish need the input (ActivationCache keeps it).
bool gradientFromOutput(Activation a);
// delta[i] *= f'(x) for y = f(x), from the outputs y (activations with gradientFromOutput only).
void multiplyByGradient(const float* y, std::size_t n, Activation a, float* delta);
// delta[i] *= f'(x[i]), from the inputs x: any activation.
void multiplyByInputGradient(const float* x, std::size_t n, Activation a, float* delta);

// A training layer's activation: applies it in place and keeps what its derivative needs — nothing for
// activations whose derivative follows from the output, a copy of the input for mish, swish, gelu and
// hard_mish (as Darknet's activation_input arrays).
class ActivationCache {
public:
    void activate(float* x, std::size_t n, Activation a);
    // activate() while training, plain activateArray() otherwise (nothing to keep).
    void apply(float* x, std::size_t n, Activation a, bool training)
    {
        if (training)
            activate(x, n, a);
        else
            activateArray(x, n, a);
    }
    // delta *= f'(x) for the values of the last activate(); `y` are its outputs.
    void multiplyByGradient(const float* y, std::size_t n, Activation a, float* delta) const;

private:
    std::vector<float> input_;
};

} // namespace nw
