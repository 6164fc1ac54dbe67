#pragma once
// How the processes of a data-parallel training run talk (issue 20): each rank trains on its share of
// every batch, the gradient sums are added up across ranks before the solver step, so N ranks with
// batch B each update the weights as one process with batch N·B does. The transport is an engine
// people already run (MPI here: core/distributed/mpi_communicator.h), never a home-made one.
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>

namespace nw {

class Communicator {
public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // "Open MPI 4.1.4, 2 ranks on 1 host", for the log.
    virtual std::string describe() const = 0;
    // values ← the sum of every rank's values, in place, on every rank. An error names the engine's.
    virtual std::optional<std::string> sum(float* values, std::size_t count) = 0;
    virtual std::optional<std::string> sum(double* values, std::size_t count) = 0;
    // values ← rank `root`'s values, on every rank.
    virtual std::optional<std::string> broadcast(float* values, std::size_t count, int root) = 0;
    virtual std::optional<std::string> broadcast(double* values, std::size_t count, int root) = 0;
    // Ends every rank of the job (after this rank's error was printed), so none waits forever.
    virtual void abort(int code) = 0;
    // Ranks of this job on this machine (they share its cores).
    virtual int ranksOnThisHost() const { return 1; }
};

// What a communicator reaching GPU memory (NCCL) adds: a buffer in device memory summed in place across
// ranks, queued on `stream` (a cudaStream_t), so gradients never leave the GPUs.
class DeviceSums {
public:
    virtual ~DeviceSums() = default;
    virtual std::optional<std::string> sumOnDevice(float* deviceValues, std::size_t count, void* stream) = 0;
};

// Whether this process was started by an MPI launcher (mpirun, srun with PMI/PMIx): its environment
// names a world size. A plain start trains alone.
inline bool launchedByMpi()
{
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
        if (const char* value = std::getenv(name); value && std::atoi(value) > 0)
            return true;
    return std::getenv("PMIX_RANK") != nullptr;
}

// One process: every operation leaves the values as they are.
class SingleProcess final : public Communicator {
public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    std::string describe() const override { return "one process"; }
    std::optional<std::string> sum(float*, std::size_t) override { return std::nullopt; }
    std::optional<std::string> sum(double*, std::size_t) override { return std::nullopt; }
    std::optional<std::string> broadcast(float*, std::size_t, int) override { return std::nullopt; }
    std::optional<std::string> broadcast(double*, std::size_t, int) override { return std::nullopt; }
    void abort(int) override {}
};

} // namespace nw
