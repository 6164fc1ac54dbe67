#include "data/batch_loader.h"

#include <algorithm>
#include <numeric>
#include <opencv2/core/utility.hpp>
#include <random>

namespace nw {

BatchLoader::BatchLoader(const TrainingSet& data, int batchSize, unsigned seed, std::uint64_t firstSample)
    : data_(data), batchSize_(batchSize), seed_(seed), nextSample_(firstSample), thread_([this] { work(); })
{
}

BatchLoader::~BatchLoader()
{
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

std::size_t BatchLoader::sampleAt(std::uint64_t k)
{
    const std::uint64_t n = data_.size();
    const std::uint64_t epoch = k / n;
    if (epoch != permutationEpoch_) {
        permutation_.resize(n);
        std::iota(permutation_.begin(), permutation_.end(), std::size_t(0));
        std::mt19937_64 random(std::uint64_t(seed_) * 1000003u + epoch);
        std::shuffle(permutation_.begin(), permutation_.end(), random);
        permutationEpoch_ = epoch;
    }
    return permutation_[std::size_t(k % n)];
}

void BatchLoader::fill(Batch& batch, std::uint64_t first)
{
    const std::size_t imageSize =
        std::size_t(data_.width()) * std::size_t(data_.height()) * std::size_t(data_.channels());
    const std::size_t truthSize = data_.truthFloats();
    batch.images.assign(std::size_t(batchSize_) * imageSize, 0.0f);
    batch.truth.assign(std::size_t(batchSize_) * truthSize, 0.0f);
    batch.warnings.clear();
    std::uint64_t k = first;
    for (int b = 0; b < batchSize_; ++b) {
        // An unreadable sample is skipped with a warning; the next one takes its place.
        for (int attempt = 0; attempt < 100; ++attempt) {
            // Augmentation draws from a stream of its own per sample: repeatable on resume.
            std::mt19937 random(unsigned(std::uint64_t(seed_) * 2654435761u + k * 40503u));
            const std::size_t index = sampleAt(k++);
            std::string warning;
            float* truth = batch.truth.data() + std::size_t(b) * truthSize;
            std::fill(truth, truth + truthSize, 0.0f);
            if (data_.sample(index, random, batch.images.data() + std::size_t(b) * imageSize, truth, warning))
                break;
            batch.warnings.push_back(warning);
        }
    }
}

void BatchLoader::work()
{
    // The loader shares the cores with the compute threads: OpenCV's own thread pool (TBB on Debian)
    // would only add spinning workers, so its calls run in this thread.
    cv::setNumThreads(1);
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        if (ready_) {
            changed_.wait(lock);
            continue;
        }
        const std::uint64_t first = nextSample_;
        nextSample_ += std::uint64_t(batchSize_);
        lock.unlock();
        Batch batch;
        fill(batch, first);
        lock.lock();
        ready_ = std::move(batch);
        changed_.notify_all();
    }
}

Batch BatchLoader::next()
{
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return ready_.has_value(); });
    Batch batch = std::move(*ready_);
    ready_.reset();
    changed_.notify_all();
    return batch;
}

} // namespace nw
