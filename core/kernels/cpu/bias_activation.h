#pragma once
// The output pass of convolution-like layers: x[c][i] = act(x[c][i] + bias[c]) over `channels` planes.
#include "kernels/cpu/activations.h"

#include <cstddef>

namespace nw {

void addBiasActivate(float* x, std::size_t channels, std::size_t plane, const float* bias,
                     Activation activation);

} // namespace nw
