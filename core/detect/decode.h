#pragma once
// Turns the outputs of [yolo], [region] and [detection] heads into boxes, as Darknet's
// get_*_detections do, and undoes the letterbox.
#include "detect/detection.h"
#include "runtime/net.h"

#include <optional>
#include <string>
#include <vector>

namespace nw {

struct DecodeOptions {
    float threshold = 0.25f;
    // yolo9000's tree: how far down the hierarchy a class is named (Darknet's hier_thresh, -hier).
    float hierarchyThreshold = 0.5f;
    bool letterbox = false; // the image was letterboxed: map boxes back to the original image
    int imageWidth = 0, imageHeight = 0;
};

// Detections of every head in the net (batch item `item`), boxes relative to the original image.
std::vector<Detection> decodeDetections(const Net& net, int item, const DecodeOptions& options);
// "the network's outputs are not numbers (N of M values NaN or infinite): …" when a detection head's
// output (batch item `item`) holds NaN or infinity after a forward pass — weights that diverged, or
// another network's —, where decoding would quietly find no box; nullopt otherwise.
std::optional<std::string> nonFiniteHeadOutputs(const Net& net, int item);
// Number of classes of the net's detection heads; 0 when the net has none.
int detectionClasses(const NetworkSpec& spec);
// The NMS rule of the network's last detection head (AlexeyAB's detector reads the last layer's).
NmsRule nmsRuleOf(const NetworkSpec& spec);

// Darknet's correct_yolo_boxes for a letterboxed image.
void undoLetterbox(std::vector<Detection>& detections, int imageWidth, int imageHeight, int netWidth,
                   int netHeight);

} // namespace nw
