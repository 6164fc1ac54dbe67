#include "train/data_parallel.h"

#include <cmath>
#include <cstring>

namespace nw {

namespace {

std::vector<ParamArray*> rollingArrays(Net& net)
{
    std::vector<ParamArray*> arrays;
    for (const WeightArray& array : net.weightArrays())
        if (std::strcmp(array.name, "rolling_mean") == 0 || std::strcmp(array.name, "rolling_variance") == 0)
            arrays.push_back(array.data);
    return arrays;
}

} // namespace

std::optional<std::string> shareStart(Communicator& communicator, Net& net, TrainState& state, unsigned& seed,
                                      bool leaderFailed)
{
    if (communicator.size() == 1)
        return std::nullopt;
    const bool leader = communicator.rank() == 0;
    // Counters and the solver state's shape first: the other ranks size their arrays from them.
    std::vector<double> header{leaderFailed ? 1.0 : 0.0,
                               double(state.iteration),
                               double(state.seen),
                               state.averageLoss,
                               state.elapsedSeconds,
                               double(state.velocity.size()),
                               double(seed), // (a double holds every unsigned exactly)
                               double(state.learningRate),
                               double(state.maxBatches)};
    if (auto problem = communicator.broadcast(header.data(), header.size(), 0))
        return problem;
    if (header[0] != 0)
        return std::string("rank 0 could not start (its message says why)");
    if (!leader) {
        state.iteration = int(header[1]);
        state.seen = std::uint64_t(header[2]);
        state.averageLoss = header[3];
        state.elapsedSeconds = header[4];
        state.velocity.resize(std::size_t(header[5]));
        seed = unsigned(header[6]);
        state.learningRate = float(header[7]);
        state.maxBatches = int(header[8]);
    }
    std::vector<double> sizes;
    for (const auto& v : state.velocity)
        sizes.push_back(double(v.size()));
    sizes.resize(state.velocity.size());
    if (auto problem = communicator.broadcast(sizes.data(), sizes.size(), 0))
        return problem;
    for (std::size_t i = 0; i < state.velocity.size(); ++i) {
        state.velocity[i].resize(std::size_t(sizes[i]));
        if (auto problem = communicator.broadcast(state.velocity[i].data(), state.velocity[i].size(), 0))
            return problem;
    }
    const std::span<float> values = net.parameterValues(); // every layer's arrays, in one buffer
    if (auto problem = communicator.broadcast(values.data(), values.size(), 0))
        return problem;
    net.setSeen(state.seen);
    net.prepareAll();
    return std::nullopt;
}

std::optional<std::string> sumGradients(Communicator& communicator, Net& net)
{
    if (communicator.size() == 1)
        return std::nullopt;
    const std::span<float> gradients = net.parameterGradients();
    return communicator.sum(gradients.data(), gradients.size());
}

void RollingStatistics::remember(Net& net)
{
    const std::vector<ParamArray*> arrays = rollingArrays(net);
    start_.resize(arrays.size());
    for (std::size_t a = 0; a < arrays.size(); ++a) // assign keeps the capacity: no allocation per iteration
        start_[a].assign(arrays[a]->begin(), arrays[a]->end());
}

std::optional<std::string> RollingStatistics::combine(Communicator& communicator, Net& net, int passesPerRank)
{
    if (communicator.size() == 1)
        return std::nullopt;
    const std::vector<ParamArray*> arrays = rollingArrays(net);
    const double ranks = communicator.size(), passes = passesPerRank;
    const float ownDecay = float(std::pow(0.99, passes));
    const float later = float(std::pow(0.99, (ranks - 1 - communicator.rank()) * passes));
    const float allDecay = float(std::pow(0.99, ranks * passes));
    std::size_t total = 0;
    for (const auto* array : arrays)
        total += array->size();
    flat_.resize(total);
    std::size_t at = 0;
    for (std::size_t a = 0; a < arrays.size(); ++a)
        for (std::size_t i = 0; i < arrays[a]->size(); ++i)
            flat_[at++] = ((*arrays[a])[i] - ownDecay * start_[a][i]) * later;
    if (auto problem = communicator.sum(flat_.data(), flat_.size()))
        return problem;
    at = 0;
    for (std::size_t a = 0; a < arrays.size(); ++a)
        for (std::size_t i = 0; i < arrays[a]->size(); ++i)
            (*arrays[a])[i] = allDecay * start_[a][i] + flat_[at++];
    return std::nullopt;
}

} // namespace nw
