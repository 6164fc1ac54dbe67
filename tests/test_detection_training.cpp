// Detection training: [yolo] deltas and stats on hand-computed cases, the IoU-family gradients against
// finite differences, mAP on hand-made sets with known answers, YOLO labels and data sets, anchors,
// make-shapes, and a short training run whose loss falls and whose mAP rises.
#include "data/batch_loader.h"
#include "data/detection_dataset.h"
#include "data/make_shapes.h"
#include "data/training_data.h"
#include "detect/anchors.h"
#include "detect/map.h"
#include "layers/detection_loss.h"
#include "layers/region_loss.h"
#include "layers/yolo_loss.h"
#include "test_support.h"
#include "train/multi_scale.h"
#include "train/trainer.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <random>
#include <set>
#include <sys/stat.h>

using namespace nw;

namespace {

// A head on a 2×2 grid of a 64×64 net: anchors 16×16 and 48×48, two classes, Darknet v3's plain loss.
YoloLayer handHead(std::vector<int> mask)
{
    YoloLayer l;
    l.classes = 2;
    l.num = 2;
    l.mask = std::move(mask);
    l.anchors = {16, 16, 48, 48};
    l.ignoreThresh = 0.5f;
    l.truthThresh = 1;
    l.iouNormalizer = 1; // pjreddie's (AB's default 0.75 scales the box deltas)
    return l;
}

// Every slot: x = y = 0.5 after the logistic, raw w = h = 0, objectness 0.2, class scores 0.3 and 0.6.
std::vector<float> handOutput(std::size_t slotCount)
{
    const std::size_t plane = 4;
    std::vector<float> out(slotCount * 7 * plane, 0.0f);
    for (std::size_t a = 0; a < slotCount; ++a)
        for (std::size_t cell = 0; cell < plane; ++cell) {
            float* s = out.data() + a * 7 * plane;
            s[0 * plane + cell] = 0.5f;
            s[1 * plane + cell] = 0.5f;
            s[4 * plane + cell] = 0.2f;
            s[5 * plane + cell] = 0.3f;
            s[6 * plane + cell] = 0.6f;
        }
    return out;
}

float at(const std::vector<float>& v, std::size_t slot, int entry, int cell)
{
    return v[slot * 28 + std::size_t(entry) * 4 + std::size_t(cell)];
}

class Collect : public TrainObserver {
public:
    std::vector<IterationStats> seen;
    void iteration(const IterationStats& s) override { seen.push_back(s); }
};

// Ten 64 × 64 make-shapes images in `dir`, opened as `net`'s training and validation sets.
std::optional<TrainingData> openTinyShapes(const QString& dir, const Net& net, unsigned seed,
                                           std::string& error)
{
    ShapesOptions options;
    options.count = 10;
    options.seed = seed;
    options.width = options.height = 64;
    if (auto problem = makeShapes(dir.toStdString(), options)) {
        error = *problem;
        return std::nullopt;
    }
    auto data = loadDataFile(dir.toStdString() + "/shapes.data", error);
    std::vector<std::string> warnings;
    return data ? openTrainingData(*data, net, 1, error, warnings) : std::nullopt;
}

// A detector built from `cfg`, ten 64 × 64 make-shapes images in `dir` for it, and options that write
// into dir/out; `sets` empty (and `error` saying why) when either could not be made.
struct TinyShapesRun {
    TinyShapesRun(const std::string& cfg, const QString& dir)
    {
        const NetworkSpec spec = test::specFromText(cfg, "ms.cfg");
        net = Net::create(spec, spec.net.layerBatch(), error);
        if (net)
            sets = openTinyShapes(dir, *net, 5, error);
        train.outDir = dir.toStdString() + "/out";
    }
    std::unique_ptr<Net> net;
    std::optional<TrainingData> sets;
    TrainOptions train;
    std::string error;
};

// Trains `cfg` (a tiny detector) for 300 iterations on 10 make-shapes images: the average loss must
// fall below half the first loss and the head's IoU rise by more than 0.1.
void trainOnShapesAndCheck(std::string cfg, const std::string& name)
{
    QTemporaryDir dir;
    cfg.replace(cfg.find("max_batches=500"), 15, "max_batches=300");
    const NetworkSpec spec = test::specFromText(cfg, name);
    QVERIFY2(spec.ok(), test::allText(spec.diagnostics).c_str());
    std::string error;
    auto net = Net::create(spec, spec.net.layerBatch(), error);
    QVERIFY2(net, error.c_str());
    net->initialize(5);
    auto sets = openTinyShapes(dir.path(), *net, 3, error);
    QVERIFY2(sets, error.c_str());
    TrainOptions train;
    train.outDir = dir.path().toStdString() + "/out";
    train.checkpointEvery = 1000;
    Collect observer;
    const auto problem = Trainer(*net, *sets->train, nullptr, train).run(observer);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    QCOMPARE(observer.seen.size(), std::size_t(300));
    QCOMPARE(observer.seen.back().heads.size(), std::size_t(1));
    const double firstLoss = observer.seen[0].loss, lastAverage = observer.seen.back().averageLoss;
    const double firstIou = observer.seen[0].heads[0].averageIou;
    const double lastIou = observer.seen.back().heads[0].averageIou;
    qInfo("%s: loss %.3f -> %.3f, IoU %.3f -> %.3f", name.c_str(), firstLoss, lastAverage, firstIou, lastIou);
    QVERIFY(lastAverage < 0.5 * firstLoss);
    QVERIFY(lastIou > firstIou + 0.1);
}

} // namespace

class TestDetectionTraining : public QObject {
    Q_OBJECT

private slots:
    void yoloDeltasByHand()
    {
        const YoloLayer head = handHead({0, 1});
        const std::vector<float> output = handOutput(2);
        std::vector<float> delta(output.size(), 0.0f);
        // One truth, class 0, centre (0.3, 0.2) in cell (0, 0), 0.5 × 0.5: the 48×48 anchor fits it best
        // (shape IoU 0.444 against 0.25), so slot 1 of cell 0 takes it.
        const float truth[10] = {0.3f, 0.2f, 0.5f, 0.5f, 0, 0, 0, 0, 0, 0};
        HeadStats stats;
        yoloDeltas(head, {2, 2, 64, 64}, output.data(), truth, 2, delta.data(), stats);
        const float scale = 2 - 0.25f;
        QCOMPARE(at(delta, 1, 0, 0), scale * (0.6f - 0.5f));
        QCOMPARE(at(delta, 1, 1, 0), scale * (0.4f - 0.5f));
        QVERIFY(std::abs(at(delta, 1, 2, 0) - scale * std::log(0.5f * 64 / 48)) < 1e-6f);
        QVERIFY(std::abs(at(delta, 1, 3, 0) - scale * std::log(0.5f * 64 / 48)) < 1e-6f);
        QVERIFY(std::abs(at(delta, 1, 4, 0) - 0.8f) < 1e-6f); // 1 − objectness
        QVERIFY(std::abs(at(delta, 1, 5, 0) - 0.7f) < 1e-6f); // 1 − p(class 0)
        QVERIFY(std::abs(at(delta, 1, 6, 0) + 0.6f) < 1e-6f); // 0 − p(class 1)
        // Every other slot overlaps the truth by less than ignore_thresh: pushed toward no object.
        for (std::size_t a = 0; a < 2; ++a)
            for (int cell = 0; cell < 4; ++cell)
                if (a != 1 || cell != 0) {
                    QVERIFY(std::abs(at(delta, a, 4, cell) + 0.2f) < 1e-6f);
                    QCOMPARE(at(delta, a, 0, cell), 0.0f);
                    QCOMPARE(at(delta, a, 5, cell), 0.0f);
                }
        QCOMPARE(stats.count, 1);
        QVERIFY(std::abs(stats.averageIou - 0.25 / 0.5625) < 1e-6); // the truth lies inside the 0.75 box
        QCOMPARE(stats.recall50, 0.0);
        QVERIFY(std::abs(stats.classScore - 0.3) < 1e-6);
        QVERIFY(std::abs(stats.objectness - 0.2) < 1e-6);
        finishHeadStats(stats, 8);
        QVERIFY(std::abs(stats.noObject - 0.2) < 1e-6);
    }

    // [Gaussian_yolo]: each box value is a Gaussian's mean with the σ after it. The deltas must be the
    // negative gradient of ½·scale·[½((t − μ)/σ)² + ln(σ + 0.3)] (scale = 2 − w·h), checked against
    // finite differences of that loss; objectness and classes sit at entries 8 and 9+ and move as
    // [yolo]'s do; a box's scores are discounted by 1 − mean(σ) when decoded.
    void gaussianYoloDeltasMatchItsLikelihood()
    {
        YoloLayer head = handHead({0, 1});
        head.gaussian = true;
        head.iouNormalizer = 0.5f;
        head.ucNormalizer = 2;
        const std::size_t plane = 4, entries = 11; // 2 classes + 9
        std::vector<float> output(2 * entries * plane, 0.0f);
        const float mu[4] = {0.4f, 0.7f, 0.1f, -0.2f}, sigma[4] = {0.3f, 0.6f, 0.45f, 0.2f};
        for (std::size_t a = 0; a < 2; ++a)
            for (std::size_t cell = 0; cell < plane; ++cell) {
                float* s = output.data() + a * entries * plane;
                for (int v = 0; v < 4; ++v) {
                    s[std::size_t(2 * v) * plane + cell] = mu[v];
                    s[std::size_t(2 * v + 1) * plane + cell] = sigma[v];
                }
                s[8 * plane + cell] = 0.2f;
                s[9 * plane + cell] = 0.3f;
                s[10 * plane + cell] = 0.6f;
            }
        std::vector<float> delta(output.size(), 0.0f);
        const float truth[5] = {0.3f, 0.2f, 0.5f, 0.5f, 1}; // slot 1 of cell 0, as in yoloDeltasByHand
        HeadStats stats;
        yoloDeltas(head, {2, 2, 64, 64}, output.data(), truth, 1, delta.data(), stats);
        QCOMPARE(stats.count, 1);
        const auto d = [&](int entry, std::size_t slot = 1, int cell = 0) {
            return double(delta[slot * entries * plane + std::size_t(entry) * plane + std::size_t(cell)]);
        };
        const double scale = 2 - 0.25;
        const double target[4] = {0.6, 0.4, std::log(0.5 * 64 / 48), std::log(0.5 * 64 / 48)};
        const auto loss = [&](double t, double m, double s) {
            return 0.5 * scale * (0.5 * (t - m) * (t - m) / (s * s) + std::log(s + 0.3));
        };
        const double h = 1e-4;
        for (int v = 0; v < 4; ++v) {
            const double dMu =
                -(loss(target[v], mu[v] + h, sigma[v]) - loss(target[v], mu[v] - h, sigma[v])) / (2 * h);
            const double dSigma =
                -(loss(target[v], mu[v], sigma[v] + h) - loss(target[v], mu[v], sigma[v] - h)) / (2 * h);
            QVERIFY2(std::abs(d(2 * v) - 0.5 * dMu) < 1e-4 * std::max(1.0, std::abs(dMu)),
                     qPrintable(QString("μ %1: %2 vs %3").arg(v).arg(d(2 * v)).arg(0.5 * dMu)));
            QVERIFY2(std::abs(d(2 * v + 1) - 2 * dSigma) < 1e-4 * std::max(1.0, std::abs(dSigma)),
                     qPrintable(QString("σ %1: %2 vs %3").arg(v).arg(d(2 * v + 1)).arg(2 * dSigma)));
        }
        QVERIFY(std::abs(d(8) - 0.8) < 1e-6);       // 1 − objectness
        QVERIFY(std::abs(d(9) + 0.3) < 1e-6);       // 0 − p(class 0)
        QVERIFY(std::abs(d(10) - 0.4) < 1e-6);      // 1 − p(class 1)
        QVERIFY(std::abs(d(8, 0, 2) + 0.2) < 1e-6); // another slot: toward no object, no box delta
        QCOMPARE(d(0, 0, 2), 0.0);
        QCOMPARE(d(1, 0, 2), 0.0);
    }

    void yoloIgnoresGoodPredictionsOfOtherHeads()
    {
        // Only the 16×16 anchor here; the truth's best anchor (48×48) belongs to another head, so
        // nothing is assigned, but the slot whose box overlaps it above ignore_thresh is left alone.
        YoloLayer head = handHead({0});
        head.ignoreThresh = 0.2f;
        const std::vector<float> output = handOutput(1);
        std::vector<float> delta(output.size(), 0.0f);
        const float truth[5] = {0.25f, 0.25f, 0.5f, 0.5f, 1};
        HeadStats stats;
        yoloDeltas(head, {2, 2, 64, 64}, output.data(), truth, 1, delta.data(), stats);
        QCOMPARE(stats.count, 0);
        QCOMPARE(at(delta, 0, 4, 0), 0.0f); // IoU 0.25 > 0.2: ignored
        for (int cell = 1; cell < 4; ++cell)
            QVERIFY(std::abs(at(delta, 0, 4, cell) + 0.2f) < 1e-6f);
        for (float d : delta)
            QVERIFY(d == 0.0f || std::abs(d + 0.2f) < 1e-6f);
    }

