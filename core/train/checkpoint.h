#pragma once
// The resume state of a training run, in one file written atomically: every layer's weight arrays
// (as in .weights), the solver's momentum buffers, the iteration, `seen` and the running averages.
// The .weights written beside it is for Darknet; resuming needs only this file.
#include "runtime/net.h"

#include <optional>
#include <string>
#include <vector>

namespace nw {

struct TrainState {
    int iteration = 0;
    std::uint64_t seen = 0;
    double averageLoss = -1;
    double elapsedSeconds = 0;
    std::optional<unsigned> seed; // the run's --seed (states before version 3 have none)
    float learningRate = 0;       // the run's --learning-rate (0: the cfg's; states before version 4)
    int maxBatches = 0;           // the run's --max-batches (0: the cfg's; states before version 5)
    std::vector<std::vector<float>> velocity;
};

std::optional<std::string> saveCheckpoint(const std::string& path, Net& net, const TrainState& state);
// Loads into `net` (which must be built from the same cfg) and `state`; nothing changes on error.
std::optional<std::string> loadCheckpoint(const std::string& path, Net& net, TrainState& state);
// A checkpoint's iteration, seen, average loss and elapsed time, from its header alone (no network
// needed, no arrays): what a studio opening a run folder shows; nullopt when the file is no checkpoint.
std::optional<TrainState> readCheckpointHeader(const std::string& path);

} // namespace nw
