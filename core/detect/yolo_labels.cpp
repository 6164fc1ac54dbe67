#include "detect/yolo_labels.h"

#include <algorithm>
#include <cstdio>

namespace nw {

std::string yoloLabelText(const std::vector<LabeledBox>& boxes, double imageWidth, double imageHeight)
{
    std::string text;
    if (imageWidth <= 0 || imageHeight <= 0)
        return text;
    // (boxes are clipped to the image already; the clamp keeps rounding from leaving [0, 1], which the
    // label reader warns about)
    const auto unit = [](double v) { return std::clamp(v, 0.0, 1.0); };
    for (const LabeledBox& b : boxes) {
        char line[128];
        std::snprintf(line, sizeof line, "%d %.6f %.6f %.6f %.6f\n", b.classId,
                      unit((b.left + b.width / 2.0) / imageWidth),
                      unit((b.top + b.height / 2.0) / imageHeight), unit(b.width / imageWidth),
                      unit(b.height / imageHeight));
        text += line;
    }
    return text;
}

} // namespace nw
