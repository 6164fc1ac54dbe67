#pragma once
// What `check-device` shares between its forward check (gpu_commands.cpp) and its training check
// (device_training_check.cpp). Builds with the CUDA backend only.
#include "runtime/net.h"

#include <span>
#include <string>

namespace nw::cli {

// Random weights that exercise every part of the GPU path (batch-norm statistics away from the
// identity, biases, a gain below one before residual sums), deterministic per seed.
void randomizeWeights(Net& net, unsigned seed);

// One training step on the GPU against the CPU on random weights, input and truth: the loss, every
// trainable array's gradient, batch norm's rolling statistics, and the weights after one SGD and one
// Adam step. Prints one line per network (and each array beyond the tolerance); 0 when all agree.
int checkTraining(const std::string& cfg, int device, int batch);

} // namespace nw::cli
