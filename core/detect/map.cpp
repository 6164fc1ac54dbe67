#include "detect/map.h"

#include "detect/decode.h"
#include "detect/detector.h"
#include "image/image.h"

#include <algorithm>
#include <numeric>

namespace nw {

namespace {

Box boxOf(const TruthBox& t)
{
    return {t.x, t.y, t.w, t.h};
}

// VOC matching: each prediction (best score first) takes the truth of its class in its image that it
// overlaps most; above the IoU threshold it is a true positive unless that truth was already taken.
// COCO matching: the best truth not yet taken, with IoU at or above the threshold.
std::vector<bool> matchPredictions(const std::vector<const ScoredBox*>& sorted,
                                   const std::vector<std::vector<TruthBox>>& truths, float iouThreshold,
                                   std::vector<float>* bestIous = nullptr, bool coco = false)
{
    std::vector<std::vector<bool>> taken(truths.size());
    for (std::size_t i = 0; i < truths.size(); ++i)
        taken[i].assign(truths[i].size(), false);
    std::vector<bool> truePositive;
    for (const ScoredBox* p : sorted) {
        float best = 0;
        int bestIndex = -1;
        const auto& candidates = truths[p->image];
        for (std::size_t t = 0; t < candidates.size(); ++t)
            if (candidates[t].classId == p->classId && !(coco && taken[p->image][t])) {
                const float iou = boxIou(p->box, boxOf(candidates[t]));
                if (iou > best) {
                    best = iou;
                    bestIndex = int(t);
                }
            }
        const bool hit = bestIndex >= 0 && (coco ? best >= iouThreshold : best > iouThreshold) &&
                         !taken[p->image][std::size_t(bestIndex)];
        if (hit)
            taken[p->image][std::size_t(bestIndex)] = true;
        truePositive.push_back(hit);
        if (bestIous)
            bestIous->push_back(hit ? best : 0.0f); // AlexeyAB: the IoU of true positives only
    }
    return truePositive;
}

// Precision and recall after each prediction of one class.
void curve(const std::vector<bool>& truePositive, int truths, std::vector<double>& recall,
           std::vector<double>& precision)
{
    double tp = 0;
    for (std::size_t i = 0; i < truePositive.size(); ++i) {
        tp += truePositive[i];
        recall.push_back(tp / truths);
        precision.push_back(tp / double(i + 1));
    }
}

} // namespace

double averagePrecisionPoints(const std::vector<double>& recall, const std::vector<double>& precision,
                              int points)
{
    double sum = 0;
    for (int k = 0; k < points; ++k) {
        const double at = double(k) / double(points - 1);
        double best = 0;
        for (std::size_t i = 0; i < recall.size(); ++i)
            if (recall[i] >= at - 1e-12)
                best = std::max(best, precision[i]);
        sum += best;
    }
    return sum / points;
}

double averagePrecisionAllPoints(const std::vector<double>& recall, const std::vector<double>& precision)
{
    std::vector<double> r{0}, p{0};
    r.insert(r.end(), recall.begin(), recall.end());
    p.insert(p.end(), precision.begin(), precision.end());
    r.push_back(1);
    p.push_back(0);
    for (std::size_t i = p.size() - 1; i > 0; --i) // the precision envelope
        p[i - 1] = std::max(p[i - 1], p[i]);
    double ap = 0;
    for (std::size_t i = 1; i < r.size(); ++i)
        ap += (r[i] - r[i - 1]) * p[i];
    return ap;
}

MapResult computeMap(const std::vector<ScoredBox>& predictions,
                     const std::vector<std::vector<TruthBox>>& truths, int classes, const MapOptions& options)
{
    MapResult result;
    result.images = truths.size();
    result.classes.assign(std::size_t(std::max(0, classes)), {});
    for (const auto& image : truths)
        for (const TruthBox& t : image)
            if (t.classId >= 0 && t.classId < classes) {
                ++result.classes[std::size_t(t.classId)].truths;
                ++result.truths;
            }
    int withTruth = 0;
    for (int c = 0; c < classes; ++c) {
        ClassAp& ap = result.classes[std::size_t(c)];
        std::vector<const ScoredBox*> sorted;
        for (const ScoredBox& p : predictions)
            if (p.classId == c && p.image < truths.size())
                sorted.push_back(&p);
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const ScoredBox* a, const ScoredBox* b) { return a->score > b->score; });
        ap.detections = int(sorted.size());
        if (ap.truths == 0)
            continue;
        ++withTruth;
        std::vector<double> recall, precision;
        curve(matchPredictions(sorted, truths, options.iouThreshold), ap.truths, recall, precision);
        ap.ap50 = options.points > 1 ? averagePrecisionPoints(recall, precision, options.points)
                                     : averagePrecisionAllPoints(recall, precision);
        for (int k = 0; k < 10; ++k) {
            recall.clear();
            precision.clear();
            curve(matchPredictions(sorted, truths, 0.5f + 0.05f * float(k), nullptr, true), ap.truths, recall,
                  precision);
            ap.ap50to95 += averagePrecisionPoints(recall, precision, 101) / 10;
        }
        result.map50 += ap.ap50;
        result.map50to95 += ap.ap50to95;
    }
    if (withTruth > 0) {
        result.map50 /= withTruth;
        result.map50to95 /= withTruth;
    }
    // Precision, recall, F1 and average IoU over the predictions at or above the confidence threshold.
    int tp = 0, fp = 0;
    double iouSum = 0;
    for (int c = 0; c < classes; ++c) {
        std::vector<const ScoredBox*> sorted;
        for (const ScoredBox& p : predictions)
            if (p.classId == c && p.image < truths.size() && p.score > options.confidenceThreshold)
                sorted.push_back(&p);
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const ScoredBox* a, const ScoredBox* b) { return a->score > b->score; });
        std::vector<float> ious;
        const std::vector<bool> hits = matchPredictions(sorted, truths, options.iouThreshold, &ious);
        ClassAp& ap = result.classes[std::size_t(c)];
        ap.truePositives = int(std::count(hits.begin(), hits.end(), true));
        ap.falsePositives = int(hits.size()) - ap.truePositives;
        tp += ap.truePositives;
        fp += ap.falsePositives;
        iouSum = std::accumulate(ious.begin(), ious.end(), iouSum);
    }
    result.precision = tp + fp > 0 ? double(tp) / (tp + fp) : 0;
    result.recall = result.truths > 0 ? double(tp) / result.truths : 0;
    result.f1 = result.precision + result.recall > 0
                    ? 2 * result.precision * result.recall / (result.precision + result.recall)
                    : 0;
    result.averageIou = tp + fp > 0 ? iouSum / (tp + fp) : 0;
    return result;
}

