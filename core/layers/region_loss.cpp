#include "layers/region_loss.h"

#include "layers/box.h"

#include <algorithm>
#include <cmath>

namespace nw {

namespace {

class RegionHead {
public:
    RegionHead(const RegionLayer& c, int w, int h, const float* output, float* delta)
        : c_(c), w_(w), h_(h), output_(output), delta_(delta), plane_(std::size_t(w) * std::size_t(h)),
          entries_(std::size_t(c.coords + 1 + c.classes))
    {
    }
    std::size_t at(int n, int entry, int i, int j) const
    {
        return (std::size_t(n) * entries_ + std::size_t(entry)) * plane_ + std::size_t(j) * std::size_t(w_) +
               std::size_t(i);
    }
    float anchorW(int n) const
    {
        return std::size_t(2 * n) < c_.anchors.size() ? c_.anchors[std::size_t(2 * n)] : 0.5f;
    }
    float anchorH(int n) const
    {
        return std::size_t(2 * n + 1) < c_.anchors.size() ? c_.anchors[std::size_t(2 * n + 1)] : 0.5f;
    }
    Box predicted(int n, int i, int j) const
    {
        return {(float(i) + output_[at(n, 0, i, j)]) / float(w_),
                (float(j) + output_[at(n, 1, i, j)]) / float(h_),
                std::exp(output_[at(n, 2, i, j)]) * anchorW(n) / float(w_),
                std::exp(output_[at(n, 3, i, j)]) * anchorH(n) / float(h_)};
    }
    // Box deltas toward `truth` scaled by `scale`; returns the prediction's IoU with it.
    float boxDelta(const Box& truth, int n, int i, int j, float scale) const
    {
        const float iou = boxIou(predicted(n, i, j), truth);
        const float targets[4] = {truth.x * float(w_) - float(i), truth.y * float(h_) - float(j),
                                  std::log(truth.w * float(w_) / anchorW(n)),
                                  std::log(truth.h * float(h_) / anchorH(n))};
        for (int k = 0; k < 4; ++k)
            delta_[at(n, k, i, j)] = scale * (targets[k] - output_[at(n, k, i, j)]);
        return iou;
    }
    const RegionLayer& c_;
    int w_, h_;
    const float* output_;
    float* delta_;
    std::size_t plane_, entries_;
};

} // namespace

void regionDeltas(const RegionLayer& c, int width, int height, const float* output, const float* truth,
                  int maxTruths, bool warmup, float* delta, HeadStats& stats)
{
    RegionHead head(c, width, height, output, delta);
    std::vector<Box> truths;
    std::vector<int> classes;
    for (int t = 0; t < maxTruths && truth[5 * t + 2] > 0; ++t) {
        if (int(truth[5 * t + 4]) < 0 || int(truth[5 * t + 4]) >= c.classes)
            continue; // never index outside this head's planes
        truths.push_back({truth[5 * t], truth[5 * t + 1], truth[5 * t + 2], truth[5 * t + 3]});
        classes.push_back(int(truth[5 * t + 4]));
    }
    const int obj = c.coords;
    for (int j = 0; j < height; ++j)
        for (int i = 0; i < width; ++i)
            for (int n = 0; n < c.num; ++n) {
                const Box pred = head.predicted(n, i, j);
                float best = 0;
                for (const Box& t : truths)
                    best = std::max(best, boxIou(pred, t));
                const std::size_t o = head.at(n, obj, i, j);
                stats.noObject += output[o];
                delta[o] = best > c.thresh ? 0.0f : c.noobjectScale * (0 - output[o]);
                if (warmup) // early on, every box learns its anchor's shape at its cell
                    head.boxDelta({(float(i) + 0.5f) / float(width), (float(j) + 0.5f) / float(height),
                                   head.anchorW(n) / float(width), head.anchorH(n) / float(height)},
                                  n, i, j, 0.01f);
            }
    for (std::size_t t = 0; t < truths.size(); ++t) {
        const Box& tb = truths[t];
        const int i = std::clamp(int(tb.x * float(width)), 0, width - 1);
        const int j = std::clamp(int(tb.y * float(height)), 0, height - 1);
        // The anchor whose predicted (or, with bias_match, prior) shape fits the truth best.
        int bestN = 0;
        float bestIou = -1;
        for (int n = 0; n < c.num; ++n) {
            Box shape = head.predicted(n, i, j);
            if (c.biasMatch) {
                shape.w = head.anchorW(n) / float(width);
                shape.h = head.anchorH(n) / float(height);
            }
            shape.x = shape.y = 0;
            const float iou = boxIou(shape, {0, 0, tb.w, tb.h});
            if (iou > bestIou) {
                bestIou = iou;
                bestN = n;
            }
        }
        const float iou = head.boxDelta(tb, bestN, i, j, c.coordScale * (2 - tb.w * tb.h));
        const std::size_t o = head.at(bestN, obj, i, j);
        stats.objectness += output[o];
        delta[o] = c.objectScale * ((c.rescore ? iou : 1.0f) - output[o]);
        for (int k = 0; k < c.classes; ++k) {
            const std::size_t index = head.at(bestN, obj + 1 + k, i, j);
            delta[index] = c.classScale * ((k == classes[t] ? 1.0f : 0.0f) - output[index]);
        }
        stats.classScore += output[head.at(bestN, obj + 1 + classes[t], i, j)];
        stats.averageIou += iou;
        stats.recall50 += iou > 0.5f;
        stats.recall75 += iou > 0.75f;
        ++stats.count;
    }
}

} // namespace nw