    void yoloNormalizersAndSmoothing()
    {
        YoloLayer head = handHead({0, 1});
        head.iouNormalizer = 0.5f;
        head.objNormalizer = 2;
        head.clsNormalizer = 3;
        head.labelSmoothEps = 0.1f;
        const std::vector<float> output = handOutput(2);
        std::vector<float> delta(output.size(), 0.0f);
        const float truth[5] = {0.3f, 0.2f, 0.5f, 0.5f, 0};
        HeadStats stats;
        yoloDeltas(head, {2, 2, 64, 64}, output.data(), truth, 1, delta.data(), stats);
        QVERIFY(std::abs(at(delta, 1, 0, 0) - 1.75f * 0.1f * 0.5f) < 1e-6f);
        QVERIFY(std::abs(at(delta, 1, 4, 0) - 2 * 0.8f) < 1e-6f);
        QVERIFY(std::abs(at(delta, 1, 5, 0) - 3 * (0.95f - 0.3f)) < 1e-5f); // 1·(1 − ε) + ε/2
        QVERIFY(std::abs(at(delta, 1, 6, 0) - 3 * (0.05f - 0.6f)) < 1e-5f);
        QVERIFY(std::abs(at(delta, 0, 4, 1) - 2 * -0.2f) < 1e-6f);
    }

    // max_delta (AlexeyAB's; yolov4.cfg sets 5): an IoU-family loss's four box deltas clipped to
    // ±max_delta after iou_normalizer; the objectness and class deltas, and mse's box deltas, are not.
    void yoloMaxDeltaClipsIouLossBoxDeltas()
    {
        const float truth[5] = {0.3f, 0.2f, 0.5f, 0.5f, 0};
        const auto deltas = [&](const std::string& loss, float maxDelta) {
            YoloLayer head = handHead({0, 1});
            head.iouLoss = loss;
            head.maxDelta = maxDelta;
            const std::vector<float> output = handOutput(2);
            std::vector<float> delta(output.size(), 0.0f);
            HeadStats stats;
            yoloDeltas(head, {2, 2, 64, 64}, output.data(), truth, 1, delta.data(), stats);
            return delta;
        };
        for (const std::string loss : {"ciou", "giou", "mse"}) {
            const std::vector<float> free = deltas(loss, std::numeric_limits<float>::infinity());
            float largest = 0;
            for (int entry = 0; entry < 4; ++entry)
                largest = std::max(largest, std::abs(at(free, 1, entry, 0)));
            QVERIFY(largest > 0);
            const float limit = largest / 2;
            const std::vector<float> clipped = deltas(loss, limit);
            for (std::size_t i = 0; i < free.size(); ++i) {
                const bool boxEntry = i % (free.size() / 2) < 4 * 4; // entries 0–3 of either slot
                const float expected =
                    boxEntry && loss != "mse" ? std::clamp(free[i], -limit, limit) : free[i];
                QVERIFY2(
                    clipped[i] == expected,
                    qPrintable(
                        QString("%1 [%2]: %3 vs %4").arg(loss.c_str()).arg(i).arg(clipped[i]).arg(expected)));
            }
            QVERIFY(loss == "mse" || std::abs(at(clipped, 1, 0, 0)) <= limit);
        }
    }

    void regionDeltasByHand()
    {
        // [region] on a 2×2 grid: one anchor of 1×1 cells, two softmax classes, pjreddie's scales.
        RegionLayer head;
        head.classes = 2;
        head.num = 1;
        head.softmax = true;
        head.anchors = {1, 1};
        std::vector<float> output = handOutput(1); // x = y = .5, w = h = 0, obj .2, classes .3/.6
        for (int cell = 0; cell < 4; ++cell)
            output[6 * 4 + std::size_t(cell)] = 0.7f; // softmax: .3 + .7
        std::vector<float> delta(output.size(), 0.0f);
        const float truth[5] = {0.3f, 0.2f, 0.5f, 0.5f, 1};
        HeadStats stats;
        regionDeltas(head, 2, 2, output.data(), truth, 1, false, delta.data(), stats);
        QVERIFY(std::abs(at(delta, 0, 0, 0) - 1.75f * 0.1f) < 1e-6f);
        QVERIFY(std::abs(at(delta, 0, 1, 0) + 1.75f * 0.1f) < 1e-6f);
        QVERIFY(std::abs(at(delta, 0, 2, 0)) < 1e-6f); // 0.5·2 cells = the 1-cell anchor: log 1
        QVERIFY(std::abs(at(delta, 0, 4, 0) - 0.8f) < 1e-6f);
        QVERIFY(std::abs(at(delta, 0, 5, 0) + 0.3f) < 1e-6f);
        QVERIFY(std::abs(at(delta, 0, 6, 0) - 0.3f) < 1e-6f);
        for (int cell = 1; cell < 4; ++cell)
            QVERIFY(std::abs(at(delta, 0, 4, cell) + 0.2f) < 1e-6f);
        QCOMPARE(stats.count, 1);
        const double iou = 0.45 * 0.45 / (0.25 + 0.25 - 0.45 * 0.45); // the cell's 0.5 box vs the truth
        QVERIFY(std::abs(stats.averageIou - iou) < 1e-6);
        QVERIFY(std::abs(stats.classScore - 0.7) < 1e-6);
        // rescore: the objectness target becomes the IoU.
        head.rescore = true;
        std::fill(delta.begin(), delta.end(), 0.0f);
        regionDeltas(head, 2, 2, output.data(), truth, 1, false, delta.data(), stats);
        QVERIFY(std::abs(at(delta, 0, 4, 0) - (float(iou) - 0.2f)) < 1e-6f);
    }

    void detectionDeltasByHand()
    {
        // [detection] (YOLOv1) with side 2, two predictors per cell, two classes, sqrt boxes.
        DetectionLayer head;
        head.side = 2;
        head.num = 2;
        head.classes = 2;
        head.coords = 4;
        head.sqrt = true;
        head.objectScale = 5;
        head.noobjectScale = 0.5f;
        // Layout: 4 cells × 2 class scores, then 4 × 2 confidences, then 4 × 2 boxes of 4.
        std::vector<float> output(8 + 8 + 32, 0.0f);
        std::fill(output.begin(), output.begin() + 8, 0.5f);
        std::fill(output.begin() + 8, output.begin() + 16, 0.2f);
        auto box = [&](int cell, int n) { return output.begin() + 16 + (cell * 2 + n) * 4; };
        const float cell0[2][4] = {{0.5f, 0.5f, 0.4f, 0.4f}, {0.6f, 0.4f, 0.5f, 0.6f}};
        std::copy(cell0[0], cell0[0] + 4, box(0, 0));
        std::copy(cell0[1], cell0[1] + 4, box(0, 1)); // exactly the first truth (√.25, √.36)
        const float cell3[4] = {0.5f, 0.5f, 0.3f, 0.3f};
        std::copy(cell3, cell3 + 4, box(3, 0));
        // Truth 1 in cell 0 (x .3·2 = .6 in the cell); truth 2 in cell 0 too (the first one wins);
        // truth 3 in cell 3, a .1 × .1 box that predictor 0's .09 × .09 overlaps with IoU .81.
        const float truth[15] = {0.3f, 0.2f, 0.25f, 0.36f, 1,    0.1f, 0.1f, 0.2f,
                                 0.2f, 0,    0.75f, 0.75f, 0.1f, 0.1f, 0};
        std::vector<float> delta(output.size(), 0.0f);
        HeadStats stats;
        detectionDeltas(head, output.data(), truth, 3, false, nullptr, delta.data(), stats);
        auto near = [](float a, float b) { return std::abs(a - b) < 1e-5f; };
        QVERIFY(near(delta[0], -0.5f) && near(delta[1], 0.5f)); // cell 0: class 1
        QVERIFY(near(delta[2], 0) && near(delta[3], 0));        // cell 1: no object
        QVERIFY(near(delta[6], 0.5f) && near(delta[7], -0.5f)); // cell 3: class 0
        QVERIFY(near(delta[8 + 0], 0.5f * -0.2f));              // cell 0, predictor 0: no-object
        QVERIFY(near(delta[8 + 1], 5 * (1 - 0.2f)));            // cell 0, predictor 1: the best
        QVERIFY(near(delta[8 + 2], -0.1f) && near(delta[8 + 5], -0.1f));
        QVERIFY(near(delta[8 + 6], 5 * (1 - 0.2f))); // cell 3, predictor 0
        for (int k = 0; k < 4; ++k) {
            QVERIFY(near(delta[16 + 0 * 4 + std::size_t(k)], 0)); // predictor 0 of cell 0 not assigned
            QVERIFY(near(delta[16 + 1 * 4 + std::size_t(k)], 0)); // a perfect box has nothing to learn
        }
        const float root = std::sqrt(0.1f) - 0.3f;
        QVERIFY(near(delta[16 + 6 * 4 + 0], 0) && near(delta[16 + 6 * 4 + 1], 0));
        QVERIFY(near(delta[16 + 6 * 4 + 2], root) && near(delta[16 + 6 * 4 + 3], root));
        QCOMPARE(stats.count, 2);
        QVERIFY(std::abs(stats.averageIou - (1 + 0.81)) < 1e-5);
        QVERIFY(std::abs(stats.recall75 - 2) < 1e-9 && std::abs(stats.classScore - 1.0) < 1e-6);
        // rescore: the confidence target becomes the IoU; forced: small boxes go to predictor 1.
        head.rescore = true;
        head.forced = true;
        std::fill(delta.begin(), delta.end(), 0.0f);
        detectionDeltas(head, output.data(), truth, 3, false, nullptr, delta.data(), stats);
        QVERIFY(near(delta[8 + 1], 5 * (1 - 0.2f)));
        QVERIFY(near(delta[8 + 6], -0.1f));                    // predictor 0 is no longer the one
        QVERIFY(near(delta[8 + 7], 5 * (0 - 0.2f)));           // predictor 1 has an empty box: IoU 0
        QVERIFY(near(delta[16 + 7 * 4 + 2], std::sqrt(0.1f))); // and learns the truth's √w
    }

    void iouGradientsMatchFiniteDifferences()
    {
        const float t[4] = {0.52f, 0.47f, 0.3f, 0.2f};
        const float box[4] = {0.45f, 0.5f, 0.25f, 0.28f};
        // CIoU holds alpha = v/(1 − IoU + v) constant (as the paper does): freeze it in the numeric score.
        const float pi = 3.14159265f;
        auto v = [&](float w, float h) {
            const float angle = std::atan(t[2] / t[3]) - std::atan(w / h);
            return 4 / (pi * pi) * angle * angle;
        };
        const float iou0 = iouScore("iou", box[0], box[1], box[2], box[3], t[0], t[1], t[2], t[3]).value;
        const float alpha = v(box[2], box[3]) / (1 - iou0 + v(box[2], box[3]));
        auto score = [&](const std::string& kind, const float* b) {
            if (kind == "ciou")
                return iouScore("diou", b[0], b[1], b[2], b[3], t[0], t[1], t[2], t[3]).value -
                       alpha * v(b[2], b[3]);
            return iouScore(kind, b[0], b[1], b[2], b[3], t[0], t[1], t[2], t[3]).value;
        };
        for (const std::string kind : {"iou", "giou", "diou", "ciou"}) {
            const IouGradient g = iouScore(kind, box[0], box[1], box[2], box[3], t[0], t[1], t[2], t[3]);
            QVERIFY(std::abs(g.value - score(kind, box)) < 1e-6f);
            const float analytic[4] = {g.dx, g.dy, g.dw, g.dh};
            for (int k = 0; k < 4; ++k) {
                float plus[4] = {box[0], box[1], box[2], box[3]}, minus[4] = {box[0], box[1], box[2], box[3]};
                const float eps = 1e-3f;
                plus[k] += eps;
                minus[k] -= eps;
                const float numeric = (score(kind, plus) - score(kind, minus)) / (2 * eps);
                QVERIFY2(std::abs(numeric - analytic[k]) < 2e-3f * std::max(1.0f, std::abs(numeric)),
                         qPrintable(QString("%1 d%2: analytic %3 numeric %4")
                                        .arg(QString::fromStdString(kind))
                                        .arg(k)
                                        .arg(analytic[k])
                                        .arg(numeric)));
            }
        }
        // Same box: every score is 1.
        for (const char* kind : {"iou", "giou", "diou", "ciou"})
            QVERIFY(std::abs(iouScore(kind, 0.5f, 0.5f, 0.2f, 0.3f, 0.5f, 0.5f, 0.2f, 0.3f).value - 1) <
                    1e-6f);
        // Disjoint boxes: IoU 0, GIoU = −(hull − union)/hull by hand.
        const IouGradient apart = iouScore("giou", 0.2f, 0.5f, 0.2f, 0.2f, 0.8f, 0.5f, 0.2f, 0.2f);
        QVERIFY(std::abs(apart.value - (0 - (0.8f * 0.2f - 0.08f) / (0.8f * 0.2f))) < 1e-5f);
    }

