// Detection: Darknet's preprocessing (compared with libdarknet's own), box decoding, letterbox
// correction and NMS on hand-computed cases, the same candidates as OpenCV DNN's Darknet importer, and
// netwright-cli detect on images and a synthetic video.
#include "cfg/document.h"
#include "detect/annotate.h"
#include "detect/class_scores.h"
#include "detect/decode.h"
#include "detect/detector.h"
#include "graph/network_spec.h"
#include "image/draw_text.h"
#include "image/image.h"
#include "layers/region.h"
#include "layers/softmax_tree.h"
#include "runtime/net.h"
#include "test_support.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <csignal>
#include <cstring>
#include <limits>
#include <opencv2/dnn.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <random>
#include <sys/resource.h>

using namespace nw;

namespace {

using test::readFloats;

float maxAbsDiff(const std::vector<float>& a, const std::vector<float>& b)
{
    double diff = a.size() == b.size() && !a.empty() ? 0 : INFINITY; // nothing compared is no match
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
        diff = test::worseOf(diff, std::fabs(a[i] - b[i]));
    return float(diff);
}

Detection detection(float x, float y, float w, float h, std::vector<float> prob)
{
    return {{x, y, w, h}, 1.0f, std::move(prob)};
}

using test::cli;
using test::Run;

} // namespace

class TestDetect : public QObject {
    Q_OBJECT
private slots:
    void labelsBeyondAsciiAreDrawnAsLetters();
    void rightToLeftNamesKeepTheirScoresDigits();
    void preprocessingMatchesDarknet();
    void iouByHand();
    void boxesWhollyOutsideTheImageAreLeftOut();
    void nmsKeepsTheBestOfOverlappingBoxes();
    void nmsKindOfTheLastHeadIsUsed();
    void nmsEqualsDarknetsEveryPairRule();
    void yoloDecodingByHand();
    void gaussianYoloDecodingByHand();
    void letterboxCorrectionByHand();
    void candidatesMatchOpenCvDnn();
    void detectCommandOnImagesAndVideo();
    void outputsThatAreNotNumbersAreSaid();
    void mapSaysANamesFileWithoutNames();
    void detectStoppedKeepsWhatItDid();
    void labelsStayInsideAndTheBestIsOnTop();
    void yolo9000HierarchyByHand();
    void relabelledCandidatesEqualADetectionAtTheirThreshold();
};

void TestDetect::preprocessingMatchesDarknet()
{
    // A PNG so both programs decode the same pixels (their JPEG decoders differ).
    QTemporaryDir dir;
    const QString png = dir.filePath("dog.png");
    QVERIFY(cv::imwrite(png.toStdString(), cv::imread("/usr/share/darknet/data/dog.jpg")));
    QProcess process;
    process.start(DARKNET_REF_IMAGE,
                  {png, "416", "320", dir.filePath("letterbox.f32"), dir.filePath("resize.f32")});
    QVERIFY(process.waitForFinished(60000) && process.exitCode() == 0);
    std::string error;
    const auto image = loadImage(png.toStdString(), 3, error);
    QVERIFY2(image, error.c_str());
    QCOMPARE(image->width, 768);
    const Image ours = letterbox(*image, 416, 320);
    const Image resized = resizeDarknet(*image, 416, 320);
    QVERIFY(maxAbsDiff(readFloats(dir.filePath("letterbox.f32")), ours.data) < 1e-5f);
    QVERIFY(maxAbsDiff(readFloats(dir.filePath("resize.f32")), resized.data) < 1e-5f);
    QVERIFY(!loadImage(dir.filePath("missing.png").toStdString(), 3, error));
    QVERIFY(error.find("missing.png: no such file (expected an image)") != std::string::npos);
    // An image whose floats do not fit in the memory left is refused with both figures
    // (768 × 576 × 3 floats = 5.3 MB against a 1 MB limit).
    qputenv("NETWRIGHT_MEMORY_LIMIT_MB", "1");
    const auto tooLarge = loadImage(png.toStdString(), 3, error);
    qunsetenv("NETWRIGHT_MEMORY_LIMIT_MB");
    QVERIFY(!tooLarge);
    QVERIFY2(error.find("dog.png: the image needs about 5.3 MB (768x576 pixels as floats) but "
                        "NETWRIGHT_MEMORY_LIMIT_MB=1 allows 1.0 MB (1 MiB)") != std::string::npos,
             error.c_str());
}

void TestDetect::iouByHand()
{
    QCOMPARE(boxIou({0, 0, 2, 2}, {0, 0, 2, 2}), 1.0f);
    QCOMPARE(boxIou({0, 0, 2, 2}, {1, 0, 2, 2}), 2.0f / 6.0f); // overlap 1×2, union 4 + 4 − 2
    QCOMPARE(boxIou({0, 0, 1, 1}, {5, 5, 1, 1}), 0.0f);
}

// A box wholly outside the image (in a letterbox's bars) clips to nothing: it was listed as "h 0" and
// drawn as a line; one that overhangs is clipped.
void TestDetect::boxesWhollyOutsideTheImageAreLeftOut()
{
    const std::vector<LabeledBox> boxes = labelDetections(
        {detection(0.5f, -0.3f, 0.2f, 0.2f, {0.9f}), detection(1.2f, 0.5f, 0.2f, 0.2f, {0.8f}),
         detection(0.95f, 0.5f, 0.2f, 0.2f, {0.7f})},
        1, {"thing"}, 100, 50, DetectOptions{0.25f, 0.45f, false});
    QCOMPARE(boxes.size(), std::size_t(1));
    QCOMPARE(boxes[0].left, 85.0f);
    QCOMPARE(boxes[0].width, 15.0f); // (clipped at the right edge)
}

void TestDetect::nmsKeepsTheBestOfOverlappingBoxes()
{
    std::vector<Detection> dets = {
        detection(0.50f, 0.5f, 0.2f, 0.2f, {0.8f, 0.0f}), // overlaps the next one (IoU ≈ 0.9)
        detection(0.51f, 0.5f, 0.2f, 0.2f, {0.9f, 0.3f}), // best of class 0
        detection(0.10f, 0.1f, 0.1f, 0.1f, {0.7f, 0.0f}), // alone
        {{0.5f, 0.5f, 0.2f, 0.2f}, 0.0f, {0.0f, 0.0f}},   // objectness 0: moved last, never compared
    };
    nmsSort(dets, 2, 0.45f);
    QCOMPARE(dets.back().objectness, 0.0f);
    int kept0 = 0;
    for (const Detection& d : dets)
        kept0 += d.prob[0] > 0;
    QCOMPARE(kept0, 2);
    const auto best =
        std::find_if(dets.begin(), dets.end(), [](const Detection& d) { return d.box.x == 0.51f; });
    QCOMPARE(best->prob[0], 0.9f);
    QCOMPARE(best->prob[1], 0.3f); // class 1 has no competitor
    const auto suppressed =
        std::find_if(dets.begin(), dets.end(), [](const Detection& d) { return d.box.x == 0.50f; });
    QCOMPARE(suppressed->prob[0], 0.0f);
}

