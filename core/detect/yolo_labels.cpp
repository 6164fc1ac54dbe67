#include "detect/yolo_labels.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace nw {

std::string yoloLabelText(const std::vector<LabeledBox>& boxes, double imageWidth, double imageHeight)
{
    std::string text;
    if (imageWidth <= 0 || imageHeight <= 0)
        return text;
    // (boxes are clipped to the image already; the clamp keeps rounding from leaving [0, 1], which the
    // label reader warns about)
    const auto unit = [](double v) { return std::clamp(v, 0.0, 1.0); };
    // One line per object, as AlexeyAB's -save_labels: a detection above the threshold in several
    // classes takes its most likely (of equals, the lowest class), not a line per class stacked on one
    // box. A box outside the image (clipped to nothing) is no object.
    std::map<int, const LabeledBox*> best; // by detection
    for (const LabeledBox& b : boxes)
        if (b.detection >= 0) {
            const LabeledBox*& kept = best[b.detection];
            if (!kept || b.confidence > kept->confidence ||
                (b.confidence == kept->confidence && b.classId < kept->classId))
                kept = &b;
        }
    for (const LabeledBox& b : boxes) {
        if (b.width <= 0 || b.height <= 0 || (b.detection >= 0 && best[b.detection] != &b))
            continue;
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