    void mapByHand()
    {
        const std::vector<std::vector<TruthBox>> truths{
            {{0.25f, 0.25f, 0.2f, 0.2f, 0}}, {{0.5f, 0.5f, 0.2f, 0.2f, 0}, {0.8f, 0.8f, 0.1f, 0.1f, 1}}};
        const Box t1{0.25f, 0.25f, 0.2f, 0.2f}, t2{0.5f, 0.5f, 0.2f, 0.2f}, far{0.9f, 0.1f, 0.1f, 0.1f};
        const std::vector<ScoredBox> predictions{{0, 0, 0.9f, t1},  // TP
                                                 {0, 0, 0.8f, t1},  // duplicate: FP
                                                 {1, 0, 0.7f, far}, // FP
                                                 {1, 0, 0.6f, t2},  // TP
                                                 {0, 2, 0.9f, t1}}; // a class without truth: left out
        const MapResult r = computeMap(predictions, truths, 3);
        // Class 0: recall .5 .5 .5 1, precision 1 .5 .33 .5 → envelope 1 .5 .5 .5 → AP = .5·1 + .5·.5.
        QVERIFY(std::abs(r.classes[0].ap50 - 0.75) < 1e-9);
        // COCO's 101 points: recall 0..0.50 at precision 1 (51 points), 0.51..1 at 0.5 (50 points).
        QVERIFY(std::abs(r.classes[0].ap50to95 - (51 + 25) / 101.0) < 1e-9);
        QCOMPARE(r.classes[1].ap50, 0.0); // a truth, no prediction
        QCOMPARE(r.classes[2].truths, 0);
        QVERIFY(std::abs(r.map50 - 0.375) < 1e-9);
        // At confidence 0.25: 2 TP, 3 FP, 3 truths.
        QVERIFY(std::abs(r.precision - 0.4) < 1e-9);
        QVERIFY(std::abs(r.recall - 2.0 / 3) < 1e-9);
        QVERIFY(std::abs(r.f1 - 0.5) < 1e-9);
        QCOMPARE(r.truths, 3);

        // Ties keep the given order: a miss then a hit scores 0.5, a hit then a miss 1.
        const std::vector<std::vector<TruthBox>> one{{{0.5f, 0.5f, 0.2f, 0.2f, 0}}};
        const ScoredBox hit{0, 0, 0.5f, {0.5f, 0.5f, 0.2f, 0.2f}}, miss{0, 0, 0.5f, far};
        QVERIFY(std::abs(computeMap({miss, hit}, one, 1).map50 - 0.5) < 1e-9);
        QVERIFY(std::abs(computeMap({hit, miss}, one, 1).map50 - 1.0) < 1e-9);
        // No predictions at all, and no truths at all.
        QCOMPARE(computeMap({}, one, 1).map50, 0.0);
        QCOMPARE(computeMap({hit}, {{}}, 1).map50, 0.0);
        // The IoU threshold: a box shifted to IoU 0.6 is a hit at 0.5 and a miss at 0.7.
        const ScoredBox shifted{0, 0, 0.9f, {0.5f + 0.05f, 0.5f, 0.2f, 0.2f}}; // IoU 0.03/(0.08 − 0.03) = 0.6
        QVERIFY(std::abs(computeMap({shifted}, one, 1).map50 - 1.0) < 1e-9);
        MapOptions strict;
        strict.iouThreshold = 0.7f;
        QCOMPARE(computeMap({shifted}, one, 1, strict).map50, 0.0);
        QVERIFY(std::abs(averagePrecisionAllPoints({0.5, 1.0}, {1.0, 0.5}) - 0.75) < 1e-12);
        // Darknet's -points 11 (VOC2007): class 0 has precision 1 up to recall 0.5 (6 points: 0 … 0.5) and
        // 0.5 from there to 1 (5 points), so (6 + 2.5)/11; the mean with class 1's 0.
        MapOptions voc;
        voc.points = 11;
        const MapResult elevenPoint = computeMap(predictions, truths, 3, voc);
        QVERIFY(std::abs(elevenPoint.classes[0].ap50 - 8.5 / 11) < 1e-9);
        QVERIFY(std::abs(elevenPoint.map50 - 8.5 / 22) < 1e-9);
        QVERIFY(std::abs(elevenPoint.classes[0].ap50to95 - r.classes[0].ap50to95) < 1e-12); // COCO's stays
    }

    void labelFilesAndPaths()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        QVERIFY(QDir(dir.path()).mkpath("data/images"));
        QVERIFY(QDir(dir.path()).mkpath("data/labels"));
        std::ofstream(root + "/data/labels/a.txt") << "0 0.5 0.5 0.2 0.2\n";
        // pjreddie's rule when its file exists, else AlexeyAB's (next to the image).
        QCOMPARE(labelPathFor(root + "/data/images/a.jpg"), root + "/data/labels/a.txt");
        QCOMPARE(labelPathFor(root + "/data/images/b.PNG"), root + "/data/labels/b.txt"); // neither exists
        std::ofstream(root + "/data/images/c.txt") << "1 0.5 0.5 0.2 0.2\n";
        QCOMPARE(labelPathFor(root + "/data/images/c.JPEG"), root + "/data/images/c.txt");
        // A "raw" inside a folder's name: pj's raw→labels step makes drawn/ dlabelsn/; without it, found.
        QVERIFY(QDir(dir.path()).mkpath("drawn/labels"));
        std::ofstream(root + "/drawn/labels/d.txt") << "0 0.5 0.5 0.2 0.2\n";
        QCOMPARE(labelPathFor(root + "/drawn/images/d.jpg"), root + "/drawn/labels/d.txt");
        // None exists there: the path said (and written by Save labels) is not pj's dlabelsings/ but the
        // one beside the image.
        QCOMPARE(labelPathFor(root + "/drawings/f.jpg"), root + "/drawings/f.txt");
        // Ultralytics' layout under a folder whose name holds "images": pj's first "images" is the
        // parent's (my_labels_2024/…), the labels are where the last /images/ becomes /labels/.
        QVERIFY(QDir(dir.path()).mkpath("my_images_2024/ds/labels/val"));
        std::ofstream(root + "/my_images_2024/ds/labels/val/e.txt") << "0 0.5 0.5 0.2 0.2\n";
        QCOMPARE(labelPathFor(root + "/my_images_2024/ds/images/val/e.jpg"),
                 root + "/my_images_2024/ds/labels/val/e.txt");