MapResult evaluateMap(Net& net, const DetectionDataset& data, bool letterbox, const MapOptions& options,
                      const std::function<void(std::size_t)>& progress, const ForwardPass& forward)
{
    const int batch = net.batch();
    const Shape input = net.inputShape();
    const int classes = detectionClasses(net.spec());
    const NmsRule nmsRule = nmsRuleOf(net.spec());
    const std::size_t imageSize = std::size_t(input.size);
    std::vector<float> images(imageSize * std::size_t(batch), 0.5f);
    std::vector<ScoredBox> predictions;
    std::vector<std::vector<TruthBox>> truths;
    std::vector<std::string> unreadable;
    std::size_t unreadableCount = 0, notNumbers = 0;
    std::string notNumbersProblem;
    for (std::size_t start = 0; start < data.size(); start += std::size_t(batch)) {
        const std::size_t count = std::min<std::size_t>(std::size_t(batch), data.size() - start);
        std::vector<std::pair<int, int>> sizes(count, {0, 0});
        std::vector<bool> readable(count, false);
        for (std::size_t b = 0; b < count; ++b) {
            std::string error;
            const auto image = loadImage(data.item(start + b).image, input.c, error);
            if (!image) {
                if (unreadable.size() < 20)
                    unreadable.push_back(error);
                ++unreadableCount;
                continue;
            }
            const Image prepared = prepareInput(*image, input.w, input.h, letterbox);
            std::copy(prepared.data.begin(), prepared.data.end(),
                      images.begin() + std::ptrdiff_t(b * imageSize));
            sizes[b] = {image->width, image->height};
            readable[b] = true;
        }
        if (forward)
            forward(images.data());
        else
            net.forward(images.data());
        for (std::size_t b = 0; b < count; ++b) {
            if (!readable[b])
                continue;
            if (auto problem = nonFiniteHeadOutputs(net, int(b))) {
                // Scored as finding nothing (its truths count as missed): left out, the mAP came out
                // higher than the weights deserve.
                if (notNumbers++ == 0)
                    notNumbersProblem = data.item(start + b).image + ": " + *problem;
                truths.push_back(data.item(start + b).boxes);
                continue;
            }
            DecodeOptions decode;
            decode.threshold = 0.005f;
            decode.letterbox = letterbox;
            decode.imageWidth = sizes[b].first;
            decode.imageHeight = sizes[b].second;
            std::vector<Detection> detections = decodeDetections(net, int(b), decode);
            nmsSort(detections, classes, 0.45f, nmsRule);
            for (const Detection& d : detections)
                for (int c = 0; c < classes && std::size_t(c) < d.prob.size(); ++c)
                    if (d.prob[std::size_t(c)] > 0)
                        predictions.push_back({truths.size(), c, d.prob[std::size_t(c)], d.box});
            truths.push_back(data.item(start + b).boxes);
        }
        if (progress)
            progress(start + count);
    }
    MapResult result = computeMap(predictions, truths, classes, options);
    result.unreadable = unreadableCount;
    result.warnings = std::move(unreadable);
    result.notNumbers = notNumbers;
    result.notNumbersProblem = std::move(notNumbersProblem);
    return result;
}

} // namespace nw