// Darknet's do_nms_sort as written there (every pair of every class, objects sorted per class): the
// overlap lists nmsSort finds once must give the same probabilities, in the same order, for both rules,
// with boxes piled up, touching, inverted (negative sizes), without area and not finite.
void TestDetect::nmsEqualsDarknetsEveryPairRule()
{
    const auto darknets = [](std::vector<Detection> dets, int classes, float threshold, const NmsRule& rule) {
        std::stable_partition(dets.begin(), dets.end(), [](const Detection& d) { return d.objectness != 0; });
        const auto total =
            std::count_if(dets.begin(), dets.end(), [](const Detection& d) { return d.objectness != 0; });
        for (int k = 0; k < classes; ++k) {
            std::stable_sort(dets.begin(), dets.begin() + total, [k](const Detection& a, const Detection& b) {
                return a.prob[std::size_t(k)] > b.prob[std::size_t(k)];
            });
            for (std::ptrdiff_t i = 0; i < total; ++i) {
                if (dets[std::size_t(i)].prob[std::size_t(k)] == 0)
                    continue;
                for (std::ptrdiff_t j = i + 1; j < total; ++j)
                    if (nmsOverlap(dets[std::size_t(i)].box, dets[std::size_t(j)].box, rule) > threshold)
                        dets[std::size_t(j)].prob[std::size_t(k)] = 0;
            }
        }
        return dets;
    };
    std::mt19937 random(7);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    for (int trial = 0; trial < 40; ++trial) {
        const int classes = 1 + trial % 5, count = 50 + 37 * trial;
        std::vector<Detection> dets;
        for (int i = 0; i < count; ++i) {
            // Clustered around a few centres (so boxes overlap), some exact copies, some touching.
            const float cx = float(i % 7) / 7.0f + 0.05f * unit(random),
                        cy = float(i % 5) / 5.0f + 0.05f * unit(random);
            Detection d = detection(cx, cy, 0.05f + 0.3f * unit(random), 0.05f + 0.3f * unit(random), {});
            if (i % 11 == 0 && i > 0)
                d.box = dets[std::size_t(i - 1)].box;
            if (i % 13 == 0)
                d.box = {dets.empty() ? 0.5f : dets.back().box.x + dets.back().box.w, cy, 0.1f, 0.1f};
            if (trial % 10 == 9 && i % 17 == 0)
                d.box.w = -d.box.w;
            if (i % 19 == 3) // no area (an untrained network's boxes): never compared, same result
                d.box.w = 0;
            if (i % 23 == 4)
                d.box.h = 0;
            if (trial == 39 && i == 5)
                d.box.x = std::numeric_limits<float>::quiet_NaN();
            d.objectness = i % 9 == 0 ? 0.0f : 0.5f;
            for (int k = 0; k < classes; ++k)
                d.prob.push_back(unit(random) < 0.3f ? 0.0f : std::round(unit(random) * 20) / 20); // ties too
            dets.push_back(d);
        }
        for (const NmsRule& rule : {NmsRule{}, nmsRuleFromCfg("diounms", 0.8f)})
            for (const float threshold : {0.0f, 0.3f, 0.45f, 0.9f}) {
                const std::vector<Detection> expected = darknets(dets, classes, threshold, rule);
                std::vector<Detection> ours = dets;
                nmsSort(ours, classes, threshold, rule);
                QCOMPARE(ours.size(), expected.size());
                for (std::size_t i = 0; i < ours.size(); ++i) {
                    QVERIFY2(std::memcmp(&ours[i].box, &expected[i].box, sizeof(Box)) == 0,
                             qPrintable(QString("trial %1, box %2").arg(trial).arg(i)));
                    QVERIFY2(ours[i].prob == expected[i].prob,
                             qPrintable(
                                 QString("trial %1, threshold %2, box %3").arg(trial).arg(threshold).arg(i)));
                }
            }
    }
}

// AlexeyAB's nms_kind, by hand. Two 0.625-wide boxes one cell apart diagonally on an 8×8 grid: IoU
// 0.390625/0.830078 = 0.4706; d² = 2/64, the enclosing box 0.75 wide, c² = 1.125, d²/c² = 1/36.
// greedynms: 0.4706 − (1/36)^0.6 = 0.3541; diounms with beta_nms 0.6 the same, with 1.0: 0.4428. At NMS
// 0.45 plain IoU suppresses the second box, DIoU keeps both (yolov4.cfg says greedynms: it was ignored).
void TestDetect::nmsKindOfTheLastHeadIsUsed()
{
    const Box a{2.5f / 8, 2.5f / 8, 0.625f, 0.625f}, b{3.5f / 8, 3.5f / 8, 0.625f, 0.625f};
    QVERIFY(std::fabs(nmsOverlap(a, b, {}) - 0.47059f) < 1e-4f);
    QVERIFY(std::fabs(nmsOverlap(a, b, nmsRuleFromCfg("greedynms", 1.0f)) - 0.35408f) < 1e-4f);
    QVERIFY(std::fabs(nmsOverlap(a, b, nmsRuleFromCfg("diounms", 1.0f)) - 0.44281f) < 1e-4f);
    QCOMPARE(nmsRuleFromCfg("cornersnms", 1.0f).kind, NmsRule::Kind::Iou); // AlexeyAB's [yolo] parser
    const auto kept = [&](const NmsRule& rule) {
        std::vector<Detection> dets = {detection(a.x, a.y, a.w, a.h, {0.9f}),
                                       detection(b.x, b.y, b.w, b.h, {0.8f})};
        nmsSort(dets, 1, 0.45f, rule);
        return int(std::count_if(dets.begin(), dets.end(), [](const Detection& d) { return d.prob[0] > 0; }));
    };
    QCOMPARE(kept({}), 1);
    QCOMPARE(kept(nmsRuleFromCfg("greedynms", 0.6f)), 2);
    // The network's rule is its last head's (AlexeyAB reads the last layer's).
    const NetworkSpec spec = test::specFromText(
        "[net]\nwidth=8\nheight=8\nchannels=3\n[convolutional]\nfilters=18\nsize=1\n[yolo]\nmask=0,1,2\n"
        "anchors=1,1,2,2,3,3\nclasses=1\nnum=3\n[route]\nlayers=-2\n[yolo]\nmask=0,1,2\nanchors=1,1,2,2,3,3\n"
        "classes=1\nnum=3\nnms_kind=diounms\nbeta_nms=0.8\n");
    QVERIFY2(spec.ok(), test::allText(spec.diagnostics).c_str());
    QCOMPARE(nmsRuleOf(spec).kind, NmsRule::Kind::Diou);
    QCOMPARE(nmsRuleOf(spec).beta, 0.8f);
}

void TestDetect::yoloDecodingByHand()
{
    // The input itself is the head: 2×2 cells, one anchor of 1×0.5 network pixels, 2 classes.
    std::string error;
    auto net =
        Net::create(test::specFromText("[net]\nwidth=2\nheight=2\nchannels=7\n[yolo]\nclasses=2\nnum=1\n"
                                       "mask=0\nanchors=1,0.5\n"),
                    1, error);
    QVERIFY2(net, error.c_str());
    std::vector<float> input(28, 0.0f);   // 7 planes of 2×2: x, y, w, h, obj, c0, c1 (before logistic)
    const int cell = 3;                   // column 1, row 1
    input[4 * 4 + cell] = 2.0f;           // objectness logit
    input[5 * 4 + cell] = 1.0f;           // class 0 logit
    input[2 * 4 + cell] = std::log(2.0f); // tw: w = 2·anchor
    net->forward(input.data());
    const auto dets = decodeDetections(*net, 0, {0.5f, false, 0, 0});
    QCOMPARE(dets.size(), std::size_t(1)); // σ(0) = 0.5 is not above 0.5, σ(2) ≈ 0.88 is
    const Detection& d = dets[0];
    const float sigmoid2 = 1 / (1 + std::exp(-2.0f)), sigmoid1 = 1 / (1 + std::exp(-1.0f));
    QCOMPARE(d.box.x, (1 + 0.5f) / 2);
    QCOMPARE(d.box.y, (1 + 0.5f) / 2);
    QCOMPARE(d.box.w, 2.0f * 1.0f / 2); // e^tw · anchor_w / net_w
    QCOMPARE(d.box.h, 1.0f * 0.5f / 2);
    QCOMPARE(d.objectness, sigmoid2);
    QCOMPARE(d.prob[0], sigmoid2 * sigmoid1);
    QCOMPARE(d.prob[1], 0.0f); // σ(2)·σ(0) ≈ 0.44 is not above the 0.5 threshold
}

