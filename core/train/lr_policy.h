#pragma once
// Darknet's learning-rate policies (docs/training.md): the rate for a given batch number, where
// batch_num = seen / (batch · subdivisions), with burn-in for every policy.
#include "graph/net_config.h"

#include <random>

namespace nw {

// `random` is used by policy=random only.
float learningRate(const NetConfig& net, int batchNumber, std::mt19937* random = nullptr);

} // namespace nw
