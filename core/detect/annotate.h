#pragma once
// Draws labelled boxes on an OpenCV BGR frame (per-class colours, label with confidence).
#include "detect/detector.h"

namespace cv {
class Mat;
}

namespace nw {

// Only in builds with OpenCV (NETWRIGHT_WITH_OPENCV); the rest of this header is plain C++.
void drawBoxes(cv::Mat& frame, const std::vector<LabeledBox>& boxes);
// A distinct, stable colour per class (Darknet's palette idea): RGB in 0..255.
void classColor(int classId, int& r, int& g, int& b);
// Whether white text reads better than black on this background (the higher WCAG contrast ratio): on the
// palette's dark blues black text had a contrast of about 3:1.
bool whiteTextOn(int r, int g, int b);

// Top-left corner of a box's label of `width` × `height` pixels: above the box's top-left corner,
// moved inside the image (under the box's top edge when there is no room above, left of the image's
// right edge when the box ends there). Shared by the CLI's drawing and the studio's.
struct LabelPlace {
    double x = 0, y = 0;
};
LabelPlace placeLabel(const LabeledBox& box, double width, double height, double imageWidth,
                      double imageHeight);
// The boxes in drawing order: lowest confidence first, so the most confident box and label end on top.
std::vector<const LabeledBox*> drawingOrder(const std::vector<LabeledBox>& boxes);

// Every label's place, for the boxes in drawing order (sizes[i] is order[i]'s label). The most confident
// label gets placeLabel's place; each next one the first of its box's candidate places that covers no
// label placed before it (placeLabel's, under the box's top edge, under the box, above its right end,
// inside its bottom edge), else the candidate that covers least: crowded scenes keep readable labels.
// Only the 256 most confident are placed so (against each other); the rest take placeLabel's place.
struct LabelSize {
    double width = 0, height = 0;
};
std::vector<LabelPlace> placeLabels(const std::vector<const LabeledBox*>& order,
                                    const std::vector<LabelSize>& sizes, double imageWidth,
                                    double imageHeight);

} // namespace nw