// AlexeyAB's [Gaussian_yolo]: x, σx, y, σy, w, σw, h, σh, objectness, classes; logistic on all but tw
// and th, scale_x_y on x and y; scores times 1 − mean(σ); yolo_point=left_top places x, y at the
// box's corner. Its filters rule is (classes + 9) per anchor.
void TestDetect::gaussianYoloDecodingByHand()
{
    std::string error;
    const std::string head = "[net]\nwidth=2\nheight=2\nchannels=11\n[Gaussian_yolo]\nclasses=2\nnum=1\n"
                             "mask=0\nanchors=1,0.5\nscale_x_y=1.2\n";
    for (const bool corner : {false, true}) {
        auto net = Net::create(test::specFromText(head + (corner ? "yolo_point=left_top\n" : "")), 1, error);
        QVERIFY2(net, error.c_str());
        std::vector<float> input(44, 0.0f);   // 11 planes of 2×2
        const int cell = 3;                   // column 1, row 1
        input[0 * 4 + cell] = 1.0f;           // x logit
        input[1 * 4 + cell] = -1.0f;          // σx logit
        input[4 * 4 + cell] = std::log(2.0f); // tw (raw): w = 2·anchor
        input[5 * 4 + cell] = 0.5f;           // σw logit
        for (int other = 0; other < 3; ++other)
            input[8 * 4 + other] = -5.0f; // no object in the other cells
        input[8 * 4 + cell] = 2.0f;       // objectness logit
        input[9 * 4 + cell] = 1.0f;       // class 0 logit
        net->forward(input.data());
        const float* out = net->output().data();
        const auto sigmoid = [](float v) { return 1 / (1 + std::exp(-v)); };
        QVERIFY(std::abs(out[0 * 4 + cell] - (1.2f * sigmoid(1) - 0.1f)) < 1e-6f); // scale_x_y on x
        QVERIFY(std::abs(out[1 * 4 + cell] - sigmoid(-1)) < 1e-6f);                // σ: logistic only
        QVERIFY(std::abs(out[4 * 4 + cell] - std::log(2.0f)) < 1e-6f);             // tw: raw
        QVERIFY(std::abs(out[6 * 4 + cell]) < 1e-6f);                              // th: raw
        const auto dets = decodeDetections(*net, 0, {0.25f, false, 0, 0});
        QCOMPARE(dets.size(), std::size_t(1));
        const Detection& d = dets[0];
        const float x = (1 + 1.2f * sigmoid(1) - 0.1f) / 2, w = 2.0f * 1.0f / 2, h = 0.5f / 2;
        QVERIFY(std::abs(d.box.x - (corner ? x + w / 2 : x)) < 1e-6f);
        QVERIFY(std::abs(d.box.y - (corner ? (1 + 0.5f) / 2 + h / 2 : (1 + 0.5f) / 2)) < 1e-6f);
        QVERIFY(std::abs(d.box.w - w) < 1e-6f);
        QVERIFY(std::abs(d.box.h - h) < 1e-6f);
        const float certainty = 1 - (sigmoid(-1) + 0.5f + sigmoid(0.5f) + 0.5f) / 4;
        QVERIFY(std::abs(d.prob[0] - sigmoid(2) * sigmoid(1) * certainty) < 1e-6f);
        QCOMPARE(d.prob[1], 0.0f); // σ(2)·σ(0)·certainty ≈ 0.23 is not above 0.25
    }
    // The layer before must give (classes + 9) per anchor.
    const NetworkSpec wrong = test::specFromText(
        "[net]\nwidth=2\nheight=2\nchannels=7\n[Gaussian_yolo]\nclasses=2\nnum=1\nmask=0\nanchors=1,1\n");
    QVERIFY2(test::findDiagnostic(wrong.diagnostics, "1 anchors × (classes 2 + 9) = 11 are needed"),
             test::allText(wrong.diagnostics).c_str());
}

void TestDetect::letterboxCorrectionByHand()
{
    // A 200×100 image letterboxed into 100×100 fills rows 25..75: the box centred in the net with
    // height 0.25 covers half of the image's height.
    std::vector<Detection> dets = {detection(0.5f, 0.5f, 0.5f, 0.25f, {1.0f}),
                                   detection(0.25f, 0.25f, 0.1f, 0.1f, {1.0f})};
    undoLetterbox(dets, 200, 100, 100, 100);
    QCOMPARE(dets[0].box.x, 0.5f);
    QCOMPARE(dets[0].box.y, 0.5f);
    QCOMPARE(dets[0].box.w, 0.5f);
    QCOMPARE(dets[0].box.h, 0.5f);
    QCOMPARE(dets[1].box.y, 0.0f); // 0.25 in the net is the top edge of the image
}

