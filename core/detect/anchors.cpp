#include "detect/anchors.h"

#include <algorithm>
#include <random>

namespace nw {

float shapeIou(std::pair<float, float> a, std::pair<float, float> b)
{
    const float inter = std::min(a.first, b.first) * std::min(a.second, b.second);
    const float uni = a.first * a.second + b.first * b.second - inter;
    return uni > 0 ? inter / uni : 0;
}

namespace {

std::size_t nearest(const std::vector<std::pair<float, float>>& anchors, std::pair<float, float> box,
                    float* iou)
{
    std::size_t best = 0;
    float bestIou = -1;
    for (std::size_t k = 0; k < anchors.size(); ++k) {
        const float value = shapeIou(box, anchors[k]);
        if (value > bestIou) {
            bestIou = value;
            best = k;
        }
    }
    if (iou)
        *iou = bestIou;
    return best;
}

// One k-means from one k-means++ start.
AnchorResult kMeansOnce(const std::vector<std::pair<float, float>>& sizes, int count, unsigned seed)
{
    AnchorResult result;
    std::mt19937 random(seed);
    // k-means++: each new centre is drawn with probability proportional to its distance (1 − IoU).
    auto& anchors = result.anchors;
    anchors.push_back(sizes[std::uniform_int_distribution<std::size_t>(0, sizes.size() - 1)(random)]);
    std::vector<double> distance(sizes.size());
    while (anchors.size() < std::size_t(count)) {
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            float iou = 0;
            nearest(anchors, sizes[i], &iou);
            distance[i] = 1.0 - iou;
        }
        if (*std::max_element(distance.begin(), distance.end()) <= 0) {
            anchors.push_back(anchors.back()); // fewer distinct shapes than anchors
            continue;
        }
        std::discrete_distribution<std::size_t> pick(distance.begin(), distance.end());
        anchors.push_back(sizes[pick(random)]);
    }
    std::vector<std::size_t> assignment(sizes.size(), std::size_t(-1));
    for (int round = 0; round < 1000; ++round) {
        bool changed = false;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const std::size_t k = nearest(anchors, sizes[i], nullptr);
            changed |= k != assignment[i];
            assignment[i] = k;
        }
        if (!changed)
            break;
        std::vector<double> sumW(anchors.size(), 0), sumH(anchors.size(), 0);
        std::vector<std::size_t> members(anchors.size(), 0);
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            sumW[assignment[i]] += sizes[i].first;
            sumH[assignment[i]] += sizes[i].second;
            ++members[assignment[i]];
        }
        for (std::size_t k = 0; k < anchors.size(); ++k)
            if (members[k] > 0)
                anchors[k] = {float(sumW[k] / double(members[k])), float(sumH[k] / double(members[k]))};
    }
    std::sort(anchors.begin(), anchors.end(),
              [](const auto& a, const auto& b) { return a.first * a.second < b.first * b.second; });
    result.averageIou = averageAnchorIou(sizes, anchors);
    return result;
}

} // namespace

double averageAnchorIou(const std::vector<std::pair<float, float>>& sizes,
                        const std::vector<std::pair<float, float>>& anchors)
{
    if (sizes.empty() || anchors.empty())
        return 0;
    double total = 0;
    for (const auto& box : sizes) {
        float iou = 0;
        nearest(anchors, box, &iou);
        total += iou;
    }
    return total / double(sizes.size());
}

AnchorResult computeAnchors(const std::vector<std::pair<float, float>>& sizes, int count, unsigned seed,
                            int restarts)
{
    AnchorResult best;
    if (sizes.empty() || count < 1)
        return best;
    // k-means stops in a local optimum: several starts, the best average IoU kept (one start gave
    // 77 % where the same boxes allow 81 %).
    for (int start = 0; start < std::max(1, restarts); ++start)
        if (AnchorResult found = kMeansOnce(sizes, count, seed + unsigned(start));
            start == 0 || found.averageIou > best.averageIou)
            best = std::move(found);
    return best;
}

} // namespace nw
