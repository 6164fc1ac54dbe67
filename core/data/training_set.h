#pragma once
// What the trainer's batch loader reads: N samples of one input size, each an image and a truth
// vector of fixed length (one-hot classes for classifiers, boxes for detectors).
#include <cstddef>
#include <random>
#include <string>

namespace nw {

class TrainingSet {
public:
    virtual ~TrainingSet() = default;
    virtual std::size_t size() const = 0;
    virtual int width() const = 0;
    virtual int height() const = 0;
    virtual int channels() const = 0;
    // Floats of truth per sample.
    virtual std::size_t truthFloats() const = 0;
    // Sets that can place their images at any size (detection sets: multi-scale training).
    virtual bool resizable() const { return false; }
    // Writes sample `index` (augmented with `random` where the set augments) as CHW floats in [0, 1]
    // of width × height (always width() × height() unless resizable()) and its truth into zeroed
    // memory; false (with a warning) when it cannot be read.
    virtual bool sample(std::size_t index, std::mt19937& random, int width, int height, float* image,
                        float* truth, std::string& warning) const = 0;
};

} // namespace nw