        const std::string labels = root + "/bad.txt";
        std::ofstream(labels) << "0 0.5 0.5 0.2 0.2\n"
                                 "\n"
                                 "7 0.5 0.5 0.2 0.2\n"
                                 "1 0.5 0.5\n"
                                 "1 0.5 0.5 0.0 0.2\n"
                                 "x 0.1 0.1 0.1 0.1\n"
                                 "2 0.25 0.75 0.5 0.1\n"
                                 "1 0.5 0.5 1.02 0.3\n" // a full-width object, rounded over 1: kept at 1
                                 "0 0.3 0.5 1.5 0.4\n"; // off centre: clipped to the image, as Darknet
        std::vector<std::string> warnings;
        bool missing = true;
        const auto boxes = readLabelFile(labels, 3, warnings, missing);
        QVERIFY(!missing);
        QCOMPARE(boxes.size(), std::size_t(4));
        QCOMPARE(boxes[1].classId, 2);
        QCOMPARE(boxes[1].x, 0.25f);
        QCOMPARE(boxes[2].w, 1.0f);
        QCOMPARE(boxes[3].x, 0.5f);
        QCOMPARE(boxes[3].w, 1.0f);
        QCOMPARE(boxes[3].h, 0.4f);
        QCOMPARE(warnings.size(), std::size_t(6));
        QVERIFY(warnings[4].find(labels + ":8: width 1.020000 is over 1") == 0);
        QVERIFY2(warnings[5] == labels + ":9: width 1.500000 is over 1 (relative sizes are 0..1); the part "
                                         "inside the image is kept",
                 warnings[5].c_str());
        QVERIFY(warnings[0].find(labels + ":3: class 7 is outside 0..2") == 0);
        QVERIFY(warnings[1].find(labels + ":4: expected") == 0);
        QVERIFY(warnings[2].find(labels + ":5:") == 0);
        QVERIFY(warnings[3].find(labels + ":6:") == 0);
        readLabelFile(root + "/none.txt", 3, warnings, missing);
        QVERIFY(missing);
        // What labelling tools write instead, each said in words: a confidence column, a YOLOv8
        // segmentation polygon whose coordinates are not pairs, a class written as a real number.
        const std::string other = root + "/other.txt";
        std::ofstream(other) << "0 0.5 0.5 0.2 0.2 0.93\n"
                                "1 0.1 0.1 0.3 0.1 0.2 0.3 0.4\n"
                                "1.0 0.5 0.5 0.2 0.2\n";
        warnings.clear();
        QVERIFY(readLabelFile(other, 3, warnings, missing).empty());
        QCOMPARE(warnings.size(), std::size_t(3));
        QVERIFY2(warnings[0].find("(a sixth column: a confidence") != std::string::npos, warnings[0].c_str());
        QVERIFY2(warnings[1].find("(a polygon, as YOLOv8 segmentation labels are, but its coordinates do not "
                                  "come in x y pairs)") != std::string::npos,
                 warnings[1].c_str());
        QVERIFY2(warnings[2].find("(the class is a whole number: 1, not 1.0)") != std::string::npos,
                 warnings[2].c_str());
        // A YOLOv8 segmentation polygon (four points or more) is its bounding box, as Ultralytics trains
        // a detector on it (it was skipped, and a set of them had no box at all); points past the edge
        // are cut to it. Counted when kept, not warned line by line. Seven columns are a tracker's
        // results (confidence, track id), not a triangle; a polygon of a class out of range is a bad
        // line, not counted as a polygon.
        std::ofstream(other) << "1 0.1 0.2 0.5 0.2 0.3 0.6 0.2 0.4\n"
                                "2 0.8 0.7 1.05 0.9 0.9 0.95 0.85 0.6\n"
                                "2 0.5 0.5 0.2 0.2 0.91 7\n"
                                "5 0.1 0.2 0.5 0.2 0.3 0.6 0.2 0.4\n";
        warnings.clear();
        LabelLineCounts polygonCounts;
        const auto outlines = readLabelFile(other, 3, warnings, missing, &polygonCounts);
        QCOMPARE(warnings.size(), std::size_t(2));
        QVERIFY2(warnings[0].find(":3: expected") != std::string::npos &&
                     warnings[0].find("(seven columns: a confidence and a track id") != std::string::npos,
                 warnings[0].c_str());
        QVERIFY2(warnings[1].find(":4: class 5 is outside 0..2") != std::string::npos, warnings[1].c_str());
        QCOMPARE(polygonCounts.polygons, std::size_t(2));
        QCOMPARE(polygonCounts.skipped, std::size_t(2));
        QCOMPARE(outlines.size(), std::size_t(2));
        QCOMPARE(outlines[0].classId, 1);
        QVERIFY(qFuzzyCompare(outlines[0].x, 0.3f) && qFuzzyCompare(outlines[0].y, 0.4f) &&
                qFuzzyCompare(outlines[0].w, 0.4f) && qFuzzyCompare(outlines[0].h, 0.4f));
        QCOMPARE(outlines[1].classId, 2);
        QVERIFY(qFuzzyCompare(outlines[1].x, 0.9f) && qFuzzyCompare(outlines[1].y, 0.775f) &&
                qFuzzyCompare(outlines[1].w, 0.2f) && qFuzzyCompare(outlines[1].h, 0.35f));
        // UTF-16 (PowerShell's `>`): named as such, not as lines ending in a lone CR.
        std::ofstream(root + "/wide.txt") << std::string("\xff\xfe"
                                                         "0\0 \0"
                                                         "0\0.\0"
                                                         "5\0",
                                                         12);
        warnings.clear();
        QVERIFY(readLabelFile(root + "/wide.txt", 3, warnings, missing).empty());
        QCOMPARE(warnings.size(), std::size_t(1));
        QVERIFY2(warnings[0].find("wide.txt: UTF-16 text") != std::string::npos, warnings[0].c_str());
        // A named pipe where a label file goes is not opened (nothing writes it: the read waited for ever).
        QCOMPARE(mkfifo((root + "/pipe.txt").c_str(), 0600), 0);
        readLabelFile(root + "/pipe.txt", 3, warnings, missing);
        QVERIFY(missing);
    }

    // An image with more boxes than the heads' max= loses some each iteration: said, with the fix.
    void crowdedImagesAreNamed()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        QVERIFY(cv::imwrite(root + "/crowd.png", cv::Mat(32, 32, CV_8UC3, cv::Scalar(0, 0, 255))));
        QVERIFY(cv::imwrite(root + "/few.png", cv::Mat(32, 32, CV_8UC3, cv::Scalar(0, 0, 255))));
        std::ofstream(root + "/crowd.txt") << "0 0.1 0.1 0.1 0.1\n0 0.3 0.3 0.1 0.1\n1 0.5 0.5 0.1 0.1\n"
                                              "1 0.7 0.7 0.1 0.1\n0 0.9 0.9 0.1 0.1\n";
        std::ofstream(root + "/few.txt") << "0 0.5 0.5 0.2 0.2\n";
        std::ofstream(root + "/list.txt") << "crowd.png\nfew.png\n";
        std::string error;
        std::vector<std::string> warnings;
        QVERIFY(loadDetectionDataset(root + "/list.txt", 2, 32, 32, 3, 4, {}, error, warnings));
        QCOMPARE(warnings.size(), std::size_t(1));
        QCOMPARE(warnings[0],
                 root +
                     "/list.txt: 1 image has more boxes than the detection heads read (max=4): each "
                     "iteration learns a random 4 of them; " +
                     root +
                     "/crowd.png has 5: set max=5 or more in each head (AlexeyAB's default "
                     "is 200, pjreddie's 90)");
        warnings.clear();
        QVERIFY(loadDetectionDataset(root + "/list.txt", 2, 32, 32, 3, 5, {}, error, warnings));
        QVERIFY(warnings.empty());
    }

    // Bad label lines: the first ten and the first of each other kind, then a count (a thousand bad lines
    // printed a thousand warnings, and the studio's log kept only the last); a class without a box is
    // named, with the numbered-from-1 hint; a set whose every line was skipped says so (it said "every
    // label file is empty"); a lone-CR file is named as such, without echoing the CR.
    void messyLabelsAreSummarised()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        QVERIFY(cv::imwrite(root + "/a.png", cv::Mat(32, 32, CV_8UC3, cv::Scalar(0, 0, 255))));
        QVERIFY(cv::imwrite(root + "/b.png", cv::Mat(32, 32, CV_8UC3, cv::Scalar(0, 0, 255))));
        {
            std::ofstream a(root + "/a.txt");
            for (int i = 0; i < 25; ++i)
                a << "3 0.5 0.5 0.1 0.1\n"; // ids numbered from 1: 3 is out of range for 3 classes
            a << "1 0.5 0.5 0.1 0.1\n";
        }
        std::ofstream(root + "/b.txt") << "1 0.5 0.5\n2 0.5 0.5 0.2 0.2\n";
        std::ofstream(root + "/list.txt") << "a.png\nb.png\n";
        std::string error;
        std::vector<std::string> warnings;
        QVERIFY(loadDetectionDataset(root + "/list.txt", 3, 32, 32, 3, 4, {}, error, warnings));
        QCOMPARE(warnings.size(), std::size_t(13));
        QVERIFY(warnings[0].starts_with(root + "/a.txt:1: class 3 is outside 0..2"));
        QVERIFY(warnings[9].starts_with(root + "/a.txt:10: class 3 is outside 0..2"));
        QVERIFY2(warnings[10].starts_with(root + "/b.txt:1: expected"), warnings[10].c_str());
        QCOMPARE(warnings[11], std::string("and 15 more bad label lines like those above"));
        QVERIFY2(warnings[12].starts_with(root + "/list.txt: no box of class 0 (of classes 0..2)") &&
                     warnings[12].ends_with("were they numbered from 1?"),
                 warnings[12].c_str());

        // A hint makes a kind of its own: decimal commas after a dozen other bad lines are still shown
        // with theirs (they were folded into "N more bad label lines like those above").
        {
            std::ofstream b(root + "/b.txt");
            for (int i = 0; i < 12; ++i)
                b << "1 0.5 0.5\n";
            b << "1 0,5 0,5 0,2 0,2\n2 0.5 0.5 0.2 0.2\n";
        }
        warnings.clear();
        QVERIFY(loadDetectionDataset(root + "/list.txt", 3, 32, 32, 3, 4, {}, error, warnings));
        QVERIFY2(std::any_of(warnings.begin(), warnings.end(),
                             [&](const std::string& w) {
                                 return w.starts_with(root + "/b.txt:13: expected") &&
                                        w.find("decimal commas") != std::string::npos;
                             }),
                 std::accumulate(warnings.begin(), warnings.end(), std::string("\n")).c_str());
        // A repeated box is skipped too, but is no sign of ids numbered from 1: no hint then.
        std::ofstream(root + "/b.txt") << "1 0.5 0.5 0.2 0.2\n1 0.5 0.5 0.2 0.2\n2 0.3 0.3 0.2 0.2\n";
        std::ofstream(root + "/one.txt") << "b.png\n";
        warnings.clear();
        QVERIFY(loadDetectionDataset(root + "/one.txt", 3, 32, 32, 3, 4, {}, error, warnings));
        QCOMPARE(warnings.size(), std::size_t(2));
        QVERIFY2(warnings[0].find(":2: repeats the box of line 1") != std::string::npos, warnings[0].c_str());
        QCOMPARE(warnings[1], root + "/one.txt: no box of class 0 (of classes 0..2): nothing to learn or "
                                     "measure it by");
        // Polygons are said once for the set, with their count.
        std::ofstream(root + "/b.txt")
            << "0 0.1 0.2 0.5 0.2 0.3 0.6 0.2 0.4\n1 0.5 0.5 0.2 0.2\n0 0.3 0.3 0.4 0.3 0.4 0.4 0.3 0.4\n";
        warnings.clear();
        QVERIFY(loadDetectionDataset(root + "/one.txt", 2, 32, 32, 3, 4, {}, error, warnings));
        QCOMPARE(warnings.size(), std::size_t(1));
        QCOMPARE(warnings[0], root + "/one.txt: 2 label lines are polygons (YOLOv8 segmentation labels): "
                                     "taken as their bounding boxes");
        std::ofstream(root + "/b.txt") << "1 0.5 0.5\n2 0.5 0.5 0.2 0.2\n";

        // Cancelled (the studio's check of a large set, abandoned for another .data): stops at once.
        const std::atomic<bool> cancelled{true};
        QVERIFY(!loadDetectionDataset(root + "/list.txt", 3, 32, 32, 3, 4, {}, error, warnings, true,
                                      &cancelled));
        QCOMPARE(error, std::string("cancelled"));

        std::ofstream(root + "/b.txt") << "5 0.5 0.5 0.2 0.2\n";
        std::ofstream(root + "/list.txt") << "b.png\n";
        warnings.clear();
        QVERIFY(!loadDetectionDataset(root + "/list.txt", 3, 32, 32, 3, 4, {}, error, warnings));
        QVERIFY2(error.ends_with("no image has a box: every label line was skipped (1 bad lines, each named "
                                 "above)"),
                 error.c_str());

        std::ofstream(root + "/mac.txt") << "0 0.5 0.5 0.2 0.2\r1 0.5 0.5 0.2 0.2\r";
        warnings.clear();
        bool missing = true;
        QVERIFY(readLabelFile(root + "/mac.txt", 3, warnings, missing).empty());
        QCOMPARE(warnings.size(), std::size_t(1));
        QVERIFY2(warnings[0].find("lone CR") != std::string::npos &&
                     warnings[0].find('\r') == std::string::npos,
                 warnings[0].c_str());
        // Windows line ends (CRLF) read as lines; a bad one is not called a lone CR, and its excerpt
        // has no '?' for the CR. Decimal commas (a German spreadsheet's export) are named as such.
        std::ofstream(root + "/windows.txt")
            << "0 0.5 0.5 0.2 0.2\r\n1 0,5 0,5 0,2 0,2\r\n2 0.5 0.5 abc 0.2\r\n";
        warnings.clear();
        QCOMPARE(readLabelFile(root + "/windows.txt", 3, warnings, missing).size(), std::size_t(1));
        QCOMPARE(warnings.size(), std::size_t(2));
        QVERIFY2(warnings[0].find("found '1 0,5 0,5 0,2 0,2' (decimal commas") != std::string::npos,
                 warnings[0].c_str());
        QVERIFY2(warnings[1].find("found '2 0.5 0.5 abc 0.2'; line skipped") != std::string::npos,
                 warnings[1].c_str());
        std::ofstream(root + "/huge.txt") << "99999999999999999999 0.5 0.5 0.2 0.2\n";
        warnings.clear();
        QVERIFY(readLabelFile(root + "/huge.txt", 3, warnings, missing).empty());
        QCOMPARE(warnings.size(), std::size_t(1)); // as written, not as strtol clamps it
        QVERIFY2(warnings[0].find(":1: class 99999999999999999999 is outside 0..2") != std::string::npos,
                 warnings[0].c_str());
        // An object labelled twice (same class, same place as written to six decimals) is kept once: a
        // second truth could never be matched and would lower mAP. Another class at that place, or the
        // same class a pixel away, is another object.
        std::ofstream(root + "/twice.txt") << "0 0.5 0.5 0.2 0.2\n"
                                              "1 0.5 0.5 0.2 0.2\n"
                                              "0 0.500000 0.500000 0.200000 0.200000\n"
                                              "0 0.502 0.5 0.2 0.2\n";
        warnings.clear();
        LabelLineCounts counts;
        QCOMPARE(readLabelFile(root + "/twice.txt", 3, warnings, missing, &counts).size(), std::size_t(3));
        QCOMPARE(counts.skipped, std::size_t(1));
        QCOMPARE(counts.classOutside, std::size_t(0));
        QCOMPARE(warnings.size(), std::size_t(1));
        QVERIFY2(warnings[0].find("twice.txt:3: repeats the box of line 1 (same class, same place); line "
                                  "skipped") != std::string::npos,
                 warnings[0].c_str());
    }

    void letterboxAndFlipMoveBoxes()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        cv::Mat wide(100, 200, CV_8UC3, cv::Scalar(0, 0, 255)); // red (BGR)
        QVERIFY(cv::imwrite(root + "/wide.png", wide));
        std::ofstream(root + "/wide.txt") << "1 0.25 0.5 0.1 0.4\n";
        std::ofstream(root + "/list.txt") << "wide.png\n"; // relative to the list's folder
        DetectionAugmentation augmentation;
        augmentation.letterbox = true;
        std::string error;
        std::vector<std::string> warnings;
        auto set = loadDetectionDataset(root + "/list.txt", 2, 64, 64, 3, 4, augmentation, error, warnings);
        QVERIFY2(set, error.c_str());
        std::vector<float> image(64 * 64 * 3), truth(20, 0.0f);
        std::mt19937 random(1);
        QVERIFY(set->sample(0, random, set->width(), set->height(), image.data(), truth.data(), error));
        // 200×100 into 64×64: the image fills rows 16..47; y' = 0.25 + y/2, h' = h/2.
        QVERIFY(std::abs(truth[0] - 0.25f) < 1e-4f);
        QVERIFY(std::abs(truth[1] - 0.5f) < 1e-4f);
        QVERIFY(std::abs(truth[2] - 0.1f) < 1e-4f);
        QVERIFY(std::abs(truth[3] - 0.2f) < 1e-4f);
        QCOMPARE(truth[4], 1.0f);
        QCOMPARE(truth[7], 0.0f);                                        // no second box
        QVERIFY(std::abs(image[0] - 127 / 255.0f) < 1e-6f);              // grey bar, red channel
        QVERIFY(std::abs(image[32 * 64 + 32] - 1.0f) < 1e-6f);           // the image: red = 1
        QVERIFY(std::abs(image[64 * 64 + 32 * 64 + 32] - 0.0f) < 1e-6f); // green = 0

        // Enabled augmentation without jitter or colour: boxes are either unchanged or mirrored.
        augmentation = {};
        augmentation.enabled = true;
        set = loadDetectionDataset(root + "/list.txt", 2, 64, 64, 3, 4, augmentation, error, warnings);
        int mirrored = 0;
        for (int k = 0; k < 20; ++k) {
            std::fill(truth.begin(), truth.end(), 0.0f);
            QVERIFY(set->sample(0, random, set->width(), set->height(), image.data(), truth.data(), error));
            const bool flipped = std::abs(truth[0] - 0.75f) < 1e-4f;
            QVERIFY(flipped || std::abs(truth[0] - 0.25f) < 1e-4f);
            mirrored += flipped;
        }
        QVERIFY(mirrored > 0 && mirrored < 20);

        // Letterbox with jitter: the bars are added to both sides of the jittered crop (AlexeyAB's
        // rule), so the jitter still changes the aspect ratio — boxes come out with varied shapes
        // (widening each crop to the network's ratio kept every box's w/h as in the picture).
        augmentation.letterbox = true;
        augmentation.jitter = 0.3f;
        augmentation.flip = false;
        set = loadDetectionDataset(root + "/list.txt", 2, 64, 64, 3, 4, augmentation, error, warnings);
        float narrowest = 1e9f, widest = 0;
        for (int k = 0; k < 20; ++k) {
            std::fill(truth.begin(), truth.end(), 0.0f);
            QVERIFY(set->sample(0, random, set->width(), set->height(), image.data(), truth.data(), error));
            const bool inside = truth[2] > 0 && truth[0] - truth[2] / 2 > 0.001f &&
                                truth[0] + truth[2] / 2 < 0.999f && truth[1] - truth[3] / 2 > 0.001f &&
                                truth[1] + truth[3] / 2 < 0.999f;
            if (inside) { // not cut by the crop
                narrowest = std::min(narrowest, truth[2] / truth[3]);
                widest = std::max(widest, truth[2] / truth[3]);
            }
        }
        QVERIFY2(widest > 1.1f * narrowest,
                 qPrintable(QString("w/h from %1 to %2").arg(narrowest).arg(widest)));
    }

    // Scaled up, the image stays on its boxes: a 32x16 picture, black left of x = 16 and white right of
    // it, box 0.75 wide 0.5 from that edge, at 64x32: the edge falls between pixels 31 and 32, as
    // cv::resize puts it (pixels 31, 32: 64 and 191 of 255); the image came half a pixel left (128, 255).
    // Mirrored, the same image mirrored.
    void scalingUpKeepsTheImageOnItsBoxes()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        cv::Mat half(16, 32, CV_8UC3, cv::Scalar::all(0));
        half.colRange(16, 32).setTo(cv::Scalar::all(255));
        QVERIFY(cv::imwrite(root + "/half.png", half));
        std::ofstream(root + "/half.txt") << "0 0.75 0.5 0.5 1\n";
        std::ofstream(root + "/list.txt") << "half.png\n";
        cv::Mat expected;
        cv::resize(half, expected, cv::Size(64, 32), 0, 0, cv::INTER_LINEAR);
        DetectionAugmentation augmentation;
        augmentation.enabled = true; // (only the flip: no jitter, no colour)
        std::string error;
        std::vector<std::string> warnings;
        auto set = loadDetectionDataset(root + "/list.txt", 1, 64, 32, 3, 4, augmentation, error, warnings);
        QVERIFY2(set, error.c_str());
        std::vector<float> image(64 * 32 * 3), truth(20, 0.0f);
        std::mt19937 random(1);
        int mirrored = 0;
        for (int k = 0; k < 8; ++k) {
            QVERIFY(set->sample(0, random, 64, 32, image.data(), truth.data(), error));
            const bool flipped = truth[0] < 0.5f;
            mirrored += flipped;
            QCOMPARE(truth[0], flipped ? 0.25f : 0.75f);
            int worst = 0;
            for (int y = 1; y < 31; ++y) // (the outer pixels blend in the grey beyond the image)
                for (int x = 1; x < 63; ++x)
                    worst =
                        std::max(worst, std::abs(int(std::lround(image[std::size_t(y * 64 + x)] * 255)) -
                                                 int(expected.at<cv::Vec3b>(y, flipped ? 63 - x : x)[0])));
            QVERIFY2(worst <= 1, qPrintable(QString("%1 levels from cv::resize (flipped %2); pixels 31, 32: "
                                                    "%3, %4")
                                                .arg(worst)
                                                .arg(flipped)
                                                .arg(image[31] * 255)
                                                .arg(image[32] * 255)));
        }
        QVERIFY(mirrored > 0 && mirrored < 8);
    }

    void mosaicCombinesFourImages()
    {
        // Four images, each with one small box near every corner, labelled with the image's index. The
        // mosaic centre lies in 0.3..0.7, so each quadrant keeps exactly its corner's box: every sample
        // has four unchanged boxes, and a mosaic's come from several images.
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        std::ofstream list(root + "/list.txt");
        for (int i = 0; i < 4; ++i) {
            const std::string name = root + "/" + std::to_string(i);
            QVERIFY(cv::imwrite(name + ".png", cv::Mat(64, 64, CV_8UC3, cv::Scalar::all(60 * i))));
            std::ofstream(name + ".txt") << i << " 0.15 0.15 0.1 0.1\n"
                                         << i << " 0.85 0.15 0.1 0.1\n"
                                         << i << " 0.15 0.85 0.1 0.1\n"
                                         << i << " 0.85 0.85 0.1 0.1\n";
            list << name << ".png\n";
        }
        list.close();
        DetectionAugmentation augmentation;
        augmentation.enabled = true;
        augmentation.mosaic = true;
        augmentation.flip = false;
        std::string error;
        std::vector<std::string> warnings;
        auto set = loadDetectionDataset(root + "/list.txt", 4, 64, 64, 3, 8, augmentation, error, warnings);
        QVERIFY2(set, error.c_str());
        std::mt19937 random(9);
        int mixed = 0;
        for (int k = 0; k < 40; ++k) {
            std::vector<float> image(64 * 64 * 3), truth(40, 0.0f);
            QVERIFY(set->sample(0, random, set->width(), set->height(), image.data(), truth.data(), error));
            std::set<int> classes;
            int boxes = 0;
            for (int b = 0; b < 8 && truth[5 * b + 2] > 0; ++b, ++boxes) {
                const float x = truth[5 * b], y = truth[5 * b + 1];
                QVERIFY(std::abs(std::abs(x - 0.5f) - 0.35f) < 1e-5f &&
                        std::abs(std::abs(y - 0.5f) - 0.35f) < 1e-5f);
                QVERIFY(std::abs(truth[5 * b + 2] - 0.1f) < 1e-5f);
                classes.insert(int(truth[5 * b + 4]));
                // The pixels under a box belong to the image its label came from.
                const int px = int(x * 64), py = int(y * 64);
                QVERIFY(std::abs(image[std::size_t(py * 64 + px)] - 60 * truth[5 * b + 4] / 255.0f) < 1e-5f);
            }
            QCOMPARE(boxes, 4);
            mixed += classes.size() > 1;
        }
        QVERIFY2(mixed > 6 && mixed < 40, qPrintable(QString::number(mixed))); // about half are mosaics
    }

    // A .data path that is not there names the line, both places looked in (beside the .data file, the
    // working folder) and the spaces Darknet's format took out of it ("data/my train.txt").
    void dataFilePathsSayWhereTheyWereLookedFor()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        std::filesystem::create_directories(root + "/project/data");
        std::ofstream(root + "/project/data/test.txt") << "\n";
        std::ofstream(root + "/project/data/obj.data")
            << "classes = 5\r\ntrain = data/my train.txt \r\nvalid = test.txt\r\nnames=data/obj.names\r\n";
        std::string error;
        const auto data = loadDataFile(root + "/project/data/obj.data", error);
        QVERIFY2(data, error.c_str());
        QCOMPARE(data->existingFile("valid", error).value_or(""), root + "/project/data/test.txt");
        QVERIFY(!data->existingFile("train", error));
        const std::string cwd = std::filesystem::current_path().string();
        QCOMPARE(error,
                 root +
                     "/project/data/obj.data:2: train=data/mytrain.txt: no such file, neither beside "
                     "the .data file (" +
                     root + "/project/data/data/mytrain.txt), in the working folder (" + cwd +
                     "/data/mytrain.txt) nor in the three folders above the .data file: write the path from "
                     "one of them, or absolute; Darknet's .data format removes spaces, so \"data/my "
                     "train.txt\" reads as \"data/mytrain.txt\": rename without spaces (or put a "
                     "comment on a line of its own)");
        QVERIFY(!data->existingFile("names", error));
        QVERIFY2(error.find("obj.data:4: names=data/obj.names: no such file") != std::string::npos &&
                     error.find("removes spaces") == std::string::npos, // (none written)
                 error.c_str());
        QVERIFY(!data->existingFile("backup", error));
        QCOMPARE(error, root + "/project/data/obj.data: no backup= entry");
    }

    // AlexeyAB's layout: project/data/obj.data names data/train.txt, which names data/obj/a.png, all
    // written from the project's folder. Read from any working folder (the studio's is not the project):
    // a path is looked for beside its naming file, in the working folder, then in the folders above.
    void darknetProjectReadsFromAnyWorkingFolder()
    {
        QTemporaryDir dir;
        const std::string project = dir.path().toStdString() + "/project";
        std::filesystem::create_directories(project + "/data/obj");
        cv::Mat grey(32, 32, CV_8UC3, cv::Scalar::all(90));
        QVERIFY(cv::imwrite(project + "/data/obj/a.png", grey));
        std::ofstream(project + "/data/obj/a.txt") << "1 0.5 0.5 0.2 0.2\n";
        std::ofstream(project + "/data/train.txt") << "data/obj/a.png\ndata/obj/gone.png\n";
        std::ofstream(project + "/data/obj.data") << "classes=2\ntrain=data/train.txt\n";
        std::string error;
        const auto data = loadDataFile(project + "/data/obj.data", error);
        QVERIFY2(data, error.c_str());
        QVERIFY(!QFileInfo::exists("data/train.txt")); // (the test's working folder is elsewhere)
        const auto list = data->existingFile("train", error);
        QVERIFY2(list, error.c_str());
        QCOMPARE(*list, project + "/data/train.txt");
        std::vector<std::string> warnings;
        auto set = loadDetectionDataset(*list, 2, 32, 32, 3, 4, {}, error, warnings);
        QVERIFY2(set, error.c_str());
        QCOMPARE(set->size(), std::size_t(1));
        QCOMPARE(set->summary().boxes, std::size_t(1)); // its label file found beside the image
        QVERIFY2(
            std::any_of(warnings.begin(), warnings.end(),
                        [](const std::string& w) {
                            return w.find("train.txt:2: data/obj/gone.png does not exist; relative paths are "
                                          "read from the list's folder, the working folder or the three "
                                          "folders above the list") != std::string::npos;
                        }),
            std::accumulate(warnings.begin(), warnings.end(), std::string()).c_str());
    }

    void dataSetSummaryAndErrors()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        cv::Mat grey(32, 32, CV_8UC3, cv::Scalar::all(90));
        for (const char* name : {"a", "b", "c"})
            QVERIFY(cv::imwrite(root + "/" + name + ".png", grey));
        std::ofstream(root + "/a.txt") << "0 0.5 0.5 0.2 0.2\n1 0.5 0.5 0.3 0.3\n";
        std::ofstream(root + "/b.txt") << "9 0.5 0.5 0.2 0.2\n";
        std::ofstream(root + "/list.txt") << root + "/a.png\n" << root + "/b.png\n" << root + "/c.png\n";
        std::string error;
        std::vector<std::string> warnings;
        auto set = loadDetectionDataset(root + "/list.txt", 2, 32, 32, 3, 4, {}, error, warnings);
        QVERIFY(set);
        QCOMPARE(set->summary().images, std::size_t(3));
        QCOMPARE(set->summary().boxes, std::size_t(2));
        QCOMPARE(set->summary().missingLabels, std::size_t(1));
        QCOMPARE(set->summary().lines.skipped, std::size_t(1));
        QCOMPARE(set->summary().emptyImages, std::size_t(2));
        // c.png has no label file: a warning naming where it was looked for (it trains as background).
        QVERIFY2(
            std::any_of(warnings.begin(), warnings.end(),
                        [&](const std::string& w) {
                            return w.find("1 of 3 images have no label file and count as background (looked "
                                          "for " +
                                          root + "/c.txt for " + root + "/c.png") != std::string::npos;
                        }),
            std::accumulate(warnings.begin(), warnings.end(), std::string()).c_str());
        // No box in any label file: refused, as a detector would learn there is never anything to find.
        std::ofstream(root + "/list3.txt") << root + "/c.png\n";
        QVERIFY(!loadDetectionDataset(root + "/list3.txt", 2, 32, 32, 3, 4, {}, error, warnings));
        QVERIFY2(error.find("list3.txt: no image has a box: 1 of 1 images have no label file (looked for " +
                            root + "/c.txt") != std::string::npos,
                 error.c_str());
        // Label files among the images (`find -type f`): left out with a warning, their boxes counted
        // once (they were read as images that failed, and as their own labels: every box twice).
        std::ofstream(root + "/found.txt") << root + "/a.png\n" << root + "/a.txt\n" << root + "/b.txt\n";
        warnings.clear();
        set = loadDetectionDataset(root + "/found.txt", 2, 32, 32, 3, 4, {}, error, warnings);
        QVERIFY2(set, error.c_str());
        QCOMPARE(set->summary().images, std::size_t(1));
        QCOMPARE(set->summary().boxes, std::size_t(2));
        QVERIFY2(std::any_of(warnings.begin(), warnings.end(),
                             [&](const std::string& w) {
                                 return w ==
                                        root + "/found.txt:2: " + root +
                                            "/a.txt is a label file (and 1 more), not an image: left out "
                                            "(a list names images; each label file is found beside its "
                                            "image)";
                             }),
                 std::accumulate(warnings.begin(), warnings.end(), std::string()).c_str());
        // A list of the label files instead of the images is refused by its first line.
        std::ofstream(root + "/labels-list.txt") << root + "/a.txt\n" << root + "/b.txt\n";
        QVERIFY(!loadDetectionDataset(root + "/labels-list.txt", 2, 32, 32, 3, 4, {}, error, warnings));
        QCOMPARE(error,
                 root + "/labels-list.txt:1: " + root +
                     "/a.txt: the list names label files, not images: list the images (each label file is "
                     "found beside its image, as Darknet finds it)");
        QVERIFY(!loadDetectionDataset(root + "/nothing.txt", 2, 32, 32, 3, 4, {}, error, warnings));
        QVERIFY2(error.find("nothing.txt: no such file (expected an image list") != std::string::npos,
                 error.c_str());
        std::ofstream(root + "/empty.txt") << "\n";
        QVERIFY(!loadDetectionDataset(root + "/empty.txt", 2, 32, 32, 3, 4, {}, error, warnings));
        QVERIFY(error.find("empty") != std::string::npos);
        // An unreadable image is a warning for that sample, not a crash.
        std::ofstream(root + "/broken.png") << "not a png";
        std::ofstream(root + "/broken.txt") << "0 0.5 0.5 0.2 0.2\n";
        std::ofstream(root + "/list2.txt") << root + "/broken.png\n";
        set = loadDetectionDataset(root + "/list2.txt", 2, 32, 32, 3, 4, {}, error, warnings);
        QVERIFY2(set, error.c_str());
        std::vector<float> image(32 * 32 * 3), truth(20);
        std::mt19937 random(1);
        std::string warning;
        QVERIFY(!set->sample(0, random, set->width(), set->height(), image.data(), truth.data(), warning));
        QVERIFY(warning.find("broken.png: cannot read the image") != std::string::npos);
        // Images that do not exist are left out, the first named with its line in the list (they were
        // counted as images without a label file); none existing is an error.
        std::ofstream(root + "/list4.txt") << root + "/a.png\n"
                                           << root + "/gone.png\n\n"
                                           << root + "/gone2.png\n";
        warnings.clear();
        set = loadDetectionDataset(root + "/list4.txt", 2, 32, 32, 3, 4, {}, error, warnings);
        QVERIFY2(set, error.c_str());
        QCOMPARE(set->summary().images, std::size_t(1));
        QCOMPARE(set->summary().missingLabels, std::size_t(0));
        QVERIFY2(std::any_of(warnings.begin(), warnings.end(),
                             [&](const std::string& w) {
                                 return w == root + "/list4.txt:2: " + root +
                                                 "/gone.png does not exist (and 1 more listed path that is "
                                                 "no image file): left out";
                             }),
                 std::accumulate(warnings.begin(), warnings.end(), std::string()).c_str());
        std::ofstream(root + "/list5.txt") << "gone.png\n";
        QVERIFY(!loadDetectionDataset(root + "/list5.txt", 2, 32, 32, 3, 4, {}, error, warnings));
        QVERIFY2(error ==
                     root + "/list5.txt:1: gone.png does not exist; relative paths are read from the list's "
                            "folder, the working folder or the three folders above the list: no image of the "
                            "list exists",
                 error.c_str());
    }

    void makeShapesIsDeterministic()
    {
        QTemporaryDir a, b;
        ShapesOptions options;
        options.count = 6;
        options.seed = 11;
        options.width = options.height = 96;
        QVERIFY(!makeShapes(a.path().toStdString(), options));
        std::vector<std::pair<int, int>> progress; // (said as the images are made)
        options.progress = [&](int made, int count) { progress.emplace_back(made, count); };
        QVERIFY(!makeShapes(b.path().toStdString(), options));
        QCOMPARE(progress, (std::vector<std::pair<int, int>>{{6, 6}}));
        for (const char* file : {"train/000001.jpg", "train/000001.txt", "train/000005.jpg",
                                 "valid/000006.jpg", "valid/000006.txt", "shapes.names"})
            QCOMPARE(test::readAll(a.path() + "/" + file), test::readAll(b.path() + "/" + file));
        const QList<QByteArray> listed = test::readAll(b.path() + "/train.txt").trimmed().split('\n');
        QCOMPARE(listed.size(), 5);
        for (int i = 0; i < 5; ++i)
            QVERIFY(listed[i].endsWith(QString("/train/00000%1.jpg").arg(i + 1).toUtf8()));
        options.seed = 12;
        QTemporaryDir c;
        QVERIFY(!makeShapes(c.path().toStdString(), options));
        QVERIFY(test::readAll(a.path() + "/train/000001.jpg") !=
                test::readAll(c.path() + "/train/000001.jpg"));
        // Labels are valid YOLO boxes of the five classes; lists and .data name the files.
        std::vector<std::string> warnings;
        std::string error;
        auto set = loadDetectionDataset((a.path() + "/train.txt").toStdString(), 5, 96, 96, 3, 90, {}, error,
                                        warnings);
        QVERIFY2(set, error.c_str());
        QCOMPARE(set->size(), std::size_t(5));
        QVERIFY(warnings.empty());
        QVERIFY(set->summary().boxes >= 5);
        QCOMPARE(set->summary().missingLabels, std::size_t(0));
        QVERIFY(test::readAll(a.path() + "/shapes.data").contains("classes = 5"));
        ShapesOptions tooFew = options;
        tooFew.count = 1;
        QVERIFY(makeShapes(a.path().toStdString(), tooFew).has_value()); // too few images
        // A smaller set made again in the same folder: the earlier set's other images and labels go;
        // a file of another name stays.
        std::ofstream((a.path() + "/train/mine.jpg").toStdString()) << "kept";
        ShapesOptions fewer = options;
        fewer.count = 3;
        QVERIFY(!makeShapes(a.path().toStdString(), fewer));
        QCOMPARE(QDir(a.path() + "/train").entryList(QDir::Files),
                 QStringList({"000001.jpg", "000001.txt", "000002.jpg", "000002.txt", "mine.jpg"}));
        QCOMPARE(QDir(a.path() + "/valid").entryList(QDir::Files), QStringList({"000003.jpg", "000003.txt"}));
        // Another data set's folder (train.txt and train/ of AlexeyAB's layout, no shapes.data) is refused,
        // its files as they were.
        const QString other = c.path() + "/other";
        QVERIFY(QDir().mkpath(other + "/train"));
        test::writeFile(other + "/train.txt", "data/obj/1.jpg\n");
        test::writeFile(other + "/train/000001.jpg", "mine");
        const auto refused = makeShapes(other.toStdString(), fewer);
        QVERIFY(refused);
        QCOMPARE(*refused, other.toStdString() +
                               " already holds train.txt, train/ without a shapes.data: another data set's "
                               "files, which make-shapes would write over; give a new or empty folder");
        QCOMPARE(test::readAll(other + "/train.txt"), QByteArray("data/obj/1.jpg\n"));
        QCOMPARE(test::readAll(other + "/train/000001.jpg"), QByteArray("mine"));
        // A set cut short (Ctrl+C, a full disk: its images, no shapes.data yet) is its own to make again
        // (every later try was refused as "another data set's files").
        const QString cut = c.path() + "/cut";
        ShapesOptions failing = fewer;
        failing.progress = [](int, int) { throw std::runtime_error("cut short"); };
        fewer.count = 60; // (progress is said every 50 images)
        failing.count = 60;
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, makeShapes(cut.toStdString(), failing));
        QVERIFY(!QFileInfo::exists(cut + "/shapes.data") && !QDir(cut + "/train").isEmpty());
        QCOMPARE(makeShapes(cut.toStdString(), fewer), std::nullopt);
        QVERIFY(QFileInfo::exists(cut + "/shapes.data"));
        QCOMPARE(QDir(cut).entryList(QDir::Hidden | QDir::Files).filter("unfinished").size(), 0);
        fewer.count = 3;
        // A folder with spaces: the .data names its files beside it (Darknet's reader drops spaces).
        const std::string spaced = c.path().toStdString() + "/my shapes";
        QVERIFY(!makeShapes(spaced, options));
        auto data = loadDataFile(spaced + "/shapes.data", error);
        QVERIFY2(data, error.c_str());
        QCOMPARE(data->resolve(data->get("train")), spaced + "/train.txt");
        QCOMPARE(data->resolve(data->get("backup")), spaced + "/backup");
    }

    // The loader's workers (used beside a GPU) give exactly the batches one worker gives: every
    // sample's augmentation has its own stream, the decoded-image cache is shared safely, and an
    // unreadable image is replaced by the next sample, moving the later ones along, as in sequence.
    void parallelLoaderGivesTheSameBatches()
    {
        QTemporaryDir dir;
        ShapesOptions options;
        options.count = 30;
        options.width = options.height = 64;
        QVERIFY(!makeShapes(dir.path().toStdString(), options));
        const std::string root = dir.path().toStdString();
        std::ofstream(root + "/broken.jpg") << "not an image";
        std::ofstream(root + "/broken.txt") << "0 0.5 0.5 0.2 0.2\n";
        {
            std::ifstream in(root + "/train.txt");
            std::ofstream out(root + "/list.txt");
            std::string line;
            for (int i = 0; std::getline(in, line); ++i)
                out << (i == 4 || i == 17 ? root + "/broken.jpg\n" : "") << line << "\n";
        }
        DetectionAugmentation augmentation;
        augmentation.enabled = true;
        augmentation.jitter = 0.2f;
        augmentation.hue = 0.1f;
        augmentation.saturation = augmentation.exposure = 1.5f;
        augmentation.mosaic = true;
        std::string error;
        std::vector<std::string> warnings;
        auto set = loadDetectionDataset(root + "/list.txt", 5, 64, 64, 3, 12, augmentation, error, warnings);
        QVERIFY2(set, error.c_str());
        // The stream's rule written out (batch_loader.h): sample k is item perm_e[k mod N] of epoch
        // e = k / N, augmented with its own seeded stream; an unreadable one gives way to the next.
        const std::uint64_t n = set->size();
        auto item = [&](std::uint64_t k) {
            std::vector<std::size_t> permutation(n);
            std::iota(permutation.begin(), permutation.end(), std::size_t(0));
            std::mt19937_64 shuffle(3u * 1000003u + k / n);
            std::shuffle(permutation.begin(), permutation.end(), shuffle);
            return permutation[std::size_t(k % n)];
        };
        const std::size_t imageSize = 64 * 64 * 3, truthSize = set->truthFloats();
        // `four` keeps its images in memory of its own (as a GPU's page-locked memory), counted.
        struct CountedMemory final : HostMemory {
            std::size_t allocated = 0, released = 0;
            void* allocate(std::size_t bytes) override
            {
                ++allocated;
                return ::operator new(bytes);
            }
            void release(void* memory) noexcept override
            {
                ++released;
                ::operator delete(memory);
            }
        } memory;
        auto one = std::make_unique<BatchLoader>(*set, 8, 3, 0, Shard{}, 1);
        auto four = std::make_unique<BatchLoader>(*set, 8, 3, 0, Shard{}, 4, &memory);
        std::size_t skipped = 0;
        std::set<const float*> buffers;         // of `four`, which gets its batches back (recycle)
        for (int pass = 0; pass < 10; ++pass) { // over three epochs of 29 images
            const Batch a = one->next();
            Batch b = four->next();
            QVERIFY(b.images.get_allocator().memory() == &memory);
            buffers.insert(b.images.data());
            QVERIFY2(a.images == b.images, qPrintable(QString("pass %1: the images differ").arg(pass)));
            QVERIFY2(a.truth == b.truth, qPrintable(QString("pass %1: the truth differs").arg(pass)));
            QCOMPARE(b.warnings, a.warnings);
            skipped += a.warnings.size();
            std::uint64_t k = std::uint64_t(pass) * 8; // each pass starts at its own place in the stream
            std::size_t unreadable = 0;
            for (int image = 0; image < 8; ++image) {
                std::vector<float> pixels(imageSize), truth(truthSize);
                std::string warning;
                for (bool read = false; !read; ++k) {
                    std::mt19937 random(unsigned(3u * 2654435761u + k * 40503u));
                    std::fill(truth.begin(), truth.end(), 0.0f);
                    read = set->sample(item(k), random, 64, 64, pixels.data(), truth.data(), warning);
                    unreadable += !read;
                }
                QVERIFY2(
                    std::equal(pixels.begin(), pixels.end(), a.images.begin() + image * imageSize),
                    qPrintable(QString("pass %1, image %2: not the stream's sample").arg(pass).arg(image)));
                QVERIFY(std::equal(truth.begin(), truth.end(), a.truth.begin() + image * truthSize));
            }
            QCOMPARE(a.warnings.size(), unreadable); // each skip named once
            four->recycle(std::move(b)); // a used buffer, filled again: the same batches all the same
        }
        QVERIFY(skipped >= 4); // the broken image came up in every epoch
        // The one in use, the one being prepared, one given back: no more are ever allocated (page-locked
        // memory is slow to allocate), however the threads interleave.
        QVERIFY2(memory.allocated <= 3, qPrintable(QString("%1 image buffers").arg(memory.allocated)));
        QVERIFY(buffers.size() <= memory.allocated);
        four.reset(); // its batches with it: every buffer goes back the way it came
        QCOMPARE(memory.released, memory.allocated);
    }

    void anchorsFindClusters()
    {
        std::vector<std::pair<float, float>> sizes;
        for (int i = 0; i < 50; ++i) {
            sizes.emplace_back(10.0f + float(i % 3), 20.0f);
            sizes.emplace_back(100.0f, 50.0f + float(i % 5));
        }
        const AnchorResult r = computeAnchors(sizes, 2, 3);
        QCOMPARE(r.anchors.size(), std::size_t(2));
        QVERIFY(std::abs(r.anchors[0].first - 10.98f) < 1e-3f && std::abs(r.anchors[0].second - 20) < 1e-3f);
        QVERIFY(std::abs(r.anchors[1].first - 100) < 1e-3f && std::abs(r.anchors[1].second - 52) < 1e-3f);
        QVERIFY(r.averageIou > 0.9);
        QVERIFY(std::abs(shapeIou({10, 20}, {20, 10}) - 100.0f / 300.0f) < 1e-6f);
        // Several starts keep the best of them (k-means stops in local optima: the starts differ here).
        std::mt19937 random(7);
        std::lognormal_distribution<float> side(3.5f, 0.8f);
        std::vector<std::pair<float, float>> mixed;
        for (int i = 0; i < 600; ++i)
            mixed.emplace_back(side(random), side(random));
        double bestSingle = 0, worstSingle = 1;
        for (unsigned seed = 1; seed <= 8; ++seed) {
            const double iou = computeAnchors(mixed, 6, seed).averageIou;
            bestSingle = std::max(bestSingle, iou);
            worstSingle = std::min(worstSingle, iou);
        }
        QVERIFY(worstSingle < bestSingle);
        QCOMPARE(computeAnchors(mixed, 6, 1, 8).averageIou, bestSingle);
    }

    // Darknet trains a detector without reading valid= unless -map asks for mAP, and measures on the
    // training list when there is no valid= line: a valid= list without labels was an error that
    // stopped training, and --map without one measured nothing, silently.
    void validListOnlyWhenTheMeasureNeedsIt()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        ShapesOptions options;
        options.count = 6;
        options.width = options.height = 64;
        QVERIFY(!makeShapes(root, options));
        cv::Mat grey(32, 32, CV_8UC3, cv::Scalar::all(90));
        QVERIFY(cv::imwrite(root + "/unlabelled.png", grey));
        std::ofstream(root + "/unlabelled.txt.list") << root + "/unlabelled.png\n";
        std::ofstream(root + "/unlabelled.data")
            << "classes=5\ntrain=" << root << "/train.txt\nvalid=" << root << "/unlabelled.txt.list\n";
        std::ofstream(root + "/novalid.data") << "classes=5\ntrain=" << root << "/train.txt\n";
        const NetworkSpec spec = test::specFromText(test::kTinyDetectorCfg, "tiny-detector.cfg");
        std::string error;
        auto net = Net::create(spec, spec.net.layerBatch(), error);
        QVERIFY2(net, error.c_str());
        const auto open = [&](const std::string& file, Validation validation,
                              std::vector<std::string>& warnings) {
            auto data = loadDataFile(root + "/" + file, error);
            return data ? openTrainingData(*data, *net, 1, error, warnings, validation) : std::nullopt;
        };
        const auto said = [](const std::vector<std::string>& warnings, const std::string& text) {
            return std::any_of(warnings.begin(), warnings.end(),
                               [&](const std::string& w) { return w.find(text) != std::string::npos; });
        };

        std::vector<std::string> warnings;
        auto sets = open("unlabelled.data", Validation::IfUsable, warnings);
        QVERIFY2(sets && sets->detectionTrain() && !sets->detectionValid, error.c_str());
        QVERIFY(said(warnings, "unlabelled.txt.list: no image has a box"));
        QVERIFY(
            said(warnings, "(the valid= list): this run trains without mAP; fix the list, or remove valid="));
        warnings.clear();
        QVERIFY(!open("unlabelled.data", Validation::Required, warnings));
        QVERIFY2(error.find("no image has a box") != std::string::npos &&
                     error.find("(the valid= list, needed for the mAP asked for)") != std::string::npos,
                 error.c_str());

        warnings.clear();
        sets = open("novalid.data", Validation::IfUsable, warnings);
        // (6 shapes images leave a class without a box, said as such; nothing is said of validation)
        QVERIFY2(sets && !sets->detectionValid && !said(warnings, "valid"), error.c_str());
        warnings.clear();
        sets = open("novalid.data", Validation::Required, warnings);
        QVERIFY2(sets && sets->detectionValid, error.c_str());
        // The training list read again for mAP: its warnings are said once, not twice.
        QCOMPARE(std::count_if(
                     warnings.begin(), warnings.end(),
                     [](const std::string& w) { return w.find("no box of class") != std::string::npos; }),
                 1L);
        QCOMPARE(sets->detectionValid->size(), sets->train->size()); // the training list, unaugmented
        QVERIFY(said(warnings, "has no valid= list: mAP is measured on the training list"));
        QVERIFY(!said(warnings, "valid= is the training list"));
        // valid= naming the training list itself: said too (an export's habit; it went unsaid).
        std::ofstream(root + "/samelist.data")
            << "classes=5\ntrain=" << root << "/train.txt\nvalid=" << root << "/train.txt\n";
        warnings.clear();
        sets = open("samelist.data", Validation::Required, warnings);
        QVERIFY2(sets && sets->detectionValid, error.c_str());
        QVERIFY(said(warnings, "samelist.data: valid= is the training list (train=" + root +
                                   "/train.txt): mAP is measured on images the network learns from"));

        // A names= file that is not there is said at once (training goes on: it needs no names).
        std::ofstream(root + "/nonames.data")
            << "classes=5\ntrain=" << root << "/train.txt\nnames=gone.names\n";
        warnings.clear();
        sets = open("nonames.data", Validation::IfUsable, warnings);
        QVERIFY2(sets, error.c_str());
        QVERIFY(said(warnings, "nonames.data:3: names=gone.names: no such file"));
        QVERIFY(said(warnings, "(training goes on without the class names; detect and map would show class "
                               "numbers)"));

        // A names= file of another count than classes= (another data set's) is said too, as map and
        // detect say it: train went on without a word, and every box would be labelled wrong.
        std::ofstream(root + "/three.names") << "a\nb\nc\n";
        std::ofstream(root + "/three.data")
            << "classes=5\ntrain=" << root << "/train.txt\nnames=" << root << "/three.names\n";
        warnings.clear();
        sets = open("three.data", Validation::IfUsable, warnings);
        QVERIFY2(sets, error.c_str());
        QVERIFY(said(warnings, root + "/three.names has 3 names but " + root +
                                   "/three.data has classes=5 (the names file of another data set?): detect "
                                   "and map would label boxes with the wrong names"));
        warnings.clear();
        QVERIFY(open("shapes.data", Validation::IfUsable, warnings)); // (its own 5 names)
        QVERIFY(!said(warnings, "names but"));
    }

    void shortTrainingRunLearns()
    {
        QTemporaryDir dir;
        ShapesOptions options;
        options.count = 10;
        options.seed = 3;
        options.width = options.height = 64;
        QVERIFY(!makeShapes(dir.path().toStdString(), options));
        // Train and score on the same 9 images: the point is that loss falls and mAP rises.
        std::ofstream(dir.path().toStdString() + "/fit.data")
            << "classes=5\ntrain=" << dir.path().toStdString()
            << "/train.txt\nvalid=" << dir.path().toStdString() << "/train.txt\n";
        const NetworkSpec spec = test::specFromText(test::kTinyDetectorCfg, "tiny-detector.cfg");
        QVERIFY2(spec.ok(), test::allText(spec.diagnostics).c_str());
        std::string error;
        auto net = Net::create(spec, spec.net.layerBatch(), error);
        QVERIFY2(net, error.c_str());
        net->initialize(5);
        QCOMPARE(net->maxTruthBoxes(), 90);
        auto data = loadDataFile(dir.path().toStdString() + "/fit.data", error);
        QVERIFY2(data, error.c_str());
        std::vector<std::string> warnings;
        auto sets = openTrainingData(*data, *net, 1, error, warnings);
        QVERIFY2(sets, error.c_str());
        QVERIFY(sets->detectionTrain() && sets->detectionValid);
        const double before = evaluateMap(*net, *sets->detectionValid, false).map50;
        TrainOptions train;
        train.outDir = dir.path().toStdString() + "/out";
        train.name = "tiny";
        train.checkpointEvery = 1000;
        Collect observer;
        const auto problem =
            Trainer(*net, *sets->train, nullptr, train, sets->detectionValid.get()).run(observer);
        QVERIFY2(!problem, problem ? problem->c_str() : "");
        QCOMPARE(observer.seen.size(), std::size_t(500));
        QCOMPARE(observer.seen.back().heads.size(), std::size_t(1));
        QCOMPARE(observer.seen.back().heads[0].layer, 7);
        QVERIFY(observer.seen.back().map50.has_value());
        const double firstLoss = observer.seen[0].loss, lastAverage = observer.seen.back().averageLoss;
        const double after = *observer.seen.back().map50;
        QVERIFY2(lastAverage < 0.2 * firstLoss,
                 qPrintable(QString("loss %1 → %2").arg(firstLoss).arg(lastAverage)));
        QVERIFY2(after > before + 0.2, qPrintable(QString("mAP %1 → %2").arg(before).arg(after)));
        QVERIFY(observer.seen.back().heads[0].averageIou > observer.seen[0].heads[0].averageIou);
        QVERIFY(QFile::exists(dir.path() + "/out/tiny_final.weights"));
        QVERIFY(test::readAll(dir.path() + "/out/metrics.csv")
                    .startsWith("iteration,loss,avg_loss,lr,images_per_sec,elapsed_s,valid_top1,map50\n"));
    }

    void regionHeadTrains()
    {
        // The tiny detector with a YOLOv2 [region] head (yolov2-voc's scales): loss falls, IoU rises.
        std::string cfg = test::kTinyDetectorCfg;
        cfg = cfg.substr(0, cfg.find("[yolo]")) +
              "[region]\nanchors=1,1, 2,2, 3.5,3.5\nclasses=5\nnum=3\nsoftmax=1\njitter=0\nthresh=.6\n"
              "object_scale=5\nnoobject_scale=1\nclass_scale=1\ncoord_scale=1\nrescore=1\nbias_match=1\n";
        trainOnShapesAndCheck(cfg, "tiny-region.cfg");
    }

    void gaussianYoloHeadTrains()
    {
        // The tiny detector with AlexeyAB's [Gaussian_yolo] head ((5 + 9) · 3 = 42 filters before it), at a
        // tenth of the learning rate: its σ deltas grow as 1/σ³ (passed on as the logits' gradients, as
        // AlexeyAB does), and at 0.01 the boxes collapsed after 50 iterations (docs/detection.md).
        std::string cfg = test::kTinyDetectorCfg;
        cfg.replace(cfg.find("[yolo]"), 6, "[Gaussian_yolo]");
        cfg.replace(cfg.rfind("filters=30"), 10, "filters=42");
        cfg.replace(cfg.find("learning_rate=0.01"), 18, "learning_rate=0.001");
        trainOnShapesAndCheck(cfg, "tiny-gaussian.cfg");
    }

    void detectionHeadTrains()
    {
        // The tiny detector with a YOLOv1 head (connected → [detection], yolov1.cfg's scales).
        std::string cfg = test::kTinyDetectorCfg;
        cfg = cfg.substr(0, cfg.rfind("[convolutional]")) +
              "[connected]\noutput=240\nactivation=linear\n\n"
              "[detection]\nclasses=5\ncoords=4\nrescore=1\nside=4\nnum=2\nsqrt=1\njitter=0\n"
              "object_scale=1\nnoobject_scale=.5\nclass_scale=1\ncoord_scale=5\n";
        cfg.replace(cfg.find("learning_rate=0.01"), 18, "learning_rate=0.001");
        trainOnShapesAndCheck(cfg, "tiny-v1.cfg");
    }

    void multiScaleSizesFollowAlexeyAB()
    {
        // 416 × 416, resize_step 32, random=1 (factor 1.4): the largest size is round(1.4·13 + 1)·32.
        MultiScale m;
        m.factor = 1.4f;
        m.initial = {416, 416};
        QCOMPARE(m.largest(), (InputSize{608, 608}));
        QCOMPARE(m.sizeAt(1, 10000, 7), (InputSize{608, 608}));    // the first block: the largest
        QCOMPARE(m.sizeAt(9950, 10000, 7), (InputSize{608, 608})); // the last 100 iterations too
        std::set<int> sizes;
        for (int iteration = 11; iteration < 5000; iteration += 10) {
            const InputSize size = m.sizeAt(iteration, 10000, 7);
            QCOMPARE(size, m.sizeAt(iteration + 9, 10000, 7)); // one size per block of 10
            QCOMPARE(size, m.sizeAt(iteration, 10000, 7));     // repeatable (resume)
            QCOMPARE(size.width, size.height);
            QVERIFY2(size.width % 32 == 0 && size.width >= 320 && size.width <= 608,
                     qPrintable(QString::number(size.width)));
            sizes.insert(size.width);
        }
        QVERIFY(sizes.size() >= 8); // 320 … 608
        bool differs = false;
        for (int iteration = 11; iteration < 500; iteration += 10)
            differs |= !(m.sizeAt(iteration, 10000, 7) == m.sizeAt(iteration, 10000, 8));
        QVERIFY(differs);
        // random=1 in [yolo] turns it on; the bundled detector has it off.
        std::string cfg = test::kTinyDetectorCfg;
        cfg.insert(cfg.find("[yolo]") + 7, "random=1\n");
        const MultiScale on = MultiScale::of(test::specFromText(cfg, "ms.cfg"));
        QCOMPARE(on.factor, 1.4f);
        QCOMPARE(on.largest(), (InputSize{128, 128})); // round(1.4·2 + 1)·32
        QVERIFY(!MultiScale::of(test::specFromText(test::kTinyDetectorCfg, "tiny.cfg")).enabled());
    }

    void resizedNetKeepsItsWeights()
    {
        const NetworkSpec spec = test::specFromText(test::kTinyDetectorCfg, "tiny.cfg");
        std::string error;
        auto net = Net::create(spec, 2, error);
        QVERIFY2(net, error.c_str());
        net->initialize(9);
        std::vector<float> input(2 * spec.input.size);
        std::mt19937 random(4);
        for (float& v : input)
            v = std::uniform_real_distribution<float>(0, 1)(random);
        const Tensor& before = net->forward(input.data());
        const std::vector<float> expected(before.data(), before.data() + before.size());
        QVERIFY(!net->resizeInput(96, 128));
        QCOMPARE(net->inputShape().w, 96);
        QCOMPARE(net->inputShape().h, 128);
        QCOMPARE(net->output().shape().w, 12); // three 2× pools
        QCOMPARE(net->output().shape().h, 16);
        std::vector<float> larger(2 * std::size_t(net->inputShape().size), 0.5f);
        net->forward(larger.data());
        QVERIFY(!net->resizeInput(64, 64));
        const Tensor& after = net->forward(input.data());
        QCOMPARE(std::vector<float>(after.data(), after.data() + after.size()), expected);
        // A size the machine cannot hold is refused before allocating, and the net stays as it was.
        qputenv("NETWRIGHT_MEMORY_LIMIT_MB", "40");
        QVERIFY(!net->resizeInput(96, 96));
        QVERIFY(!net->resizeInput(64, 64));
        const auto tooLarge = net->resizeInput(1024, 1024);
        qunsetenv("NETWRIGHT_MEMORY_LIMIT_MB");
        QVERIFY(tooLarge);
        QVERIFY2(tooLarge->find("the network cannot be resized to 1024x1024: it needs about ") == 0 &&
                     tooLarge->find("set random=0") != std::string::npos,
                 tooLarge->c_str());
        QCOMPARE(net->inputShape().w, 64);
        QCOMPARE(&net->forward(input.data()), &after);
        // Weights sized by the input: refused, naming the layer, and the net stays as it was.
        std::string v1 = test::kTinyDetectorCfg;
        v1 = v1.substr(0, v1.rfind("[convolutional]")) + "[connected]\noutput=10\nactivation=linear\n";
        auto connected = Net::create(test::specFromText(v1, "v1.cfg"), 1, error);
        QVERIFY(connected);
        const auto problem = connected->resizeInput(96, 96);
        QVERIFY(problem);
        QVERIFY2(problem->find("layer 6 [connected] (line 50) has weights sized by its input") == 0,
                 problem->c_str());
        QCOMPARE(connected->inputShape().w, 64);
    }

    // A size multi-scale training can draw that the network cannot take (resize_step=8 where its route
    // joins layers 32 and 16 times smaller) is refused before the first iteration: the run died at
    // iteration 11, advising to route layers of one size.
    void multiScaleSizesTheNetworkCannotTakeAreRefusedFirst()
    {
        std::string cfg = test::readAll(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg").toStdString();
        for (const auto& [from, to] :
             {std::pair{"batch=16", "batch=4"}, std::pair{"width=192", "width=64"},
              std::pair{"height=192", "height=64"}, std::pair{"channels=3", "channels=3\nresize_step=8"},
              std::pair{"random=0", "random=1"}, std::pair{"random=0", "random=1"}})
            cfg.replace(cfg.find(from), std::string(from).size(), to);
        QTemporaryDir dir;
        TinyShapesRun run(cfg, dir.path());
        QVERIFY2(run.sets, run.error.c_str());
        QVERIFY(!hasErrors(run.net->spec().diagnostics));
        Net& net = *run.net;
        const auto& sets = run.sets;
        TrainOptions& train = run.train;
        class Counting : public TrainObserver {
        public:
            int iterations = 0;
            void iteration(const IterationStats&) override { ++iterations; }
            void message(const std::string&) override {}
        } observer;
        const auto problem = Trainer(net, *sets->train, nullptr, train).run(observer);
        QVERIFY(problem);
        QVERIFY2(problem->starts_with("multi-scale training (random= in the detection head) draws input "
                                      "sizes in steps of resize_step=8 (up to 96x96): the network cannot "
                                      "take a "),
                 problem->c_str());
        QVERIFY2(problem->ends_with(". Set resize_step to a multiple of 32 (the network shrinks its input 32 "
                                    "times), or random=0"),
                 problem->c_str());
        QCOMPARE(observer.iterations, 0);
    }

    // The mAP passes start at mapFrom, then every mapEvery, and the last iteration's (Darknet's -map waits
    // for burn_in to end: its mAP of warm-up weights could become _best.weights).
    void mapPassesStartWhereAsked()
    {
        std::string cfg = test::kTinyDetectorCfg;
        cfg.replace(cfg.find("max_batches=500"), 15, "max_batches=9");
        QTemporaryDir dir;
        TinyShapesRun run(cfg, dir.path());
        QVERIFY2(run.sets, run.error.c_str());
        run.train.checkpointEvery = 1000;
        run.train.mapEvery = 2;
        run.train.mapFrom = 5;
        class Maps : public TrainObserver {
        public:
            std::vector<int> at;
            void iteration(const IterationStats& s) override
            {
                if (s.map50)
                    at.push_back(s.iteration);
            }
        } observer;
        const auto problem =
            Trainer(*run.net, *run.sets->train, nullptr, run.train, run.sets->detectionValid.get())
                .run(observer);
        QVERIFY2(!problem, problem ? problem->c_str() : "");
        QCOMPARE(observer.at, (std::vector<int>{5, 7, 9}));
    }

    void multiScaleTrainingChangesTheInputSize()
    {
        std::string cfg = test::kTinyDetectorCfg;
        cfg.insert(cfg.find("[yolo]") + 7, "random=1\n");
        cfg.replace(cfg.find("max_batches=500"), 15, "max_batches=140");
        // At 128 × 128 (the largest size) this tiny net diverges at 0.01 with or without resizing.
        cfg.replace(cfg.find("learning_rate=0.01"), 18, "learning_rate=0.002");
        QTemporaryDir dir;
        TinyShapesRun run(cfg, dir.path());
        QVERIFY2(run.sets, run.error.c_str());
        Net& net = *run.net;
        const auto& sets = run.sets;
        TrainOptions& train = run.train;
        train.checkpointEvery = 1000;
        train.mapEvery = 70;
        class Sizes : public TrainObserver {
        public:
            std::vector<std::string> messages;
            std::vector<double> losses, maps, apMeans;
            bool apsWithoutMap = false;
            void message(const std::string& m) override { messages.push_back(m); }
            void iteration(const IterationStats& s) override
            {
                losses.push_back(s.loss);
                if (s.map50)
                    maps.push_back(*s.map50);
                // Each mAP pass comes with its classes' APs, whose mean over the classes with boxes it is.
                if (bool(s.classAps) != s.map50.has_value()) {
                    apsWithoutMap = true;
                } else if (s.classAps) {
                    double sum = 0;
                    int counted = 0;
                    for (const ClassAp& ap : *s.classAps)
                        if (ap.truths > 0) {
                            sum += ap.ap50;
                            ++counted;
                        }
                    apMeans.push_back(counted ? sum / counted : 0);
                }
            }
        } observer;
        const auto problem =
            Trainer(net, *sets->train, nullptr, train, sets->detectionValid.get()).run(observer);
        QVERIFY2(!problem, problem ? problem->c_str() : "");
        QCOMPARE(observer.losses.size(), std::size_t(140));
        for (double loss : observer.losses)
            QVERIFY(std::isfinite(loss));
        QCOMPARE(observer.maps.size(), std::size_t(2)); // at the net's own size, mid-run and at the end
        QVERIFY(!observer.apsWithoutMap);
        QCOMPARE(observer.apMeans.size(), std::size_t(2));
        for (std::size_t i = 0; i < 2; ++i)
            QVERIFY(std::abs(observer.apMeans[i] - observer.maps[i]) < 1e-12);
        // Iteration 1 at the largest size; later blocks at multiples of 32 between 64 and 128; the last
        // 100 iterations (from 41 of 140) at the largest again.
        QVERIFY(!observer.messages.empty());
        QCOMPARE(QString::fromStdString(observer.messages.front()),
                 QString("multi-scale training: input 128x128 from iteration 1"));
        std::set<std::string> seen;
        int announced = 0; // the mAP passes, each said before it runs
        for (const std::string& m : observer.messages) {
            if (isEvaluatingMessage(m)) {
                QVERIFY2(m.ends_with(": mAP@0.5 on 1 validation images"), m.c_str());
                ++announced;
                continue;
            }
            if (m.starts_with("best mAP@0.5 so far") || m.starts_with("finished at iteration")) // (files)
                continue;
            const QString text = QString::fromStdString(m);
            QVERIFY2(text.contains(
                         QRegularExpression("input (64x64|96x96|128x128) from iteration (1|11|21|31|41)$")),
                     m.c_str());
            seen.insert(m.substr(0, m.find(" from")));
            qInfo("%s", m.c_str());
        }
        QVERIFY(seen.size() >= 2);
        QCOMPARE(announced, 2);
        const double first = observer.losses.front(), last = observer.losses.back();
        QVERIFY2(last < 0.2 * first, qPrintable(QString("loss %1 → %2").arg(first).arg(last)));
        QCOMPARE(net.inputShape().w, 64); // the caller gets the net back at its own size
        QCOMPARE(net.inputShape().h, 64);
    }

    void classificationDataForADetectorIsRefused()
    {
        QTemporaryDir dir;
        test::writeToySet(dir.path(), 16);
        const NetworkSpec spec = test::specFromText(test::kTinyDetectorCfg, "tiny-detector.cfg");
        std::string error;
        auto net = Net::create(spec, spec.net.layerBatch(), error);
        QVERIFY(net);
        auto data = loadDataFile(dir.path().toStdString() + "/toy.data", error);
        QVERIFY(data);
        std::vector<std::string> warnings;
        QVERIFY(!openTrainingData(*data, *net, 1, error, warnings));
        QVERIFY2(error.find("tiny-detector.cfg:57: layer 7 [yolo] has classes=5 but") == 0 &&
                     error.find("toy.data has classes=3") != std::string::npos,
                 error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestDetectionTraining)
#include "test_detection_training.moc"
