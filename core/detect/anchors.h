#pragma once
// YOLO anchors from a data set's boxes: k-means over (width, height) with 1 − IoU as the distance
// (boxes compared as if they shared a centre), as AlexeyAB's `detector calc_anchors` does.
#include <utility>
#include <vector>

namespace nw {

struct AnchorResult {
    std::vector<std::pair<float, float>> anchors; // (w, h) in network pixels, smallest area first
    double averageIou = 0;                        // mean over boxes of the best IoU with an anchor
};

// `sizes`: every box's (w, h) in network pixels. The best of `restarts` k-means runs (k-means++ starts
// from seeds seed, seed + 1, …): deterministic for a seed.
AnchorResult computeAnchors(const std::vector<std::pair<float, float>>& sizes, int count, unsigned seed = 1,
                            int restarts = 1);

// The mean over `sizes` of each box's best IoU with one of `anchors` (common centres): the figure of the
// anchors as written into a cfg, rounded.
double averageAnchorIou(const std::vector<std::pair<float, float>>& sizes,
                        const std::vector<std::pair<float, float>>& anchors);

// IoU of two boxes with a common centre.
float shapeIou(std::pair<float, float> a, std::pair<float, float> b);

} // namespace nw
