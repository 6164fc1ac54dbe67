#pragma once
// Where a Trainer's passes and updates run: the CPU (the host Net and a Solver) or a CUDA device
// (GpuNet and GpuSolver, train/gpu_training_backend.cpp). The Trainer keeps the loop, the data, the
// checkpoints and the reports; the backend keeps the weights where they are trained and brings the
// host net up to date before anything reads it (a checkpoint, validation, a resize).
#include "data/host_memory.h"
#include "graph/net_config.h"
#include "runtime/net.h"
#include "train/communicator.h"

#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace nw {

class TrainingBackend {
public:
    virtual ~TrainingBackend() = default;
    // "cpu" or "cuda:0 (NVIDIA H100 …)", for the log.
    virtual std::string describe() const = 0;
    // One pass (Net::forwardTraining) and its backward; the loss summed over the batch.
    virtual double forwardTraining(const float* images, const float* truth, std::mt19937& random) = 0;
    virtual const std::vector<HeadStats>& headStats() const = 0;
    virtual void backward() = 0;
    // Every rank's gradient sums added up (data-parallel runs).
    virtual std::optional<std::string> sumGradients(Communicator& team) = 0;
    // One solver update with the accumulated gradients, which are cleared.
    virtual void step(std::vector<Net::LayerParameters>& parameters, float rate, int batchSize) = 0;
    // The host net's parameter values made current (before a checkpoint, validation or a resize).
    virtual void syncToHost() = 0;
    // The solver's state in the CPU solver's layout (checkpoints), and setting it (a resumed run).
    virtual std::vector<std::vector<float>> solverState() = 0;
    virtual void setSolverState(const std::vector<std::vector<float>>& state) = 0;
    // After the host net was resized (multi-scale) or its values replaced: the backend follows.
    virtual std::optional<std::string> netChanged() = 0;
    // Where the batch loader keeps the images (null: the heap; a GPU: page-locked memory, which it
    // uploads from asynchronously). Outlives the loader.
    virtual HostMemory* batchMemory() { return nullptr; }
    // How validation runs an inference pass with the weights being trained (empty: the host net's
    // own forward; a GPU: its copy, the results copied back).
    virtual ForwardPass evaluationPass() = 0;
};

// The CPU: the net's own passes and the cfg's solver.
std::unique_ptr<TrainingBackend> makeCpuTrainingBackend(Net& net, const NetConfig& config);
// A CUDA device (builds with NETWRIGHT_WITH_CUDA; elsewhere nullptr and a message). Null and a message
// naming the layer when a layer cannot train on the GPU, or the device fails.
std::unique_ptr<TrainingBackend> makeGpuTrainingBackend(Net& net, const NetConfig& config, int device,
                                                        std::string& error);

} // namespace nw
