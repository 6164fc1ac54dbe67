#pragma once
// Darknet's activation functions, applied in place. One enum so hot loops switch once per array.
#include <cstddef>
#include <string>

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
void activateArray(float* x, std::size_t n, Activation a);

// Whether the derivative can be computed from the activation's output alone (Darknet's gradient
// functions); mish, swish, gelu and hard_mish need the input and cannot train yet.
bool gradientFromOutput(Activation a);
// delta[i] *= f'(x) for y = f(x), from the outputs y.
void multiplyByGradient(const float* y, std::size_t n, Activation a, float* delta);

} // namespace nw
