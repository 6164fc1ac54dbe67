#pragma once
// Mean average precision of a detector over a labelled image set, as AlexeyAB's `detector map` reports
// it: per-class AP at IoU 0.5 (VOC all-point interpolation), COCO-style mAP@0.5:0.95 (101-point
// interpolation averaged over IoU 0.50, 0.55, …, 0.95), and precision/recall/F1/average IoU at a
// confidence threshold.
#include "data/detection_dataset.h"
#include "detect/detection.h"
#include "runtime/net.h"

#include <functional>
#include <string>
#include <vector>

namespace nw {

// One scored box of one class in one image.
struct ScoredBox {
    std::size_t image = 0;
    int classId = 0;
    float score = 0;
    Box box;
};

struct ClassAp {
    int truths = 0;        // ground-truth boxes of the class
    int detections = 0;    // scored boxes of the class
    double ap50 = 0;       // AP at the chosen IoU threshold (0.5 by default)
    double ap50to95 = 0;   // COCO-style average over IoU 0.50..0.95
    int truePositives = 0; // at the confidence threshold and IoU threshold
    int falsePositives = 0;
};

struct MapResult {
    std::vector<ClassAp> classes;
    double map50 = 0, map50to95 = 0;                          // mean over the classes that have ground truth
    double precision = 0, recall = 0, f1 = 0, averageIou = 0; // at the confidence threshold
    int truths = 0;
    std::size_t images = 0;     // scored (the readable ones)
    std::size_t unreadable = 0; // left out, each named in `warnings` (the first 20)
    std::vector<std::string> warnings;
    // Images whose head outputs were NaN or infinite (weights that diverged): scored as finding
    // nothing; the first is named in `notNumbersProblem`.
    std::size_t notNumbers = 0;
    std::string notNumbersProblem;
};

struct MapOptions {
    float iouThreshold = 0.5f;         // for ap50 and the P/R/F1 figures
    float confidenceThreshold = 0.25f; // for precision/recall/F1/average IoU
    int points = 0; // AP@iouThreshold: 0 all-point (AlexeyAB's default), N ≥ 2 N-point (11: VOC2007's)
};

// Scores predictions against ground truth: truths[i] are image i's boxes. Predictions of equal score
// keep their given order (a stable sort).
MapResult computeMap(const std::vector<ScoredBox>& predictions,
                     const std::vector<std::vector<TruthBox>>& truths, int classes,
                     const MapOptions& options = {});

// AP with all-point interpolation of a precision/recall curve (recall ascending).
double averagePrecisionAllPoints(const std::vector<double>& recall, const std::vector<double>& precision);
// AP as the mean, over recall 0, 1/(N−1), …, 1, of the best precision at that recall or above: Darknet's
// `-points N` (11: VOC2007), and COCO's 101 points.
double averagePrecisionPoints(const std::vector<double>& recall, const std::vector<double>& precision,
                              int points);

// Runs the net over every image of `data` (no augmentation; letterboxed when `letterbox`), keeps the
// candidates above 0.005 after NMS 0.45 and scores them; images that cannot be read are left out and
// named. `progress` (optional) gets images done;
// `forward` (optional) runs the passes elsewhere (a GPU copy of the net).
MapResult evaluateMap(Net& net, const DetectionDataset& data, bool letterbox, const MapOptions& options = {},
                      const std::function<void(std::size_t)>& progress = {}, const ForwardPass& forward = {});

} // namespace nw
