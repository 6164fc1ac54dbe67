#include "layers/detection_loss.h"

#include "layers/box.h"

#include <algorithm>
#include <cmath>

namespace nw {

namespace {

float boxRmse(const Box& a, const Box& b)
{
    return std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.w - b.w) * (a.w - b.w) +
                     (a.h - b.h) * (a.h - b.h));
}

struct CellTruth {
    Box box; // x, y within the cell (0..1), w, h of the image
    int cls = -1;
};

} // namespace

void detectionDeltas(const DetectionLayer& c, const float* output, const float* truth, int maxTruths,
                     bool randomPick, std::mt19937* random, float* delta, HeadStats& stats)
{
    const int side = c.side, locations = side * side;
    // Darknet's fill_truth_region: one truth per cell, the first in the label file wins.
    std::vector<CellTruth> cells(static_cast<std::size_t>(locations));
    for (int t = 0; t < maxTruths && truth[5 * t + 2] > 0; ++t) {
        const float x = truth[5 * t], y = truth[5 * t + 1], w = truth[5 * t + 2], h = truth[5 * t + 3];
        const int cls = int(truth[5 * t + 4]);
        if (w < 0.005f || h < 0.005f || cls < 0 || cls >= c.classes)
            continue;
        const int col = std::clamp(int(x * float(side)), 0, side - 1);
        const int row = std::clamp(int(y * float(side)), 0, side - 1);
        CellTruth& cell = cells[std::size_t(row * side + col)];
        if (cell.cls >= 0)
            continue;
        cell.box = {x * float(side) - float(col), y * float(side) - float(row), w, h};
        cell.cls = cls;
    }

    const std::size_t confidences = std::size_t(locations) * std::size_t(c.classes);
    const std::size_t boxes = confidences + std::size_t(locations) * std::size_t(c.num);
    auto boxAt = [&](int cell, int n) {
        return boxes + std::size_t(cell * c.num + n) * std::size_t(c.coords);
    };
    // The predicted box in the frame the truth uses (x, y in cells / side; w, h squared back with sqrt).
    auto predicted = [&](int cell, int n) {
        const float* p = output + boxAt(cell, n);
        Box b{p[0] / float(side), p[1] / float(side), p[2], p[3]};
        if (c.sqrt) {
            b.w *= b.w;
            b.h *= b.h;
        }
        return b;
    };

    for (int cell = 0; cell < locations; ++cell) {
        for (int n = 0; n < c.num; ++n) {
            const std::size_t p = confidences + std::size_t(cell * c.num + n);
            delta[p] = c.noobjectScale * (0 - output[p]);
            stats.noObject += output[p];
        }
        const CellTruth& t = cells[std::size_t(cell)];
        if (t.cls < 0)
            continue;
        const std::size_t scores = std::size_t(cell) * std::size_t(c.classes);
        for (int k = 0; k < c.classes; ++k)
            delta[scores + std::size_t(k)] =
                c.classScale * ((k == t.cls ? 1.0f : 0.0f) - output[scores + std::size_t(k)]);
        stats.classScore += output[scores + std::size_t(t.cls)];

        const Box target{t.box.x / float(side), t.box.y / float(side), t.box.w, t.box.h};
        // The predictor that already fits best: by IoU, or by distance while none overlaps.
        int best = 0;
        float bestIou = 0, bestRmse = 20;
        for (int n = 0; n < c.num; ++n) {
            const Box b = predicted(cell, n);
            const float iou = boxIou(b, target);
            if (bestIou > 0 || iou > 0) {
                if (iou > bestIou) {
                    bestIou = iou;
                    best = n;
                }
            } else if (const float rmse = boxRmse(b, target); rmse < bestRmse) {
                bestRmse = rmse;
                best = n;
            }
        }
        if (c.forced)
            best = std::min(c.num - 1, target.w * target.h < 0.1f ? 1 : 0);
        if (randomPick && random)
            best = int((*random)() % std::uint32_t(c.num));

        const float iou = boxIou(predicted(cell, best), target);
        const std::size_t p = confidences + std::size_t(cell * c.num + best);
        stats.objectness += output[p];
        delta[p] = c.objectScale * ((c.rescore ? iou : 1.0f) - output[p]);
        const std::size_t b = boxAt(cell, best);
        const float targets[4] = {t.box.x, t.box.y, c.sqrt ? std::sqrt(t.box.w) : t.box.w,
                                  c.sqrt ? std::sqrt(t.box.h) : t.box.h};
        for (int k = 0; k < std::min(4, c.coords); ++k)
            delta[b + std::size_t(k)] = c.coordScale * (targets[k] - output[b + std::size_t(k)]);
        stats.averageIou += iou;
        stats.recall50 += iou > 0.5f;
        stats.recall75 += iou > 0.75f;
        ++stats.count;
    }
}

} // namespace nw
