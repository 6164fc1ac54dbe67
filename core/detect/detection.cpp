#include "detect/detection.h"

#include <algorithm>

namespace nw {

float overlap(float x1, float w1, float x2, float w2)
{
    const float left = std::max(x1 - w1 / 2, x2 - w2 / 2);
    const float right = std::min(x1 + w1 / 2, x2 + w2 / 2);
    return right - left;
}

float boxIou(const Box& a, const Box& b)
{
    const float w = overlap(a.x, a.w, b.x, b.w), h = overlap(a.y, a.h, b.y, b.h);
    const float intersection = (w < 0 || h < 0) ? 0 : w * h;
    const float uni = a.w * a.h + b.w * b.h - intersection;
    return uni > 0 ? intersection / uni : 0;
}

void nmsSort(std::vector<Detection>& detections, int classes, float threshold)
{
    std::stable_partition(detections.begin(), detections.end(),
                          [](const Detection& d) { return d.objectness != 0; });
    const auto total = std::size_t(std::count_if(detections.begin(), detections.end(),
                                                 [](const Detection& d) { return d.objectness != 0; }));
    for (int k = 0; k < classes; ++k) {
        const auto key = std::size_t(k);
        std::stable_sort(detections.begin(), detections.begin() + std::ptrdiff_t(total),
                         [key](const Detection& a, const Detection& b) { return a.prob[key] > b.prob[key]; });
        for (std::size_t i = 0; i < total; ++i) {
            if (detections[i].prob[key] == 0)
                continue;
            for (std::size_t j = i + 1; j < total; ++j)
                if (boxIou(detections[i].box, detections[j].box) > threshold)
                    detections[j].prob[key] = 0;
        }
    }
}

} // namespace nw
