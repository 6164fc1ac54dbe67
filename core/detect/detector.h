#pragma once
// Detector: one image (or video frame) in, labelled boxes in pixels out — preprocessing as Darknet
// does it, forward, decoding, NMS and the threshold.
#include "data/class_names.h" // loadNames, for the names of the classes detected
#include "detect/decode.h"
#include "detect/detection.h"
#include "image/image.h"
#include "runtime/net.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nw {

struct LabeledBox {
    int classId = 0;
    std::string name;
    float confidence = 0;
    float left = 0, top = 0, width = 0, height = 0; // pixels of the original image
    // The detection it is a class of (-1: unknown): one box above the threshold in several classes is
    // shown once per class, and is one object in a label file.
    int detection = -1;
};

struct DetectOptions {
    float threshold = 0.25f; // AlexeyAB's default (pjreddie: 0.5)
    float nms = 0.45f;
    bool letterbox = false; // pjreddie letterboxes; AlexeyAB resizes unless letter_box=1
    NmsRule nmsRule = {};   // labelDetections' (Detector uses its network's: nmsRuleOf)
};

class Detector {
public:
    Detector(Net& net, std::vector<std::string> names) : net_(net), names_(std::move(names)) {}
    // Runs the network's forward pass some other way (on a GPU), leaving the outputs in `net`'s tensors.
    void setForward(std::function<void(const float*)> forward) { forward_ = std::move(forward); }

    // Every class above the threshold of every box that survives NMS (Darknet's drawing rule), sorted
    // by confidence.
    std::vector<LabeledBox> detect(const Image& image, const DetectOptions& options);
    // Forward and decoding only, keeping every candidate above `floor`: threshold and NMS can then be
    // changed at once with labelBoxes(), without running the network again.
    std::vector<Detection> candidates(const Image& image, bool letterbox, float floor = 0.005f);
    // After detect() or candidates(): why the last image's boxes mean nothing (its head outputs NaN or
    // infinite: nonFiniteHeadOutputs), or nullopt.
    std::optional<std::string> outputProblem() const { return nonFiniteHeadOutputs(net_, 0); }
    // Threshold + NMS over candidates (on a copy), labelled boxes in pixels of a width × height image.
    std::vector<LabeledBox> labelBoxes(std::vector<Detection> candidates, int width, int height,
                                       const DetectOptions& options) const;

private:
    Net& net_;
    std::vector<std::string> names_;
    std::function<void(const float*)> forward_; // empty: net_.forward
};

// Threshold + per-class NMS over decoded candidates; labelled boxes in pixels of a width × height image,
// sorted by confidence. Names beyond the list are shown as "class N".
std::vector<LabeledBox> labelDetections(std::vector<Detection> candidates, int classes,
                                        const std::vector<std::string>& names, int width, int height,
                                        const DetectOptions& options);

// Network input for an image: resized (or letterboxed) to the net size.
Image prepareInput(const Image& image, int width, int height, bool letterbox);

} // namespace nw
