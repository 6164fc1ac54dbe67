#pragma once
// The steps of a data-parallel iteration that go through the Communicator (trainer.cpp calls them):
// the same start on every rank, the gradient sums added up, and batch norm's rolling statistics made
// what one process running every rank's passes in order would have.
#include "runtime/net.h"
#include "train/checkpoint.h"
#include "train/communicator.h"

#include <optional>
#include <string>
#include <vector>

namespace nw {

// Rank 0's weights, solver state, counters, seed and --learning-rate (state.learningRate) on every rank (rank
// 0 loaded them; the others may not even see its files; a resumed run goes on with the seed it started with,
// which only rank 0 read). `leaderFailed`: rank 0 could not load; every rank then returns an error.
std::optional<std::string> shareStart(Communicator& communicator, Net& net, TrainState& state, unsigned& seed,
                                      bool leaderFailed);

// Every trainable gradient summed across ranks: one all-reduce of the net's flat gradient buffer.
std::optional<std::string> sumGradients(Communicator& communicator, Net& net);

// Batch norm's rolling mean and variance move by r ← 0.99·r + 0.01·m per pass. One process running
// all N·S passes of an iteration in order ends at 0.99^(NS)·r0 + Σ_j 0.01·0.99^(NS−1−j)·m_j; rank k
// ran passes j = k·S … k·S + S − 1 from r0, so its share is (r_k − 0.99^S·r0)·0.99^((N−1−k)·S), and the
// shares add up across ranks.
class RollingStatistics {
public:
    void remember(Net& net); // r0, before the iteration's passes
    std::optional<std::string> combine(Communicator& communicator, Net& net, int passesPerRank);

private:
    std::vector<std::vector<float>> start_;
    std::vector<float> flat_;
};

} // namespace nw
