#include "detect/detection.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>

namespace nw {

namespace {

using OverlapLists = std::vector<std::vector<std::uint32_t>>;

// Whether `a` suppresses `b`: the rule's overlap above the threshold. That overlap is at most the IoU
// (DIoU subtracts a distance term), so the IoU alone turns most pairs down without DIoU's pow().
bool suppresses(const Box& a, const Box& b, float threshold, const NmsRule& rule)
{
    return boxIou(a, b) > threshold &&
           (rule.kind == NmsRule::Kind::Iou || nmsOverlap(a, b, rule) > threshold);
}

// A box without area overlaps nothing (IoU 0), so under a threshold >= 0 it neither suppresses nor is
// suppressed: an untrained network's hundreds of thousands of such boxes were compared pair by pair.
bool inert(const Box& b, float threshold)
{
    return threshold >= 0 && (b.w == 0 || b.h == 0);
}

// For each of the first `total` boxes, the others whose overlap with it exceeds `threshold`. The
// overlap is symmetric (bit for bit), and above a threshold ≥ 0 only for boxes whose x ranges meet: a
// sweep over the left edges finds them without comparing every pair. None when the sweep does not
// apply (a threshold below 0, a coordinate that is not finite) or the lists would be huge (boxes piled
// on one another): the caller then compares every pair, as Darknet.
std::optional<OverlapLists> overlapLists(const std::vector<Detection>& detections, std::size_t total,
                                         float threshold, const NmsRule& rule)
{
    if (!(threshold >= 0))
        return std::nullopt;
    std::vector<float> left(total), right(total);
    for (std::size_t i = 0; i < total; ++i) {
        const Box& b = detections[i].box;
        if (!std::isfinite(b.x) || !std::isfinite(b.y) || !std::isfinite(b.w) || !std::isfinite(b.h))
            return std::nullopt;
        left[i] = b.x - b.w / 2; // (as overlap() in layers/box.cpp computes the edges)
        right[i] = b.x + b.w / 2;
    }
    std::vector<std::uint32_t> byLeft;
    for (std::uint32_t i = 0; i < std::uint32_t(total); ++i)
        if (!inert(detections[i].box, threshold))
            byLeft.push_back(i);
    std::sort(byLeft.begin(), byLeft.end(),
              [&](std::uint32_t a, std::uint32_t b) { return left[a] < left[b]; });
    constexpr std::size_t kMostEntries = std::size_t(1) << 25; // 128 MB of indexes
    std::size_t entries = 0;
    OverlapLists lists(total);
    for (std::size_t a = 0; a < byLeft.size(); ++a) {
        const std::uint32_t i = byLeft[a];
        for (std::size_t b = a + 1; b < byLeft.size() && left[byLeft[b]] <= right[i]; ++b) {
            const std::uint32_t j = byLeft[b];
            if (suppresses(detections[i].box, detections[j].box, threshold, rule)) {
                lists[i].push_back(j);
                lists[j].push_back(i);
                if ((entries += 2) > kMostEntries)
                    return std::nullopt;
            }
        }
    }
    return lists;
}

} // namespace

void nmsSort(std::vector<Detection>& detections, int classes, float threshold, const NmsRule& rule)
{
    std::stable_partition(detections.begin(), detections.end(),
                          [](const Detection& d) { return d.objectness != 0; });
    const auto total = std::size_t(std::count_if(detections.begin(), detections.end(),
                                                 [](const Detection& d) { return d.objectness != 0; }));
    // Which boxes overlap which, found once for every class (80 classes of 2535 boxes compared each pair
    // again per class: seconds). Kept by each box's place before the sorts below.
    const std::optional<OverlapLists> overlaps = overlapLists(detections, total, threshold, rule);
    std::vector<std::uint32_t> id(total), rank(total), sortedId(total);
    std::iota(id.begin(), id.end(), 0u);
    std::vector<std::size_t> order(total);
    std::vector<Detection> sorted(total); // (the buffers serve every class)
    for (int k = 0; k < classes; ++k) {
        const auto key = std::size_t(k);
        std::iota(order.begin(), order.end(), std::size_t(0));
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return detections[a].prob[key] > detections[b].prob[key];
        });
        // Darknet's order after each class's sort (its output order), the ids travelling with the boxes.
        for (std::size_t p = 0; p < total; ++p) {
            sorted[p] = std::move(detections[order[p]]);
            sortedId[p] = id[order[p]];
        }
        std::move(sorted.begin(), sorted.end(), detections.begin());
        id.swap(sortedId);
        // Those of probability 0 for this class are at the end now: nothing to suppress among them, and
        // they suppress nothing (Darknet compares them too).
        const auto live =
            std::size_t(std::partition_point(detections.begin(), detections.begin() + std::ptrdiff_t(total),
                                             [key](const Detection& d) { return d.prob[key] != 0; }) -
                        detections.begin());
        if (!overlaps) {
            for (std::size_t i = 0; i < live; ++i) {
                if (detections[i].prob[key] == 0 || inert(detections[i].box, threshold))
                    continue;
                for (std::size_t j = i + 1; j < live; ++j)
                    if (detections[j].prob[key] != 0 &&
                        suppresses(detections[i].box, detections[j].box, threshold, rule))
                        detections[j].prob[key] = 0;
            }
            continue;
        }
        // The same greedy rule, each kept box zeroing only the later boxes it overlaps.
        for (std::size_t p = 0; p < live; ++p)
            rank[id[p]] = std::uint32_t(p);
        for (std::size_t i = 0; i < live; ++i) {
            if (detections[i].prob[key] == 0)
                continue;
            for (const std::uint32_t other : (*overlaps)[id[i]])
                if (const std::uint32_t j = rank[other]; j > i && j < live && id[j] == other)
                    detections[j].prob[key] = 0;
        }
    }
}

} // namespace nw
