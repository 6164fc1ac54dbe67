#include "data/dataset.h"

#include "util/file_check.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unistd.h>
#include <zlib.h>

namespace nw {

namespace {

// Reads a whole file through zlib (which also reads uncompressed files as they are).
std::optional<std::vector<unsigned char>> readMaybeGzip(const std::string& path, std::string& error)
{
    // (a named pipe nobody writes to held gzopen for good, past Ctrl+C: it reads as empty now)
    const int fd = openWithoutWaiting(path);
    gzFile file = fd >= 0 ? gzdopen(fd, "rb") : nullptr;
    if (!file) {
        error = path + ": cannot open: " + std::strerror(errno);
        if (fd >= 0)
            ::close(fd);
        return std::nullopt;
    }
    std::vector<unsigned char> bytes;
    unsigned char buffer[1 << 16];
    int n;
    while ((n = gzread(file, buffer, sizeof buffer)) > 0)
        bytes.insert(bytes.end(), buffer, buffer + n);
    const bool failed = n < 0;
    gzclose(file);
    if (failed) {
        error = path + ": the file is damaged (gzip read error)";
        return std::nullopt;
    }
    return bytes;
}

std::uint32_t bigEndian(const unsigned char* p)
{
    return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 |
           std::uint32_t(p[3]);
}

class IdxDataset final : public ClassificationDataset {
public:
    IdxDataset(std::vector<unsigned char> images, std::vector<unsigned char> labels, int rows, int columns,
               int classes)
        : images_(std::move(images)), labels_(std::move(labels)), rows_(rows), columns_(columns),
          classes_(classes)
    {
    }
    std::size_t size() const override { return labels_.size() - 8; }
    int width() const override { return columns_; }
    int height() const override { return rows_; }
    int channels() const override { return 1; }
    int classes() const override { return classes_; }
    int label(std::size_t index) const override { return labels_[8 + index]; }
    bool image(std::size_t index, float* out, std::string&) const override
    {
        const std::size_t pixels = std::size_t(rows_) * std::size_t(columns_);
        const unsigned char* p = images_.data() + 16 + index * pixels;
        for (std::size_t i = 0; i < pixels; ++i)
            out[i] = float(p[i]) / 255.0f;
        return true;
    }

private:
    std::vector<unsigned char> images_, labels_;
    int rows_, columns_, classes_;
};

} // namespace

std::unique_ptr<ClassificationDataset>
loadIdxDataset(const std::string& imagesPath, const std::string& labelsPath, int classes, std::string& error)
{
    auto images = readMaybeGzip(imagesPath, error);
    if (!images)
        return nullptr;
    auto labels = readMaybeGzip(labelsPath, error);
    if (!labels)
        return nullptr;
    if (images->size() < 16 || bigEndian(images->data()) != 0x803) {
        error = imagesPath + (images->empty() ? ": empty, not" : ": not") +
                " an IDX image file (expected magic 0x00000803)";
        return nullptr;
    }
    if (labels->size() < 8 || bigEndian(labels->data()) != 0x801) {
        error = labelsPath + (labels->empty() ? ": empty, not" : ": not") +
                " an IDX label file (expected magic 0x00000801)";
        return nullptr;
    }
    const std::uint32_t count = bigEndian(images->data() + 4);
    const std::uint32_t rows = bigEndian(images->data() + 8), columns = bigEndian(images->data() + 12);
    // Sides are checked before any product: 0 or huge values (read as negative ints before, or
    // wrapping the size check around) come from a damaged or hostile header. The product of a count
    // below 2^32 and two sides below 2^16 fits in 64 bits.
    constexpr std::uint32_t kMaxSide = 1 << 16;
    if (rows == 0 || columns == 0 || rows > kMaxSide || columns > kMaxSide) {
        error = imagesPath + ": the header gives images of " + std::to_string(rows) + "x" +
                std::to_string(columns) + " pixels; sides must be between 1 and " + std::to_string(kMaxSide);
        return nullptr;
    }
    if (std::uint64_t(images->size()) != 16 + std::uint64_t(count) * rows * columns) {
        error = imagesPath + ": the header promises " + std::to_string(count) + " images of " +
                std::to_string(rows) + "x" + std::to_string(columns) + " but the file holds " +
                std::to_string(images->size() - 16) + " pixel bytes (truncated?)";
        return nullptr;
    }
    if (bigEndian(labels->data() + 4) != count || labels->size() != 8 + std::size_t(count)) {
        error = labelsPath + ": " + std::to_string(labels->size() >= 8 ? labels->size() - 8 : 0) +
                " labels for " + std::to_string(count) + " images in " + imagesPath;
        return nullptr;
    }
    if (count == 0) {
        error = imagesPath + ": the data set is empty";
        return nullptr;
    }
    const auto maxLabel = *std::max_element(labels->begin() + 8, labels->end());
    if (int(maxLabel) >= classes) {
        error = labelsPath + ": label " + std::to_string(int(maxLabel)) +
                " but the .data file says classes=" + std::to_string(classes);
        return nullptr;
    }
    return std::make_unique<IdxDataset>(std::move(*images), std::move(*labels), int(rows), int(columns),
                                        classes);
}

} // namespace nw
