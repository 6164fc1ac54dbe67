#pragma once
// Darknet's detection data: an image list, a YOLO label file per image ("class x y w h" lines,
// relative centre and size) found from the image path, and the augmentation of detector training.
#include "data/training_set.h"
#include "image/pixels.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace nw {

struct TruthBox {
    float x = 0, y = 0, w = 0, h = 0; // relative centre and size
    int classId = 0;
};

// Darknet drops a box narrower or lower than this (a fraction of the image side) when it places it.
inline constexpr float kSmallestBoxSide = 0.001f;

// The label file of an image: pjreddie's rule (images→labels, JPEGImages→labels, raw→labels, then the
// image extension → .txt) when that file exists, else Ultralytics' (the last /images/ → /labels/),
// else AlexeyAB's (labels next to the image, or /JPEGImages/ → /labels/).
std::string labelPathFor(const std::string& imagePath);
// Where a label file for an image that has none is written (detect --save-labels): AlexeyAB's place
// (beside the image; /JPEGImages/ → /labels/, COCO's /images/train2017/ → /labels/train2017/), which
// labelPathFor and AlexeyAB's Darknet both read.
std::string newLabelPathFor(const std::string& imagePath);

struct LabelLineCounts {
    std::size_t skipped = 0;      // bad lines left out, each warned
    std::size_t classOutside = 0; // of them, those whose class is outside 0..classes−1
    std::size_t polygons = 0;     // polygons (YOLOv8 segmentation labels) taken as their bounding box
};

// Reads a label file. A bad line (not five numbers, a class outside 0..classes−1, a box outside the
// image, a repeat of an earlier line's box) is skipped with a warning "file:line: ..." and counted; a
// polygon line "class x1 y1 x2 y2 x3 y3 …" is taken as its bounding box (counted, not warned: the data
// set says it once); a width or height over 1 is clipped to the image (warned beyond rounding). A missing
// file means no objects: `missing` is set.
std::vector<TruthBox> readLabelFile(const std::string& path, int classes, std::vector<std::string>& warnings,
                                    bool& missing, LabelLineCounts* counts = nullptr);

struct DetectionAugmentation {
    bool enabled = false;
    float jitter = 0;                            // random crop of ±jitter of each side
    bool flip = true;                            // horizontal, half of the time
    float hue = 0, saturation = 1, exposure = 1; // as Darknet's [net]
    bool letterbox = false;                      // keep the aspect ratio (grey bars)
    bool mosaic = false;                         // four images in one, half of the time
};

// Truth per image: up to `maxBoxes` boxes of five floats (x, y, w, h, class); the rest zero.
class DetectionDataset final : public TrainingSet {
public:
    struct Item {
        std::string image;
        std::vector<TruthBox> boxes;
    };
    struct Summary {
        std::size_t images = 0, boxes = 0, missingLabels = 0, emptyImages = 0;
        LabelLineCounts lines;
    };

    DetectionDataset(std::vector<Item> items, int classes, int width, int height, int channels, int maxBoxes,
                     DetectionAugmentation augmentation, Summary summary)
        : items_(std::move(items)), classes_(classes), w_(width), h_(height), c_(channels),
          maxBoxes_(maxBoxes), augmentation_(augmentation), summary_(summary)
    {
    }

    std::size_t size() const override { return items_.size(); }
    int width() const override { return w_; }
    int height() const override { return h_; }
    int channels() const override { return c_; }
    std::size_t truthFloats() const override { return std::size_t(maxBoxes_) * 5; }
    bool resizable() const override { return true; }
    bool sample(std::size_t index, std::mt19937& random, int width, int height, float* image, float* truth,
                std::string& warning) const override;

    int classes() const { return classes_; }
    const Item& item(std::size_t index) const { return items_[index]; }
    const Summary& summary() const { return summary_; }

private:
    struct Placed; // an image cropped/resized to the network with its boxes
    bool load(std::size_t index, std::mt19937& random, int width, int height, Placed& placed,
              std::string& warning) const;

    std::vector<Item> items_;
    // Decoded images, kept while they fit in kCacheBytes: later epochs skip the decoding. The loader's
    // workers call sample() at once: an entry, once filled, never changes, so only filling it (and
    // looking at it) holds the lock.
    static constexpr std::size_t kCacheBytes = std::size_t(1) << 30;
    const Pixels* cached(std::size_t index, std::optional<Pixels>& decoded) const;
    mutable std::mutex cacheMutex_;
    mutable std::vector<Pixels> cache_;
    mutable std::size_t cachedBytes_ = 0;
    int classes_, w_, h_, c_, maxBoxes_;
    DetectionAugmentation augmentation_;
    Summary summary_;
};

// Reads the list (one image path per line; relative paths are taken from the list's folder, then the
// working folder) and every label file. Errors: no list, an empty list. Bad label lines → warnings.
// Images that do not exist are left out with a warning naming the first one's line (unless
// `imagesNeeded` is false: anchors reads only the labels). A class without any box is warned about.
// `maxBoxes` 0: no limit to check (anchors). `cancelled`, when set while the label files are read: the
// error "cancelled" (the studio's data check, abandoned for another).
std::unique_ptr<DetectionDataset> loadDetectionDataset(const std::string& list, int classes, int width,
                                                       int height, int channels, int maxBoxes,
                                                       const DetectionAugmentation& augmentation,
                                                       std::string& error, std::vector<std::string>& warnings,
                                                       bool imagesNeeded = true,
                                                       const std::atomic<bool>* cancelled = nullptr);

} // namespace nw
