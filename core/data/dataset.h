#pragma once
// A classification data set: N samples of one image size, each with a class index.
#include "data/training_set.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nw {

class ClassificationDataset : public TrainingSet {
public:
    virtual int classes() const = 0;
    // The class of sample `index`; −1 for a one-class set's negatives (none of the classes).
    virtual int label(std::size_t index) const = 0;
    // Writes sample `index` as CHW floats in [0, 1]; false (with a warning) when it cannot be read.
    virtual bool image(std::size_t index, float* out, std::string& warning) const = 0;

    // A classifier's truth is one-hot over the classes.
    std::size_t truthFloats() const override { return std::size_t(classes()); }
    bool sample(std::size_t index, std::mt19937&, int, int, float* image, float* truth,
                std::string& warning) const override
    {
        if (!this->image(index, image, warning))
            return false;
        if (label(index) >= 0)
            truth[label(index)] = 1.0f;
        return true;
    }
};

// Darknet's [net] augmentation for classifier training.
struct Augmentation {
    bool enabled = false;
    int minCrop = 0, maxCrop = 0; // shorter side before the random crop (0: the network size)
    float aspect = 1, hue = 0, saturation = 1, exposure = 1;
    float angle = 0; // random rotation, ± degrees
    bool flip = true;
};

// Darknet's classification data: `list` has one image path per line; `labels` one class name per
// line, and an image's class is the one label its path contains (paths with none or several are
// skipped with a warning naming the list line). Images are scaled to width × height × channels;
// with augmentation enabled, randomly as Darknet's classifier training does. `classesFrom` says where
// `classes` was given ("pets.data (line 1)"), for the message when the labels' count differs.
std::unique_ptr<ClassificationDataset>
loadImageListDataset(const std::string& list, const std::string& labels, int classes, int width, int height,
                     int channels, const Augmentation& augmentation, unsigned seed, std::string& error,
                     std::vector<std::string>& warnings, const std::string& classesFrom = {});

// IDX files (MNIST, Fashion-MNIST), plain or gzip-compressed: images (magic 0x803, N×rows×cols bytes)
// and labels (magic 0x801). Errors name the file and what was wrong.
std::unique_ptr<ClassificationDataset> loadIdxDataset(const std::string& images, const std::string& labels,
                                                      int classes, std::string& error);

} // namespace nw
