#pragma once
// One image's labels (its YOLO label file) against the boxes a detector drew on it: the Detect panel's
// Labels view says how many labels were found, so a person browsing a validation folder sees at once
// where the network misses and where the labels themselves are wrong.
#include "data/detection_dataset.h"
#include "detect/detector.h"

#include <vector>

namespace nw {

struct LabelCheck {
    int labels = 0;    // the labels of classes the network has
    int found = 0;     // labels a box of their class overlaps by IoU > 0.5 (each taken once)
    int unmatched = 0; // boxes that found no label (a box of a class the labels cannot have included)
};

// Matched as `map` matches (computeMap: the most confident box first takes the label of its class it
// overlaps most), with every box shown counted whatever its confidence.
LabelCheck checkAgainstLabels(const std::vector<TruthBox>& labels, const std::vector<LabeledBox>& boxes,
                              int imageWidth, int imageHeight, int classes);

} // namespace nw
