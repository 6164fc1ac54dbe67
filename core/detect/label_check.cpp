#include "detect/label_check.h"

#include "detect/map.h"

#include <algorithm>

namespace nw {

LabelCheck checkAgainstLabels(const std::vector<TruthBox>& labels, const std::vector<LabeledBox>& boxes,
                              int imageWidth, int imageHeight, int classes)
{
    std::vector<ScoredBox> predictions;
    const float w = float(std::max(1, imageWidth)), h = float(std::max(1, imageHeight));
    for (const LabeledBox& b : boxes)
        predictions.push_back(
            {0,
             b.classId,
             b.confidence,
             {(b.left + b.width / 2) / w, (b.top + b.height / 2) / h, b.width / w, b.height / h}});
    MapOptions options;
    options.confidenceThreshold = -1; // every box shown counts
    const MapResult result = computeMap(predictions, {labels}, classes, options);
    LabelCheck check;
    check.labels = result.truths;
    for (const ClassAp& c : result.classes)
        check.found += c.truePositives;
    check.unmatched = int(boxes.size()) - check.found;
    return check;
}

} // namespace nw
