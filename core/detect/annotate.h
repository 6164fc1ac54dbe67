#pragma once
// Draws labelled boxes on an OpenCV BGR frame (per-class colours, label with confidence).
#include "detect/detector.h"

namespace cv {
class Mat;
}

namespace nw {

void drawBoxes(cv::Mat& frame, const std::vector<LabeledBox>& boxes);
// A distinct, stable colour per class (Darknet's palette idea): RGB in 0..255.
void classColor(int classId, int& r, int& g, int& b);

} // namespace nw
