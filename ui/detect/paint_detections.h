#pragma once
// Boxes and their labels painted on an image that shows the detected one scaled by `scale`. The label
// text is `labelPixels` tall whatever the scale, so the studio draws at the size it shows: a small image
// fitted to the view no longer gets labels as large as its objects, nor a 4K frame unreadable ones.
#include "detect/detector.h"
#include <QImage>
#include <vector>

namespace nw::ui {

void paintDetections(QImage& canvas, const std::vector<LabeledBox>& boxes, double scale, int labelPixels,
                     int thickness);
// An image's own labels (its ground truth): dashed frames in their class colours, no tags, so the
// detections drawn over them stay readable.
void paintLabels(QImage& canvas, const std::vector<LabeledBox>& labels, double scale, int thickness);

} // namespace nw::ui