void TestDetect::candidatesMatchOpenCvDnn()
{
    const QString cfg = QString(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg";
    QTemporaryDir dir;
    QProcess process;
    process.start(DARKNET_REF_FORWARD, {cfg, dir.path(), "11"});
    QVERIFY(process.waitForFinished(300000) && process.exitCode() == 0);
    const std::string weights = dir.filePath("net.weights").toStdString();

    cv::dnn::Net peer = cv::dnn::readNetFromDarknet(cfg.toStdString(), weights);
    peer.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    std::string error;
    auto net = Net::create(buildNetworkSpec(cfg::Document::load(cfg.toStdString())), 1, error);
    QVERIFY2(net, error.c_str());
    QVERIFY(!net->loadWeights(weights));

    const std::vector<float> input = readFloats(dir.filePath("input.f32"));
    cv::Mat blob({1, 3, 416, 416}, CV_32F);
    std::memcpy(blob.ptr<float>(), input.data(), input.size() * sizeof(float));
    peer.setInput(blob);
    std::vector<cv::Mat> outs;
    peer.forward(outs, peer.getUnconnectedOutLayersNames());
    net->forward(input.data());

    // OpenCV: one row per cell and anchor (cell-major), [cx, cy, w, h, objectness, obj·class...] with
    // class scores under its threshold set to 0. Ours: every candidate when the threshold is -1.
    const auto ours = decodeDetections(*net, 0, {-1.0f, false, 0, 0});
    std::size_t rows = 0, compared = 0;
    for (const cv::Mat& out : outs)
        rows += std::size_t(out.rows);
    QCOMPARE(rows, ours.size());
    std::size_t oursBase = 0;
    for (const cv::Mat& out : outs) { // same head order: 13×13 then 26×26
        const int anchors = 3, cells = out.rows / anchors;
        for (int cell = 0; cell < cells; ++cell)
            for (int a = 0; a < anchors; ++a) {
                const float* row = out.ptr<float>(cell * anchors + a);
                const Detection& d = ours[oursBase + std::size_t(a * cells + cell)];
                QVERIFY(std::fabs(row[0] - d.box.x) < 1e-4f && std::fabs(row[1] - d.box.y) < 1e-4f);
                QVERIFY(std::fabs(row[2] - d.box.w) < 1e-3f * std::max(1.0f, d.box.w));
                QVERIFY(std::fabs(row[3] - d.box.h) < 1e-3f * std::max(1.0f, d.box.h));
                QVERIFY(std::fabs(row[4] - d.objectness) < 1e-4f);
                for (int c = 0; c < 80; ++c)
                    if (row[5 + c] > 0) {
                        QVERIFY(std::fabs(row[5 + c] - d.prob[std::size_t(c)]) < 1e-4f);
                        ++compared;
                    }
            }
        oursBase += std::size_t(out.rows);
    }
    QVERIFY(compared > 0);
}

// A TERM (or Ctrl+C) in the middle of a long video: the frames done are printed and the annotated video
// is closed whole (the JSON came only at the end, and the .avi lacked its index).
void TestDetect::detectStoppedKeepsWhatItDid()
{
    QTemporaryDir dir;
    const QString video = dir.filePath("long.avi");
    {
        cv::VideoWriter writer(video.toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 25,
                               cv::Size(96, 96));
        QVERIFY(writer.isOpened());
        for (int i = 0; i < 3000; ++i) {
            cv::Mat frame(96, 96, CV_8UC3, cv::Scalar(40, 100, 200));
            cv::circle(frame, cv::Point(10 + i % 70, 48), 12, cv::Scalar(0, 255, 0), cv::FILLED);
            writer.write(frame);
        }
    }
    const QString out = dir.filePath("annotated");
    QProcess detect;
    detect.start(NETWRIGHT_CLI,
                 {"detect", QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg",
                  QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights", video,
                  "--json", "--out", out});
    const auto underWay = [&] { // (the video is written under a name of its own until it is whole)
        for (const QFileInfo& file : QDir(out).entryInfoList({"*.avi"}, QDir::Files | QDir::Hidden))
            if (file.size() > 0)
                return true;
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(underWay(), 60000); // frames under way
    detect.terminate();                          // SIGTERM
    QVERIFY(detect.waitForFinished(60000));
    QCOMPARE(detect.exitStatus(), QProcess::NormalExit);
    QCOMPARE(detect.exitCode(), 128 + 15);
    QVERIFY(detect.readAllStandardError().contains("detect: stopped (SIGTERM) after 1 of 1 inputs"));
    const QJsonArray results = QJsonDocument::fromJson(detect.readAllStandardOutput()).array();
    QVERIFY(results.size() > 0 && results.size() < 3000);
    cv::VideoCapture annotated((out + "/long.avi").toStdString());
    QVERIFY(annotated.isOpened());
    QCOMPARE(int(annotated.get(cv::CAP_PROP_FRAME_COUNT)), int(results.size()));

    // stdout's reader went away (`detect … | head -1`): the same stop, the video closed whole (SIGPIPE
    // ended the process mid-video, its .avi without the index that holds the frame count).
    const QString piped = dir.filePath("piped");
    detect.start("bash", {"-c",
                          "\"$0\" detect \"$1\" \"$2\" \"$3\" --out \"$4\" | head -c 1 >/dev/null; "
                          "exit ${PIPESTATUS[0]}",
                          NETWRIGHT_CLI, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg",
                          QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights",
                          video, piped});
    QVERIFY(detect.waitForFinished(120000));
    QCOMPARE(detect.exitCode(), 128 + SIGPIPE);
    const QByteArray pipedErrors = detect.readAllStandardError();
    QVERIFY2(pipedErrors.contains("the standard output cannot be written (its reader went away): stopping"),
             pipedErrors.constData());
    QVERIFY2(pipedErrors.contains("detect: stopped (stdout's reader went away) after 1 of 1 inputs"),
             pipedErrors.constData());
    cv::VideoCapture pipedVideo((piped + "/long.avi").toStdString());
    QVERIFY(pipedVideo.isOpened());
    const int pipedFrames = int(pipedVideo.get(cv::CAP_PROP_FRAME_COUNT));
    QVERIFY2(pipedFrames > 0 && pipedFrames < 3000, qPrintable(QString::number(pipedFrames)));
}

void TestDetect::detectCommandOnImagesAndVideo()
{
    QTemporaryDir dir;
    const QString cfg = QString(DARKNET_CFG_DIR) + "/yolov2-tiny.cfg";
    QProcess process;
    process.start(DARKNET_REF_FORWARD, {cfg, dir.path(), "5"});
    QVERIFY(process.waitForFinished(300000) && process.exitCode() == 0);
    const QString weights = dir.filePath("net.weights");

    const QString video = dir.filePath("clip.avi");
    {
        cv::VideoWriter writer(video.toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10,
                               cv::Size(160, 120));
        QVERIFY(writer.isOpened());
        for (int i = 0; i < 5; ++i) {
            cv::Mat frame(120, 160, CV_8UC3, cv::Scalar(40 * i, 100, 200));
            cv::circle(frame, cv::Point(30 + 20 * i, 60), 20, cv::Scalar(0, 255, 0), cv::FILLED);
            writer.write(frame);
        }
    }
    const QString out = dir.filePath("annotated");
    const Run run = cli({"detect", cfg, weights, "/usr/share/darknet/data/dog.jpg", video, "--json", "--out",
                         out, "--names", "/usr/share/darknet/data/coco.names", "--thresh", "0.6"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonArray results = QJsonDocument::fromJson(run.out).array();
    QCOMPARE(results.size(), 1 + 5);
    QCOMPARE(results[0].toObject()["file"].toString(), QString("/usr/share/darknet/data/dog.jpg"));
    for (int frame = 0; frame < 5; ++frame)
        QCOMPARE(results[1 + frame].toObject()["frame"].toInt(), frame);
    for (const QJsonValue& result : results)
        for (const QJsonValue& detection : result.toObject()["detections"].toArray()) {
            const QJsonObject d = detection.toObject();
            QVERIFY(d["confidence"].toDouble() > 0.6);
            QCOMPARE(d["box"].toArray().size(), 4);
            QVERIFY(!d["name"].toString().isEmpty());
        }
    QVERIFY(QFileInfo::exists(out + "/dog.jpg"));
    QVERIFY(QFileInfo::exists(out + "/clip.avi"));
    // In the input's colours (the conversion for the network had turned the frame itself into RGB, so
    // every picture and video was written with red and blue swapped): the photo's mean colour, a few
    // boxes apart, and the video's background away from the boxes.
    const cv::Scalar photo = cv::mean(cv::imread("/usr/share/darknet/data/dog.jpg"));
    const cv::Scalar drawn = cv::mean(cv::imread((out + "/dog.jpg").toStdString()));
    QVERIFY(std::fabs(photo[0] - photo[2]) > 15); // (blue and red apart enough to tell a swap)
    for (int c = 0; c < 3; ++c)
        QVERIFY2(std::fabs(drawn[c] - photo[c]) < 8,
                 qPrintable(QString("channel %1: %2 against %3").arg(c).arg(drawn[c]).arg(photo[c])));
    cv::VideoCapture annotated((out + "/clip.avi").toStdString());
    cv::Mat first;
    QVERIFY(annotated.read(first));
    const cv::Vec3b corner = first.at<cv::Vec3b>(115, 155); // Scalar(0, 100, 200) was written, BGR
    QVERIFY2(corner[0] < 40 && corner[2] > 160,
             qPrintable(QString("%1 %2 %3").arg(corner[0]).arg(corner[1]).arg(corner[2])));
    // Written beside it until whole: a run that cannot finish it (a full disk: here a file size limit)
    // leaves the earlier video as it was, and nothing of its own (it rewrote the file in place).
    annotated.release();
    const QByteArray earlier = test::readAll(out + "/clip.avi");
    QProcess limited;
    const rlim_t limit = rlim_t(earlier.size()) / 2; // (the same frames again cannot fit)
    limited.setChildProcessModifier([limit] {
        const rlimit small{limit, limit};
        setrlimit(RLIMIT_FSIZE, &small);
        std::signal(SIGXFSZ, SIG_IGN); // (writes past it fail instead)
    });
    limited.start(NETWRIGHT_CLI, {"detect", cfg, weights, video, "--out", out, "--names",
                                  "/usr/share/darknet/data/coco.names", "--thresh", "0.6"});
    QVERIFY(limited.waitForFinished(300000));
    const QByteArray limitedErr = limited.readAllStandardError();
    QCOMPARE(limited.exitCode(), 1);
    QVERIFY2(limitedErr.contains("; the earlier " + out.toUtf8() + "/clip.avi is kept as it was"),
             limitedErr.constData());
    QCOMPARE(test::readAll(out + "/clip.avi"), earlier);
    QCOMPARE(QDir(out).entryList({"*partial*"}, QDir::Files | QDir::Hidden), QStringList());
    // A video cut short (an interrupted copy) stops where its data does, without a decoder error: the
    // frames it declares say so.
    const QString cutVideo = dir.filePath("cut.avi");
    QVERIFY(QFile::copy(video, cutVideo));
    QVERIFY(QFile::resize(cutVideo, QFileInfo(video).size() * 6 / 10));
    const Run shortened = cli({"detect", cfg, weights, cutVideo, "--json"});
    QCOMPARE(shortened.exitCode, 1);
    QVERIFY2(shortened.err.contains(" of the 5 frames the file declares: it is cut short or damaged"),
             shortened.err.constData());
    // (in the JSON too, after the frames it gave: the exit status 1 had no entry there)
    const QJsonArray shortenedJson = QJsonDocument::fromJson(shortened.out).array();
    QVERIFY(!shortenedJson.isEmpty());
    QVERIFY(shortenedJson.last().toObject()["error"].toString().contains("it is cut short or damaged"));
    // A video of another common ending (a phone's .3gp) is read as a video (it was "a damaged image"); a
    // folder where its annotated video goes is named as such (OpenCV's exception dumps, "is the folder
    // writable?").
    const QString phone = dir.filePath("phone.3gp"), blocked = dir.filePath("blocked");
    QVERIFY(QFile::copy(video, phone));
    QVERIFY(QDir().mkpath(blocked + "/phone.avi"));
    const Run phoneRun = cli({"detect", cfg, weights, phone, "--json", "--out", blocked});
    QCOMPARE(phoneRun.exitCode, 1);
    QCOMPARE(QJsonDocument::fromJson(phoneRun.out).array().size(), 5); // its frames
    QVERIFY2(phoneRun.err.contains("cannot write " + blocked.toUtf8() +
                                   "/phone.avi: a folder of that name is "
                                   "there; move it away") &&
                 !phoneRun.err.contains("is the folder writable") && !phoneRun.err.contains("cv::"),
             phoneRun.err.constData());
    // An MP4 recording cut off before its index: named as such, without FFmpeg's own nameless line.
    const QString mp4 = dir.filePath("recording.mp4"), cutMp4 = dir.filePath("cut-off.mp4");
    {
        cv::VideoWriter writer(mp4.toStdString(), cv::VideoWriter::fourcc('m', 'p', '4', 'v'), 10,
                               cv::Size(160, 120));
        QVERIFY(writer.isOpened());
        for (int i = 0; i < 5; ++i)
            writer.write(cv::Mat(120, 160, CV_8UC3, cv::Scalar(40 * i, 100, 200)));
    }
    QVERIFY(QFile::copy(mp4, cutMp4) && QFile::resize(cutMp4, QFileInfo(mp4).size() / 2));
    const Run cutOff = cli({"detect", cfg, weights, cutMp4});
    QCOMPARE(cutOff.exitCode, 1);
    QVERIFY2(cutOff.err.contains(cutMp4.toUtf8() + ": the MP4/MOV file has no index ('moov' box)") &&
                 !cutOff.err.contains("moov atom not found"),
             cutOff.err.constData());
    // Two inputs of one name keep both pictures; one that cannot be written is an error, not a silence.
    const QString twice = dir.filePath("twice");
    QVERIFY(QDir().mkpath(twice + "/dog-2.jpg")); // a folder where the second picture would go
    const Run again =
        cli({"detect", cfg, weights, "/usr/share/darknet/data/dog.jpg", "/usr/share/darknet/data/dog.jpg",
             "/usr/share/darknet/data/dog.jpg", "--out", twice});
    QCOMPARE(again.exitCode, 1);
    QVERIFY2(again.err.contains("cannot write " + twice.toUtf8() + "/dog-2.jpg"), again.err.constData());
    QVERIFY(QFileInfo(twice + "/dog.jpg").isFile() && QFileInfo(twice + "/dog-3.jpg").isFile());
    // --out the input's own folder: the picture is drawn beside it, never over it.
    QVERIFY(QFile::copy("/usr/share/darknet/data/dog.jpg", twice + "/photo.jpg"));
    const QByteArray original = test::readAll(twice + "/photo.jpg");
    const Run beside = cli({"detect", cfg, weights, twice + "/photo.jpg", "--out", twice});
    QVERIFY2(beside.exitCode == 0, beside.err.constData());
    QCOMPARE(test::readAll(twice + "/photo.jpg"), original);
    QVERIFY(beside.err.contains("photo.jpg is drawn into " + twice.toUtf8() +
                                "/photo-2.jpg (photo.jpg is taken)"));
    QVERIFY(QFileInfo(twice + "/photo-2.jpg").isFile());
    // A names file not in UTF-8 (Latin-1 é before every name): --json still prints every result, the
    // byte replaced by U+FFFD (nlohmann's dump threw, and the whole output was lost).
    const QString latin1 = dir.filePath("latin1.names");
    test::writeFile(latin1,
                    "\xe9" + test::readAll("/usr/share/darknet/data/coco.names").replace("\n", "\n\xe9"));
    const Run json = cli({"detect", cfg, weights, "/usr/share/darknet/data/dog.jpg", "--json", "--names",
                          latin1, "--thresh", "0.001"});
    QVERIFY2(json.exitCode == 0, json.err.constData());
    // Said once, on the first such line (81 of them): the letters show as U+FFFD.
    QVERIFY2(json.err.contains(latin1.toUtf8() + ":1: 81 names (the first here) are not UTF-8 text"),
             json.err.constData());
    const QJsonArray parsed = QJsonDocument::fromJson(json.out).array();
    QCOMPARE(parsed.size(), 1);
    const QJsonArray found = parsed[0].toObject()["detections"].toArray();
    QVERIFY(!found.isEmpty());
    QVERIFY(found[0].toObject()["name"].toString().startsWith(QChar(0xfffd)));
    QCOMPARE(parsed[0].toObject()["file"].toString(), QString("/usr/share/darknet/data/dog.jpg"));

    const Run bad = cli({"detect", cfg, weights, dir.filePath("nothing.jpg"), video});
    QCOMPARE(bad.exitCode, 1);
    QVERIFY(bad.err.contains("nothing.jpg: no such file (expected an image)"));
    // A PNG whose header declares 100000×100000 pixels (OpenCV throws) and a folder without images are
    // each reported and skipped; the image after them is still detected.
    const QString huge = dir.filePath("huge.png");
    test::writeFile(huge, test::pngDeclaring(100000, 100000));
    const QString empty = dir.filePath("empty");
    QVERIFY(QDir().mkpath(empty));
    test::writeFile(empty + "/notes.md", "not an image\n");
    // A GIF (OpenCV 4.6 reads none): said, in a folder and given itself (a folder left it out unsaid; as an
    // input it was called damaged).
    const QByteArray gif("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00,\x00\x00\x00\x00\x01\x00"
                         "\x01\x00\x00\x02\x02\x44\x01\x00;",
                         35);
    test::writeFile(empty + "/anim.gif", gif);
    // A JPEG cut short: refused by name (it gave "0 objects" over a grey half, exit 0).
    QFile dog("/usr/share/darknet/data/dog.jpg");
    QVERIFY(dog.open(QIODevice::ReadOnly));
    const QString cut = dir.filePath("cut.jpg");
    test::writeFile(cut, dog.readAll().left(int(dog.size() / 2)));
    const Run skipped =
        cli({"detect", cfg, weights, huge, empty, cut, "/usr/share/darknet/data/dog.jpg", "--json"});
    QCOMPARE(skipped.exitCode, 1);
    QVERIFY2(skipped.err.contains("cut.jpg: the JPEG is cut short"), skipped.err.constData());
    QVERIFY2(skipped.err.contains(
                 "huge.png: cannot read the image: its header declares more pixels than OpenCV accepts"),
             skipped.err.constData());
    QVERIFY2(skipped.err.contains("empty: a folder without images or videos"), skipped.err.constData());
    QVERIFY2(
        skipped.err.contains("empty: 1 GIF image is not read (OpenCV has no GIF decoder): convert it to PNG"),
        skipped.err.constData());
    const Run gifRun = cli({"detect", cfg, weights, empty + "/anim.gif"});
    QVERIFY2(gifRun.exitCode == 1 &&
                 gifRun.err.contains("anim.gif: cannot read the image: GIF is not read here"),
             gifRun.err.constData());
    QVERIFY(skipped.err.contains(
        "detect: 3 of 4 inputs could not be read or scored (or their --out file written)"));
    // In the JSON too, each with its error (a program reading it could not tell which inputs failed), the
    // folder without images included (it was on stderr only).
    const QJsonArray skippedJson = QJsonDocument::fromJson(skipped.out).array();
    QCOMPARE(skippedJson.size(), 4); // (in the inputs' order)
    QCOMPARE(skippedJson[0].toObject()["file"].toString(), huge);
    QVERIFY(skippedJson[0].toObject()["error"].toString().contains("cannot read the image"));
    QCOMPARE(skippedJson[1].toObject()["file"].toString(), empty);
    QVERIFY(skippedJson[1].toObject()["error"].toString().startsWith("a folder without images or videos"));
    QVERIFY(skippedJson[2].toObject()["error"].toString().contains("the JPEG is cut short"));
    QVERIFY(skippedJson[3].toObject().contains("detections"));
    // A folder gives its images (by name), a .txt list (Darknet's train.txt) its lines, read from the
    // list's folder; a listed image that is not there is named with its line.
    const QString pictures = dir.filePath("pictures");
    QVERIFY(QDir().mkpath(pictures));
    QVERIFY(QFile::copy("/usr/share/darknet/data/dog.jpg", pictures + "/b.jpg"));
    QVERIFY(QFile::copy("/usr/share/darknet/data/eagle.jpg", pictures + "/a.JPG"));
    test::writeFile(pictures + "/a.txt", "0 0.5 0.5 0.2 0.2\n"); // (a label file: not an input)
    test::writeFile(dir.filePath("some.txt"), "pictures/b.jpg\r\npictures/gone.jpg\n\n");
    // A link in the folder to a file that is gone is named (it was skipped without a word).
    QVERIFY(QFile::link("/nonexistent/c.jpg", pictures + "/c.jpg"));
    const Run expanded = cli({"detect", cfg, weights, pictures, dir.filePath("some.txt"), "--json"});
    QCOMPARE(expanded.exitCode, 1);
    QVERIFY2(expanded.err.contains("some.txt:2: pictures/gone.jpg does not exist"), expanded.err.constData());
    QVERIFY2(expanded.err.contains(pictures.toUtf8() + "/c.jpg: no such file (expected an image)"),
             expanded.err.constData());
    QVERIFY(expanded.err.contains("detect: 2 of 5 inputs could not be read"));
    const QJsonArray files = QJsonDocument::fromJson(expanded.out).array();
    QCOMPARE(files.size(), 5);
    // (in the inputs' order: the folder's images, then the list's missing one, by its path as written)
    QCOMPARE(files[0].toObject()["file"].toString(), pictures + "/a.JPG");
    QCOMPARE(files[1].toObject()["file"].toString(), pictures + "/b.jpg");
    QCOMPARE(files[2].toObject()["file"].toString(), pictures + "/c.jpg"); // the link to nothing
    QVERIFY(files[2].toObject()["error"].toString().contains("no such file"));
    QCOMPARE(files[3].toObject()["file"].toString(), QString("pictures/gone.jpg"));
    QCOMPARE(files[3].toObject()["error"].toString(),
             dir.filePath("some.txt") + ":2: pictures/gone.jpg does not exist");
    QCOMPARE(files[4].toObject()["file"].toString(), dir.filePath("pictures/b.jpg"));
    // (classify takes a classifier: the bundled Fashion-MNIST network)
    const QString fashion = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg";
    const QString classifierWeights = dir.filePath("fashion.weights");
    QCOMPARE(cli({"init", fashion, classifierWeights}).exitCode, 0);
    for (const char* command : {"classify", "forward"}) {
        const QStringList arguments = QString(command) == "forward"
                                          ? QStringList{"forward", cfg, weights, "--input", huge}
                                          : QStringList{"classify", fashion, classifierWeights, huge};
        const Run refused = cli(arguments);
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("huge.png: cannot read the image: its header declares more pixels"),
                 refused.err.constData());
        if (QString(command) == "classify")
            QVERIFY(refused.err.contains("classify: 1 of 1 images could not be read and were skipped"));
    }
    const Run classifier = cli({"detect", QString(DARKNET_CFG_DIR) + "/darknet.cfg", weights, video});
    QCOMPARE(classifier.exitCode, 1);
}

// Weights that diverged (finite, but 1e30 everywhere) make the heads' outputs infinite or NaN: detect,
// forward and map said "0 objects", wrote NaN, or gave mAP 0 %, each with exit status 0.
void TestDetect::outputsThatAreNotNumbersAreSaid()
{
    QTemporaryDir dir;
    const QString cfg = dir.filePath("tiny.cfg"), weights = dir.filePath("diverged.weights");
    QVERIFY(test::writeDivergedDetector(cfg, weights));
    const QString image = dir.filePath("dog.jpg");
    QVERIFY(QFile::copy("/usr/share/darknet/data/dog.jpg", image));
    const Run detect = cli({"detect", cfg, weights, image, "--json"});
    QCOMPARE(detect.exitCode, 1);
    QVERIFY2(detect.err.contains(image.toUtf8() + ": the network's outputs are not numbers ("),
             detect.err.constData());
    const QJsonArray json = QJsonDocument::fromJson(detect.out).array();
    QCOMPARE(json.size(), 1);
    QVERIFY(json[0].toObject()["error"].toString().startsWith("the network's outputs are not numbers"));
    const Run forward = cli({"forward", cfg, weights, "--input", image, "--out", dir.filePath("out.f32")});
    QCOMPARE(forward.exitCode, 1);
    QVERIFY2(forward.err.contains("output values are not numbers (NaN or infinite), written as computed"),
             forward.err.constData());
    QVERIFY(QFileInfo(dir.filePath("out.f32")).size() > 0);
    test::writeFile(dir.filePath("dog.txt"), "0 0.5 0.5 0.2 0.2\n");
    test::writeFile(dir.filePath("valid.txt"), image.toUtf8() + "\n");
    test::writeFile(dir.filePath("tiny.data"),
                    "classes=1\nvalid=" + dir.filePath("valid.txt").toUtf8() + "\n");
    const Run map = cli({"map", dir.filePath("tiny.data"), cfg, weights});
    QCOMPARE(map.exitCode, 1);
    QVERIFY2(map.err.contains("1 of 1 images gave outputs that are not numbers, so no mAP can be measured"),
             map.err.constData());
}

// A names file without one name: map says so and shows the classes as numbers (it said nothing).
void TestDetect::mapSaysANamesFileWithoutNames()
{
    QTemporaryDir dir;
    const QString cfg = dir.filePath("tiny.cfg"), weights = dir.filePath("tiny.weights");
    QVERIFY(test::writeDivergedDetector(cfg, weights));
    QCOMPARE(cli({"init", cfg, weights}).exitCode, 0); // (sane weights over the diverged ones)
    const QString image = dir.filePath("dog.jpg");
    QVERIFY(QFile::copy("/usr/share/darknet/data/dog.jpg", image));
    test::writeFile(dir.filePath("dog.txt"), "0 0.5 0.5 0.2 0.2\n");
    test::writeFile(dir.filePath("valid.txt"), image.toUtf8() + "\n");
    test::writeFile(dir.filePath("empty.names"), "");
    test::writeFile(dir.filePath("tiny.data"), "classes=1\nvalid=" + dir.filePath("valid.txt").toUtf8() +
                                                   "\nnames=" + dir.filePath("empty.names").toUtf8() + "\n");
    const Run map = cli({"map", dir.filePath("tiny.data"), cfg, weights});
    QCOMPARE(map.exitCode, 0);
    QVERIFY2(map.err.contains("empty.names has 0 names but the network has 1 classes"), map.err.constData());
    QVERIFY2(map.out.contains("class  0 class 0"), map.out.constData());
}

void TestDetect::labelsStayInsideAndTheBestIsOnTop()
{
    // By hand, a 200 × 20 label in a 640 × 480 image: above the box when there is room; else under
    // its top edge; never past the right edge or the bottom.
    auto at = [](float left, float top) {
        LabeledBox box;
        box.left = left;
        box.top = top;
        const LabelPlace p = placeLabel(box, 200, 20, 640, 480);
        return std::pair{p.x, p.y};
    };
    QCOMPARE(at(100, 100), (std::pair{100.0, 80.0}));
    QCOMPARE(at(100, 5), (std::pair{100.0, 5.0}));    // no room above: inside the box
    QCOMPARE(at(550, 100), (std::pair{440.0, 80.0})); // would cross the right edge
    QCOMPARE(at(-30, 475), (std::pair{0.0, 455.0}));  // left of the image, label above
    QCOMPARE(at(10, 0), (std::pair{10.0, 0.0}));
    // Two boxes whose labels overlap: the more confident one is drawn last, whatever the list order.
    std::vector<LabeledBox> boxes(2);
    boxes[0].classId = 0;
    boxes[0].confidence = 0.9f;
    boxes[1].classId = 1;
    boxes[1].confidence = 0.4f;
    for (LabeledBox& box : boxes) {
        box.name = "x";
        box.left = 10;
        box.top = 40;
        box.width = 50;
        box.height = 50;
    }
    const auto order = drawingOrder(boxes);
    QCOMPARE(order.size(), std::size_t(2));
    QCOMPARE(order[1], &boxes[0]);
    cv::Mat frame(120, 160, CV_8UC3, cv::Scalar(255, 255, 255));
    drawBoxes(frame, boxes);
    int r, g, b;
    classColor(0, r, g, b);
    const cv::Vec3b label = frame.at<cv::Vec3b>(36, 11); // inside the best label's tag, left of the text
    QCOMPARE(label, cv::Vec3b(uchar(b), uchar(g), uchar(r)));
    // The other label moves under the boxes' top edge rather than hide under the best one.
    classColor(1, r, g, b);
    QCOMPARE(frame.at<cv::Vec3b>(43, 12), cv::Vec3b(uchar(b), uchar(g), uchar(r)));

    // placeLabels by hand: 30 × 10 labels in a 160 × 120 image, four boxes at (10, 40) 50 × 50 and one
    // apart at (100, 60) 40 × 40, confidences 0.9 ... 0.5. The best label keeps its place above
    // (10, 30); the next ones go under the top edge (10, 40) and under the box (10, 90); the fourth
    // passes over the place above the box's right end (30, 30), which covers the best label's last 10
    // pixels, and takes the one inside the bottom edge (10, 80), which touches the third but covers none.
    std::vector<LabeledBox> crowd(6);
    for (int i = 0; i < 6; ++i) {
        const bool apart = i == 4;
        crowd[i].confidence = 0.9f - 0.1f * float(i);
        crowd[i].left = apart ? 100 : 10;
        crowd[i].top = apart ? 60 : 40;
        crowd[i].width = crowd[i].height = apart ? 40 : 50;
    }
    const auto crowdOrder = drawingOrder(crowd);
    const std::vector<LabelSize> sizes(6, LabelSize{30, 10});
    const std::vector<LabelPlace> places = placeLabels(crowdOrder, sizes, 160, 120);
    const auto placeOf = [&](int box) {
        for (std::size_t i = 0; i < crowdOrder.size(); ++i)
            if (crowdOrder[i] == &crowd[box])
                return std::pair{places[i].x, places[i].y};
        return std::pair{-1.0, -1.0};
    };
    QCOMPARE(placeOf(0), (std::pair{10.0, 30.0}));
    QCOMPARE(placeOf(1), (std::pair{10.0, 40.0}));
    QCOMPARE(placeOf(2), (std::pair{10.0, 90.0}));
    QCOMPARE(placeOf(3), (std::pair{10.0, 80.0}));
    QCOMPARE(placeOf(4), (std::pair{100.0, 50.0})); // a box apart keeps the usual place above it
    // A fifth label on the crowded box finds every place taken: the one that covers least, (30, 30),
    // over 10 × 10 pixels of the best label (each other place covers a whole label, 30 × 10).
    QCOMPARE(placeOf(5), (std::pair{30.0, 30.0}));
    // Past the 256 most confident, labels take the usual place without a search (an untrained
    // network's tens of thousands of boxes each searched against all the others).
    std::vector<LabeledBox> many(300, crowd[0]);
    for (std::size_t i = 0; i < many.size(); ++i)
        many[i].confidence = 0.9f - 0.001f * float(i);
    const auto manyOrder = drawingOrder(many); // the least confident first
    const std::vector<LabelPlace> manyPlaces =
        placeLabels(manyOrder, std::vector<LabelSize>(300, LabelSize{30, 10}), 160, 120);
    QCOMPARE((std::pair{manyPlaces[299].x, manyPlaces[299].y}), (std::pair{10.0, 30.0})); // the best
    QCOMPARE((std::pair{manyPlaces[298].x, manyPlaces[298].y}), (std::pair{10.0, 40.0})); // searched
    QCOMPARE((std::pair{manyPlaces[43].x, manyPlaces[43].y}), (std::pair{10.0, 30.0}));   // 257th: not
    // Label text by contrast: class 9's dark blue (57, 62, 230; luminance 0.10) takes white, 6.9:1
    // against black's 3.0:1; class 0's light orange takes black; the cut is at luminance 0.179.
    classColor(9, r, g, b);
    QCOMPARE((std::vector<int>{r, g, b}), (std::vector<int>{57, 62, 230}));
    QVERIFY(whiteTextOn(r, g, b));
    classColor(0, r, g, b);
    QVERIFY(!whiteTextOn(r, g, b));
    QVERIFY(whiteTextOn(117, 117, 117));  // grey: luminance 0.1779, under the cut
    QVERIFY(!whiteTextOn(118, 118, 118)); // 0.1812, over it
}

QTEST_GUILESS_MAIN(TestDetect)
// A Hebrew class name's label ends in its score as written: laid out as one right-to-left string, 91 %
// was drawn "%19". The ink's runs of columns at the label's end are those of " 91%" drawn alone.
void TestDetect::rightToLeftNamesKeepTheirScoresDigits()
{
#if !NETWRIGHT_WITH_FREETYPE
    QSKIP("this build draws text with Hershey's ASCII font only (no OpenCV freetype module or fontconfig)");
#endif
    int r = 0, g = 0, b = 0;
    classColor(0, r, g, b);
    const cv::Vec3b background{uchar(b), uchar(g), uchar(r)};
    const cv::Vec3b ink = whiteTextOn(r, g, b) ? cv::Vec3b(255, 255, 255) : cv::Vec3b(0, 0, 0);
    // The widths of the runs of columns holding ink (nearer the ink than the background) in rows [top,
    // bottom).
    const auto runs = [&](const cv::Mat& image, int top, int bottom) {
        std::vector<int> widths;
        bool inRun = false;
        for (int x = 0; x < image.cols; ++x) {
            bool inked = false;
            for (int y = top; y < bottom && !inked; ++y) {
                const cv::Vec3b p = image.at<cv::Vec3b>(y, x);
                const auto distance = [&p](const cv::Vec3b& to) {
                    return std::abs(p[0] - to[0]) + std::abs(p[1] - to[1]) + std::abs(p[2] - to[2]);
                };
                inked = distance(ink) < distance(background);
            }
            if (inked && !inRun)
                widths.push_back(0);
            if (inked)
                ++widths.back();
            inRun = inked;
        }
        return widths;
    };
    const std::string name = "\u05e9\u05dc\u05d5\u05dd";
    if (textSize(name, 0.4) == cv::getTextSize(name, cv::FONT_HERSHEY_SIMPLEX, 0.4, 1, nullptr))
        QSKIP("no font with Hebrew letters here: the label is Hershey's question marks");
    cv::Mat frame(200, 300, CV_8UC3, cv::Scalar(255, 255, 255));
    drawBoxes(frame, {LabeledBox{0, name, 0.91f, 40, 100, 200, 80, 0}});
    const std::vector<int> label = runs(frame, 70, 100);
    cv::Mat alone(40, 120, CV_8UC3, cv::Scalar(b, g, r));
    drawText(alone, " 91%", cv::Point(2, 25), 0.4, cv::Scalar(ink), name); // (in the name's font)
    const std::vector<int> score = runs(alone, 0, 40);
    QVERIFY(score.size() >= 3 && label.size() > score.size());
    const std::vector<int> labelEnd(label.end() - std::ptrdiff_t(score.size()), label.end());
    QCOMPARE(labelEnd, score);
}

// A class name beyond ASCII ("Stern ü", Chinese names) is drawn as its letters: Hershey's font drew one
// "?" per UTF-8 byte. "üu" drawn: two letters (not "??u"), the same bottom, only ü's dots above u's top.
void TestDetect::labelsBeyondAsciiAreDrawnAsLetters()
{
#if !NETWRIGHT_WITH_FREETYPE
    QSKIP("this build draws text with Hershey's ASCII font only (no OpenCV freetype module or fontconfig)");
#endif
    cv::Mat image(60, 120, CV_8UC3, cv::Scalar(255, 255, 255));
    drawText(image, "üu", cv::Point(10, 45), 1.0, cv::Scalar(0, 0, 0));
    // The runs of columns with ink, and each run's top and bottom rows.
    struct Run {
        int from = -1, to = -1, top = 1 << 20, bottom = -1;
    };
    std::vector<Run> runs;
    bool inRun = false;
    for (int x = 0; x < image.cols; ++x) {
        int top = -1, bottom = -1;
        for (int y = 0; y < image.rows; ++y)
            if (image.at<cv::Vec3b>(y, x)[0] < 128) {
                top = top < 0 ? y : top;
                bottom = y;
            }
        if (top < 0) {
            inRun = false;
            continue;
        }
        if (!inRun)
            runs.push_back({x, x, top, bottom});
        inRun = true;
        Run& run = runs.back();
        run.to = x;
        run.top = std::min(run.top, top);
        run.bottom = std::max(run.bottom, bottom);
    }
    QCOMPARE(runs.size(), std::size_t(2));
    QVERIFY2(std::abs(runs[0].bottom - runs[1].bottom) <= 1,
             qPrintable(QString("bottoms %1, %2").arg(runs[0].bottom).arg(runs[1].bottom)));
    QVERIFY2(runs[0].top <= runs[1].top - 4,
             qPrintable(QString("tops %1, %2").arg(runs[0].top).arg(runs[1].top)));
    QVERIFY(std::abs((runs[0].to - runs[0].from) - (runs[1].to - runs[1].from)) <= 1); // as wide as u
    // Its size is what the label's tag is made for, and ASCII keeps Darknet's Hershey size.
    int below = 0;
    QVERIFY(textSize("üu", 1.0, &below).width >= runs[1].to - runs[0].from);
    int hersheyBelow = 0;
    QCOMPARE(textSize("uu", 1.0), cv::getTextSize("uu", cv::FONT_HERSHEY_SIMPLEX, 1.0, 1, &hersheyBelow));
}

// The studio keeps every candidate above 0.005 and relabels them as its sliders move; at any threshold
// that gives what a detection at that threshold gives (netwright-cli detect), box for box — here on
// yolov4-tiny with random weights, whose 2535 boxes × 80 classes are mostly over the floor.
void TestDetect::relabelledCandidatesEqualADetectionAtTheirThreshold()
{
    const NetworkSpec spec =
        buildNetworkSpec(cfg::Document::load(NETWRIGHT_TEST_DATA_DIR "/ab-cfgs/yolov4-tiny.cfg"));
    std::string error;
    auto net = Net::create(spec, 1, error, Net::Use::InferenceOnly);
    QVERIFY2(net, error.c_str());
    net->initialize(1);
    const auto image = loadImage("/usr/share/darknet/data/dog.jpg", 3, error);
    QVERIFY2(image, error.c_str());
    Detector detector(*net, {});
    const std::vector<Detection> candidates = detector.candidates(*image, false);
    std::size_t overFloor = 0;
    for (const Detection& d : candidates)
        overFloor += std::size_t(std::count_if(d.prob.begin(), d.prob.end(), [](float p) { return p > 0; }));
    QVERIFY2(overFloor > 10000, qPrintable(QString::number(overFloor)));
    for (const float threshold : {0.01f, 0.25f, 0.5f}) {
        DetectOptions options;
        options.threshold = threshold;
        const auto relabelled = detector.labelBoxes(candidates, image->width, image->height, options);
        const auto detected = detector.detect(*image, options);
        QCOMPARE(relabelled.size(), detected.size());
        for (std::size_t k = 0; k < detected.size(); ++k) {
            QCOMPARE(relabelled[k].classId, detected[k].classId);
            QCOMPARE(relabelled[k].confidence, detected[k].confidence);
            QCOMPARE(relabelled[k].left, detected[k].left);
            QCOMPARE(relabelled[k].top, detected[k].top);
        }
    }
}

#include "test_detect.moc"

// yolo9000's class tree on a six-class hierarchy: roots a, b; a's children c, d, e; b's child f. Each group
// is a softmax of its own, probabilities multiply down the tree, and the named class is where Darknet's
// walk stops (all values by hand).
void TestDetect::yolo9000HierarchyByHand()
{
    QTemporaryDir dir;
    const QString treePath = dir.filePath("six.tree");
    test::writeFile(treePath, "a -1\nb -1\nc 0\nd 0\ne 0\nf 1\n");
    std::string error;
    const auto tree = SoftmaxTree::load(treePath.toStdString(), error);
    QVERIFY2(tree, error.c_str());
    QCOMPARE(tree->groupOffset, (std::vector<int>{0, 2, 5}));
    QCOMPARE(tree->groupSize, (std::vector<int>{2, 3, 1}));
    QCOMPARE(tree->child, (std::vector<int>{1, 2, -1, -1, -1, -1}));

    // Group softmaxes: a, b = 1/4, 3/4; c, d, e = 1/4, 1/2, 1/4; f alone = 1.
    const std::vector<float> logits{0, std::log(3.0f), 0, std::log(2.0f), 0, 5};
    std::vector<float> p(6);
    treeSoftmax(logits.data(), p.data(), *tree, 1, 1.0f);
    const std::vector<float> conditional{0.25f, 0.75f, 0.25f, 0.5f, 0.25f, 1.0f};
    for (std::size_t i = 0; i < 6; ++i)
        QVERIFY2(std::abs(p[i] - conditional[i]) < 1e-6f,
                 qPrintable(QString("class %1: %2").arg(i).arg(p[i])));
    std::vector<float> absolute = p;
    hierarchyPredictions(absolute.data(), *tree, 1, false);
    const std::vector<float> expected{0.25f, 0.75f, 0.0625f, 0.125f, 0.0625f, 0.75f};
    for (std::size_t i = 0; i < 6; ++i)
        QVERIFY2(std::abs(absolute[i] - expected[i]) < 1e-6f, qPrintable(QString("class %1").arg(i)));
    // The walk: b (0.75 > t), then f (0.75 · 0.75 = 0.5625): f at t = 0.5, back to b at t = 0.6, and a
    // root at any t when even the best root is not above it.
    QCOMPARE(hierarchyTopPrediction(absolute.data(), *tree, 0.5f, 1), 5);
    QCOMPARE(hierarchyTopPrediction(absolute.data(), *tree, 0.6f, 1), 1);
    QCOMPARE(hierarchyTopPrediction(absolute.data(), *tree, 0.9f, 1), 1);

    // A [region] head with the tree on a 2×1 grid: its class planes go through the group softmaxes at each
    // cell, and the decoded box of cell 0 names f (objectness σ(2) > 0.25), with the objectness as score.
    const QString cfg = "[net]\nwidth=2\nheight=1\nchannels=11\n\n[region]\nclasses=6\ncoords=4\nnum=1\n"
                        "anchors=1,1\nsoftmax=1\ntree=" +
                        treePath + "\n";
    const NetworkSpec spec = test::specFromText(cfg.toStdString());
    QVERIFY2(spec.ok(), test::allText(spec.diagnostics).c_str());
    auto net = Net::create(spec, 1, error, Net::Use::InferenceOnly);
    QVERIFY2(net, error.c_str());
    std::vector<float> input(22, 0.0f); // plane-major: entry k of cell i at k·2 + i
    input[4 * 2 + 0] = 2;               // objectness of cell 0
    for (std::size_t c = 0; c < 6; ++c)
        input[(5 + c) * 2 + 0] = logits[c];
    const Tensor& out = net->forward(input.data());
    for (std::size_t c = 0; c < 6; ++c)
        QVERIFY(std::abs(out.data()[(5 + c) * 2] - conditional[c]) < 1e-6f);
    DecodeOptions options;
    options.threshold = 0.25f;
    const auto dets = decodeDetections(*net, 0, options);
    QCOMPARE(dets.size(), std::size_t(2));
    const float objectness = 1 / (1 + std::exp(-2.0f));
    QCOMPARE(dets[0].prob[5], objectness);
    QCOMPARE(std::count(dets[0].prob.begin(), dets[0].prob.end(), 0.0f), 5);

    // A classifier's scores after the tree softmax: the leaves' absolute probabilities, inner classes 0
    // (with a [cost] after the softmax, as darknet9000 ends).
    const QString classifier =
        "[net]\nwidth=1\nheight=1\nchannels=6\n\n[softmax]\ntree=" + treePath + "\n\n[cost]\ntype=masked\n";
    net = Net::create(test::specFromText(classifier.toStdString()), 1, error, Net::Use::InferenceOnly);
    QVERIFY2(net, error.c_str());
    net->forward(logits.data());
    const std::vector<float> scores = classScores(*net, 0);
    const std::vector<float> leaves{0, 0, 0.0625f, 0.125f, 0.0625f, 0.75f};
    for (std::size_t i = 0; i < 6; ++i)
        QVERIFY2(std::abs(scores[i] - leaves[i]) < 1e-6f, qPrintable(QString("class %1").arg(i)));

    // Problems name the line: a tree that cannot be read, one of the wrong size, a malformed line.
    const NetworkSpec missing = test::specFromText("[net]\nwidth=1\nheight=1\nchannels=6\n[softmax]\n"
                                                   "tree=/nonexistent/9k.tree\n");
    QVERIFY(test::findDiagnostic(missing.diagnostics, "test.cfg:6: error"));
    QVERIFY(test::findDiagnostic(missing.diagnostics, "/nonexistent/9k.tree: cannot read the class tree"));
    const NetworkSpec wrongSize = test::specFromText(
        ("[net]\nwidth=1\nheight=1\nchannels=7\n[softmax]\ntree=" + treePath + "\n").toStdString());
    QVERIFY2(
        test::findDiagnostic(wrongSize.diagnostics, "has 6 classes but the layer before outputs 7 values"),
        test::allText(wrongSize.diagnostics).c_str());
    QVERIFY(!SoftmaxTree::load("/dev/zero", error)); // not a regular file: refused before reading
    QVERIFY2(error.find("/dev/zero: cannot read the class tree") == 0, error.c_str());
    test::writeFile(dir.filePath("bad.tree"), "a -1\nb 7\n");
    QVERIFY(!SoftmaxTree::load(dir.filePath("bad.tree").toStdString(), error));
    QVERIFY2(error.find("bad.tree:2: expected \"name parent\"") != std::string::npos, error.c_str());

    // Debian's yolo9000.cfg (tree=/usr/share/darknet/data/9k.tree) now builds: 9418 classes in 3 levels.
    const NetworkSpec yolo9000 = buildNetworkSpec(cfg::Document::load("/usr/share/darknet/cfg/yolo9000.cfg"));
    QVERIFY2(yolo9000.ok(), test::allText(yolo9000.diagnostics).c_str());
    const auto* head = dynamic_cast<const RegionLayer*>(yolo9000.layers.back().config.get());
    QVERIFY(head && head->softmaxTree);
    QCOMPARE(head->softmaxTree->size(), 9418);
}
