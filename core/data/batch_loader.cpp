#include "data/batch_loader.h"

#include <algorithm>
#include <numeric>
#include <random>
#if NETWRIGHT_WITH_OPENCV
#include <opencv2/core/utility.hpp>
#endif

namespace nw {

BatchLoader::BatchLoader(const TrainingSet& data, int batchSize, unsigned seed, std::uint64_t firstSample,
                         Shard shard, int threads, HostMemory* memory)
    : data_(data), batchSize_(batchSize), seed_(seed), threads_(std::max(1, threads)), memory_(memory),
      start_(firstSample), shard_(shard), width_(data.width()), height_(data.height()),
      thread_([this] { work(); })
{
}

std::uint64_t BatchLoader::firstSampleOf(std::uint64_t pass) const
{
    const auto passes = std::uint64_t(std::max(1, shard_.passes)),
               ranks = std::uint64_t(std::max(1, shard_.ranks));
    const std::uint64_t group = pass / passes, within = pass % passes;
    return start_ +
           ((group * ranks + std::uint64_t(shard_.rank)) * passes + within) * std::uint64_t(batchSize_);
}

void BatchLoader::setInputSize(int width, int height)
{
    if (!data_.resizable())
        return;
    std::lock_guard lock(mutex_);
    width_ = width;
    height_ = height;
    if (ready_ && (ready_->width != width || ready_->height != height)) {
        nextPass_ = ready_->pass;
        ready_.reset();
        changed_.notify_all();
    }
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

bool BatchLoader::trySample(Batch& batch, int b, std::uint64_t k, std::size_t index,
                            std::string& warning) const
{
    const std::size_t imageSize =
        std::size_t(batch.width) * std::size_t(batch.height) * std::size_t(data_.channels());
    const std::size_t truthSize = data_.truthFloats();
    // Augmentation draws from a stream of its own per sample: repeatable on resume, and whichever
    // worker prepares it.
    std::mt19937 random(unsigned(std::uint64_t(seed_) * 2654435761u + k * 40503u));
    float* truth = batch.truth.data() + std::size_t(b) * truthSize;
    float* image = batch.images.data() + std::size_t(b) * imageSize;
    std::fill(truth, truth + truthSize, 0.0f);
    if (data_.sample(index, random, batch.width, batch.height, image, truth, warning))
        return true;
    std::fill(image, image + imageSize, 0.0f); // nothing of a half-read sample stays
    return false;
}

void BatchLoader::fill(Batch& batch)
{
    const std::size_t imageSize =
        std::size_t(batch.width) * std::size_t(batch.height) * std::size_t(data_.channels());
    batch.images.assign(std::size_t(batchSize_) * imageSize, 0.0f);
    batch.truth.assign(std::size_t(batchSize_) * data_.truthFloats(), 0.0f);
    batch.warnings.clear();
    // First tries of every image side by side (sample k = first + b)…
    const auto count = std::size_t(batchSize_);
    std::vector<std::size_t> indexes(count);
    for (int b = 0; b < batchSize_; ++b)
        indexes[std::size_t(b)] = sampleAt(batch.first + std::uint64_t(b));
    std::vector<char> done(count, 0);
    std::vector<std::string> warnings(count);
    std::vector<std::exception_ptr> failures(count); // an exception must not leave an OpenMP region
#pragma omp parallel for num_threads(threads_) schedule(dynamic) if (threads_ > 1)
    for (int b = 0; b < batchSize_; ++b)
        try {
            done[std::size_t(b)] = trySample(batch, b, batch.first + std::uint64_t(b),
                                             indexes[std::size_t(b)], warnings[std::size_t(b)]);
        } catch (...) {
            failures[std::size_t(b)] = std::current_exception();
        }
    for (const std::exception_ptr& failure : failures)
        if (failure)
            std::rethrow_exception(failure);
    // …then, from the first unreadable one on, the sequential rule: it is skipped with a warning and the
    // next sample takes its place, which moves every later image along.
    int b = 0;
    while (b < batchSize_ && done[std::size_t(b)])
        ++b;
    std::uint64_t k = batch.first + std::uint64_t(b);
    constexpr int kAttempts = 100;
    for (; b < batchSize_; ++b) {
        int attempt = 0;
        for (; attempt < kAttempts; ++attempt) {
            std::string warning;
            const std::uint64_t sample = k++;
            if (trySample(batch, b, sample, sampleAt(sample), warning))
                break;
            batch.warnings.push_back(warning);
        }
        if (attempt == kAttempts) { // a blank image would train as one: stop instead
            batch.failed = std::to_string(kAttempts) +
                           " samples in a row could not be read (the last: " + batch.warnings.back() +
                           "): check the image list";
            return;
        }
    }
}

void BatchLoader::work()
{
    // The loader shares the cores with the compute threads: OpenCV's own thread pool (TBB on Debian)
    // would only add spinning workers, so its calls run in this thread.
#if NETWRIGHT_WITH_OPENCV
    cv::setNumThreads(1);
#endif
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        if (ready_) {
            changed_.wait(lock);
            continue;
        }
        Batch batch;
        if (!spares_.empty()) { // its buffers' capacity; fill() overwrites every value
            batch.images = std::move(spares_.back().images);
            batch.truth = std::move(spares_.back().truth);
            spares_.pop_back();
        } else {
            batch.images = HostFloats(HostAllocator<float>(memory_));
        }
        batch.pass = nextPass_++;
        batch.first = firstSampleOf(batch.pass);
        batch.width = width_;
        batch.height = height_;
        lock.unlock();
        try {
            fill(batch);
        } catch (...) { // (out of memory, a library's exception): next() rethrows it to the trainer
            lock.lock();
            failed_ = std::current_exception();
            changed_.notify_all();
            return;
        }
        lock.lock();
        if (batch.width != width_ || batch.height != height_) { // resized meanwhile: again, at the new size
            nextPass_ = batch.pass;
            continue;
        }
        ready_ = std::move(batch);
        changed_.notify_all();
    }
}

void BatchLoader::recycle(Batch&& used)
{
    std::lock_guard lock(mutex_);
    if (spares_.size() < 2) // one batch in use and one prepared: more are never needed at once
        spares_.push_back(std::move(used));
}

Batch BatchLoader::next()
{
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return ready_.has_value() || failed_; });
    if (!ready_)
        std::rethrow_exception(failed_);
    Batch batch = std::move(*ready_);
    ready_.reset();
    changed_.notify_all();
    return batch;
}

} // namespace nw
