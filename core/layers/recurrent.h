#pragma once
// Shared cost rule of the recurrent layers, whose gates are connected (or convolutional) sub-layers.
#include "layers/layer_config.h"

namespace nw {

// Costs of `fromInput` connected blocks inputs→outputs plus `fromState` blocks outputs→outputs.
LayerCosts connectedBlocksCosts(std::int64_t inputs, std::int64_t outputs, int fromInput, int fromState);

} // namespace nw
