#pragma once
// Prepares the next training batch on a background thread while the current one trains (with
// `threads` > 1, its images in parallel: a GPU trains faster than one core prepares images).
// Samples come from a seeded stream: sample k is item perm_e[k mod N] of epoch e = k / N, where
// perm_e is a shuffle seeded by (seed, e) — so a resumed run sees exactly the batches it would have.
#include "data/host_memory.h"
#include "data/training_set.h"

#include <cstdint>
#include <vector>

#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

namespace nw {

struct Batch {
    int width = 0, height = 0; // of each image
    std::uint64_t pass = 0;    // this loader's count of batches before it
    std::uint64_t first = 0;   // the stream position of its first sample
    HostFloats images;         // batch × CHW (in the loader's HostMemory: a GPU uploads it from there)
    std::vector<float> truth;  // batch × the set's truth floats
    std::vector<std::string> warnings;
    std::string failed; // set when a place could not be filled: too many unreadable samples in a row
};

// One process's share of a data-parallel run (train/communicator.h): of every ranks × passes
// consecutive batches of the stream, rank r takes batches r·passes … r·passes + passes − 1. So N ranks
// see, between them, the batches one process with N times the passes sees, in the same groups.
struct Shard {
    int rank = 0, ranks = 1, passes = 1;
};

class BatchLoader {
public:
    // `threads`: workers preparing one batch's images; every count gives the same batches. `memory`:
    // where the images are kept (null: the heap; it must outlive the loader and its batches).
    BatchLoader(const TrainingSet& data, int batchSize, unsigned seed, std::uint64_t firstSample,
                Shard shard = {}, int threads = 1, HostMemory* memory = nullptr);
    ~BatchLoader();
    BatchLoader(const BatchLoader&) = delete;
    BatchLoader& operator=(const BatchLoader&) = delete;

    // The next batch; rethrows what stopped the worker preparing it (out of memory, say).
    Batch next();
    // Gives a used batch's buffers back, for a later batch to be prepared in: the same few buffers then
    // circulate (page-locked memory is slow to allocate).
    void recycle(Batch&& used);
    // Batches from the next one on come at this size (a resizable() set only: multi-scale
    // training). A batch prepared at the old size is prepared again from the same samples.
    void setInputSize(int width, int height);

private:
    void fill(Batch& batch);
    // One try at sample k of the stream into image b; false (and the warning) when it is unreadable.
    bool trySample(Batch& batch, int b, std::uint64_t k, std::size_t index, std::string& warning) const;
    std::size_t sampleAt(std::uint64_t k);
    std::uint64_t firstSampleOf(std::uint64_t pass) const;
    void work();

    const TrainingSet& data_;
    int batchSize_;
    unsigned seed_;
    int threads_;
    HostMemory* memory_;
    std::uint64_t start_; // the stream position of pass 0 of rank 0
    Shard shard_;
    std::uint64_t nextPass_ = 0; // this loader's next batch
    int width_, height_;
    std::uint64_t permutationEpoch_ = ~std::uint64_t(0);
    std::vector<std::size_t> permutation_;
    std::optional<Batch> ready_;
    std::vector<Batch> spares_; // recycled buffers for the next batches prepared
    std::exception_ptr failed_; // what ended the worker, for next() to rethrow
    bool stopping_ = false;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::thread thread_;
};

} // namespace nw
