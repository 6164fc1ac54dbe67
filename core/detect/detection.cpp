#include "detect/detection.h"

#include <algorithm>

namespace nw {

void nmsSort(std::vector<Detection>& detections, int classes, float threshold, const NmsRule& rule)
{
    std::stable_partition(detections.begin(), detections.end(),
                          [](const Detection& d) { return d.objectness != 0; });
    const auto total = std::size_t(std::count_if(detections.begin(), detections.end(),
                                                 [](const Detection& d) { return d.objectness != 0; }));
    for (int k = 0; k < classes; ++k) {
        const auto key = std::size_t(k);
        std::stable_sort(detections.begin(), detections.begin() + std::ptrdiff_t(total),
                         [key](const Detection& a, const Detection& b) { return a.prob[key] > b.prob[key]; });
        // Those of probability 0 for this class are at the end now: nothing to suppress among them, and
        // they suppress nothing (Darknet compares them too; 80 classes of 2535 random boxes took seconds).
        const auto live =
            std::size_t(std::partition_point(detections.begin(), detections.begin() + std::ptrdiff_t(total),
                                             [key](const Detection& d) { return d.prob[key] != 0; }) -
                        detections.begin());
        for (std::size_t i = 0; i < live; ++i) {
            if (detections[i].prob[key] == 0)
                continue;
            for (std::size_t j = i + 1; j < live; ++j)
                if (detections[j].prob[key] != 0 &&
                    nmsOverlap(detections[i].box, detections[j].box, rule) > threshold)
                    detections[j].prob[key] = 0;
        }
    }
}

} // namespace nw
