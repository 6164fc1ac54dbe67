#pragma once
// A classification data set: N samples of one image size, each with a class index.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nw {

class ClassificationDataset {
public:
    virtual ~ClassificationDataset() = default;
    virtual std::size_t size() const = 0;
    virtual int width() const = 0;
    virtual int height() const = 0;
    virtual int channels() const = 0;
    virtual int classes() const = 0;
    virtual int label(std::size_t index) const = 0;
    // Writes sample `index` as CHW floats in [0, 1]; false (with a warning) when it cannot be read.
    virtual bool image(std::size_t index, float* out, std::string& warning) const = 0;
};

// IDX files (MNIST, Fashion-MNIST), plain or gzip-compressed: images (magic 0x803, N×rows×cols bytes)
// and labels (magic 0x801). Errors name the file and what was wrong.
std::unique_ptr<ClassificationDataset> loadIdxDataset(const std::string& images, const std::string& labels,
                                                      int classes, std::string& error);

} // namespace nw
