// ONNX export against two peers: ONNX's own checker (Debian's python3-onnx, full_check with shape
// inference) accepts every file, and OpenCV DNN's ONNX reader (Debian's OpenCV 4.6) computes the same
// outputs as Netwright's forward pass on random weights and inputs (within 1e-4 of max(1, the output's
// largest |value|)).
#include "cfg/document.h"
#include "detect/decode.h"
#include "export/onnx_export.h"
#include "runtime/net.h"
#include "test_support.h"
#include "util/uniform_float.h"

#include <opencv2/dnn.hpp>

#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <random>

using namespace nw;
using namespace nw::test;

namespace {

// Random weights where initialise leaves identities: batch-norm statistics, biases, shortcut weights,
// so folding and every array's place are exercised.
std::unique_ptr<Net> randomNet(const NetworkSpec& spec, int batch, unsigned seed)
{
    std::string error;
    auto net = Net::create(spec, batch, error);
    if (!net)
        qFatal("%s", error.c_str());
    net->initialize(seed);
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> around1(0.5f, 1.5f), small(-0.1f, 0.1f);
    for (const WeightArray& array : net->weightArrays()) {
        const std::string name = array.name;
        for (float& v : *array.data)
            if (name == "scales" || name == "rolling_variance")
                v = around1(random);
            else if (name == "rolling_mean" || name == "biases")
                v = small(random);
            else if (name == "weights" && array.data->size() < 64) // [shortcut] weights
                v = around1(random);
    }
    // Residual blocks add their input to their output: with unit gains the signal doubles per block
    // (2^23 in yolov4), and float rounding alone then moves the heads' logits by more than 1. The
    // convolution before each [shortcut] gets a gain of 0.1, so values stay near 1.
    for (std::size_t i = 0; i + 1 < spec.layers.size(); ++i)
        if (spec.layers[i].type == "convolutional" && spec.layers[i + 1].type == "shortcut") {
            const std::vector<WeightArray> arrays = net->layerWeightArrays(int(i));
            bool normalized = false;
            for (const WeightArray& array : arrays)
                normalized = normalized || std::string(array.name) == "scales";
            for (const WeightArray& array : arrays)
                if (std::string(array.name) == (normalized ? "scales" : "weights"))
                    for (float& v : *array.data)
                        v *= 0.1f;
        }
    net->prepareAll();
    return net;
}

std::vector<float> randomInput(std::size_t n, unsigned seed)
{
    std::mt19937 random(seed);
    std::vector<float> input(n);
    for (float& v : input)
        v = uniformFloat(random, 0.0f, 1.0f);
    return input;
}

// The worst |ours − theirs| / max(1, largest |ours| of the tensor), and where. Deep networks (yolov4:
// 160 layers) sum rounding differences of every layer, so a small head value can be off by 1e-4 of
// the head's largest value (the summation order differs); that scale is what the tolerance is against.
struct Difference {
    double worst = 0;
    std::size_t at = 0;
};

Difference compare(const float* ours, const float* theirs, std::size_t n)
{
    double largest = 1;
    for (std::size_t i = 0; i < n; ++i)
        largest = std::max(largest, double(std::abs(ours[i])));
    Difference d;
    for (std::size_t i = 0; i < n; ++i) {
        const double e = std::abs(double(ours[i]) - double(theirs[i])) / largest;
        if (!(e <= d.worst)) { // NaN counts as worst
            d.worst = std::isnan(e) ? 1e30 : e;
            d.at = i;
        }
    }
    return d;
}

std::string exportOrFail(Net& net, const OnnxExportOptions& options)
{
    std::string bytes;
    OnnxExportReport report;
    if (auto error = buildOnnxModel(net, options, bytes, &report))
        qFatal("export failed: %s", error->c_str());
    return bytes;
}

// OpenCV DNN reads the model and runs `input`; its outputs by name. An exception (an operator it
// cannot read) fails the test with OpenCV's message.
struct PeerRun {
    std::vector<std::string> names;
    std::vector<cv::Mat> outputs;
    std::string error;
};

PeerRun runOpenCv(const std::string& bytes, const cv::Mat& input)
{
    PeerRun run;
    try {
        cv::dnn::Net peer = cv::dnn::readNetFromONNX(bytes.data(), bytes.size());
        peer.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        peer.setInput(input);
        run.names = peer.getUnconnectedOutLayersNames();
        peer.forward(run.outputs, run.names);
    } catch (const cv::Exception& e) {
        run.error = e.what();
    }
    return run;
}

cv::Mat outputNamed(const PeerRun& run, const std::string& name)
{
    for (std::size_t k = 0; k < run.names.size(); ++k)
        if (run.names[k] == name)
            return run.outputs[k];
    return {};
}

cv::Mat blobOf(const std::vector<float>& input, int batch, const Shape& shape)
{
    cv::Mat blob({batch, shape.c, shape.h, shape.w}, CV_32F);
    std::memcpy(blob.ptr<float>(), input.data(), input.size() * sizeof(float));
    return blob;
}

// What ONNX's checker (full_check: with shape inference) says against the model; empty when it
// accepts it.
QString checkerComplaint(const std::string& bytes)
{
    QTemporaryDir dir;
    const QString path = dir.filePath("model.onnx");
    writeFile(path, QByteArray(bytes.data(), qsizetype(bytes.size())));
    QProcess python;
    python.start("/usr/bin/python3", {"-c",
                                      "import onnx, sys\n"
                                      "onnx.checker.check_model(sys.argv[1], full_check=True)\n"
                                      "print('ok')",
                                      path});
    if (!python.waitForFinished(120000))
        return "python3 did not finish";
    if (python.exitCode() == 0 && python.readAllStandardOutput().trimmed() == "ok")
        return {};
    const QString complaint = QString::fromUtf8(python.readAllStandardError()).right(2000);
    return complaint.isEmpty() ? "python3 -c 'import onnx' failed (is python3-onnx installed?)" : complaint;
}

QString cfgPath(const QString& name)
{
    for (const QString& dir : {QString(DARKNET_CFG_DIR), QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs",
                               QString(NETWRIGHT_SOURCE_CFG_DIR), QString(NETWRIGHT_TEST_DATA_DIR) + "/onnx"})
        if (QFile::exists(dir + "/" + name))
            return dir + "/" + name;
    return {};
}

NetworkSpec specOf(const QString& path)
{
    return buildNetworkSpec(cfg::Document::load(path.toStdString()));
}

// The network as the comparisons with OpenCV run it: an input over 320 pixels (yolov2's 416, yolov4's
// 608) at 320, a multiple of every stride in these cfgs. The exported graph is the same at any size;
// at their own sizes those two rows were 60 of the suite's 140 s.
NetworkSpec comparedSpecOf(const QString& path)
{
    cfg::Document document = cfg::Document::load(path.toStdString());
    const NetworkSpec own = buildNetworkSpec(document);
    if (own.input.w <= 320 && own.input.h <= 320)
        return own;
    document.section(0).set("width", "320");
    document.section(0).set("height", "320");
    return buildNetworkSpec(document);
}

// One export checked by ONNX's checker and run by OpenCV DNN next to Netwright's forward pass.
struct Exported {
    NetworkSpec spec;
    std::unique_ptr<Net> net;
    std::vector<float> input;
    PeerRun peer;
    QString checker;        // the checker's complaint, empty when it accepted the file
    bool peersAsked = true; // false under the sanitizers: only the export and Netwright's pass ran
};

constexpr const char* kPeersInThePlainSuite =
    "exported and run under the sanitizers; ONNX's checker and OpenCV are asked by the plain suite";

Exported exportAndRun(const QString& cfg, const OnnxExportOptions& options, int batch, unsigned seed)
{
    Exported e;
    e.spec = comparedSpecOf(cfgPath(cfg));
    e.net = randomNet(e.spec, batch, seed);
    const std::string bytes = exportOrFail(*e.net, options);
    e.input = randomInput(std::size_t(batch) * std::size_t(e.spec.input.size), seed + 1);
    e.net->forward(e.input.data());
#ifdef NETWRIGHT_SANITIZE
    // The checker is another process and OpenCV is not instrumented: under the sanitizers they added
    // about a minute and nothing the sanitizers see. The plain suite compares every number.
    e.peersAsked = false;
    return e;
#endif
    e.checker = checkerComplaint(bytes);
    e.peer = runOpenCv(bytes, blobOf(e.input, batch, e.spec.input));
    return e;
}

} // namespace

class TestOnnxExport : public QObject {
    Q_OBJECT

private slots:
    void outputsMatchOpenCv_data();
    void outputsMatchOpenCv();
    void everyLayerMatchesOpenCv_data();
    void everyLayerMatchesOpenCv();
    void decodedBoxesMatchDecode_data();
    void decodedBoxesMatchDecode();
    void dynamicBatch();
    void unsavedNetworkExports();
    void flatInputExports();
    void everyOpsetIsChecked_data();
    void everyOpsetIsChecked();
    void refusalsNameTheLayer_data();
    void refusalsNameTheLayer();
    void commandLine();
    void everyCfgExportsOrIsRefusedByLine();
};

void TestOnnxExport::outputsMatchOpenCv_data()
{
    QTest::addColumn<QString>("cfg");
    for (const char* name :
         {"yolov3-tiny.cfg", "yolov2-tiny.cfg", "darknet19.cfg", "resnet18.cfg", "yolov2.cfg",
          "yolov4-tiny.cfg", "yolov4-tiny-3l.cfg", "yolov4.cfg", "fashion-mnist.cfg", "shapes-tiny.cfg",
          "yolov7-tiny-like.cfg", "every-op.cfg", "go.test.cfg", "se-block.cfg"})
        QTest::newRow(name) << QString(name);
}

void TestOnnxExport::outputsMatchOpenCv()
{
    QFETCH(QString, cfg);
    QVERIFY2(!cfgPath(cfg).isEmpty(), qPrintable(cfg + " not found"));
    if (tooLargeForSanitizers(specOf(cfgPath(cfg)).totalParams))
        QSKIP(kLargeUnderSanitizers);
    const Exported e = exportAndRun(cfg, {}, 1, 7);
    if (!e.peersAsked)
        QSKIP(kPeersInThePlainSuite);
    QVERIFY2(e.checker.isEmpty(), qPrintable(e.checker));
    QVERIFY2(e.peer.error.empty(), e.peer.error.c_str());
    const std::vector<std::string>& names = e.peer.names;
    const std::vector<cv::Mat>& outs = e.peer.outputs;
    const auto& net = e.net;
    QVERIFY(!outs.empty());
    std::size_t compared = 0;
    for (std::size_t k = 0; k < outs.size(); ++k) {
        // "yolo_16" is layer 16's output; "output" the net's.
        const std::string& name = names[k];
        const std::size_t underscore = name.rfind('_');
        const int layer = name == "output" ? net->outputLayer() : std::stoi(name.substr(underscore + 1));
        const Tensor& ours = net->output(layer);
        QCOMPARE(std::size_t(outs[k].total()), ours.size());
        const Difference d = compare(ours.data(), outs[k].ptr<float>(), ours.size());
        double largest = 0;
        for (float v : ours.span())
            largest = std::max(largest, double(std::abs(v)));
        qInfo("%s: worst relative difference %.3g, largest |value| %.3g", name.c_str(), d.worst, largest);
        QVERIFY2(d.worst <= 1e-4,
                 qPrintable(QString("%1: worst relative difference %2 at %3 (ours %4, OpenCV %5)")
                                .arg(QString::fromStdString(name))
                                .arg(d.worst)
                                .arg(d.at)
                                .arg(ours.data()[d.at])
                                .arg(outs[k].ptr<float>()[d.at])));
        compared += ours.size();
    }
    QVERIFY(compared > 0);
}

void TestOnnxExport::everyLayerMatchesOpenCv_data()
{
    QTest::addColumn<QString>("cfg");
    for (const char* name : {"every-op.cfg", "se-block.cfg", "yolov7-tiny-like.cfg", "yolov2.cfg",
                             "resnet18.cfg", "yolov4-tiny.cfg", "go.test.cfg"})
        QTest::newRow(name) << QString(name);
}

// Layer by layer: every layer's output exported as layer_<i> and compared with Netwright's, so a
// mistake deep inside a network cannot be averaged away by the layers after it.
void TestOnnxExport::everyLayerMatchesOpenCv()
{
    QFETCH(QString, cfg);
    if (tooLargeForSanitizers(specOf(cfgPath(cfg)).totalParams))
        QSKIP(kLargeUnderSanitizers);
    OnnxExportOptions options;
    options.everyLayer = true;
    const Exported e = exportAndRun(cfg, options, 1, 13);
    if (!e.peersAsked)
        QSKIP(kPeersInThePlainSuite);
    QVERIFY2(e.checker.isEmpty(), qPrintable(e.checker));
    QVERIFY2(e.peer.error.empty(), e.peer.error.c_str());
    int compared = 0;
    double worst = 0;
    for (std::size_t i = 0; i < e.spec.layers.size(); ++i) {
        const cv::Mat theirs = outputNamed(e.peer, "layer_" + std::to_string(i));
        if (e.spec.layers[i].type == "cost")
            continue; // an identity here; Darknet's [cost] output is the loss, not a tensor to deploy
        QVERIFY2(!theirs.empty(), qPrintable(QString("layer_%1 missing").arg(i)));
        const Tensor& ours = e.net->output(int(i));
        QCOMPARE(std::size_t(theirs.total()), ours.size());
        const Difference d = compare(ours.data(), theirs.ptr<float>(), ours.size());
        worst = std::max(worst, d.worst);
        QVERIFY2(d.worst <= 1e-4, qPrintable(QString("layer %1 [%2]: %3 at %4 (ours %5, OpenCV %6)")
                                                 .arg(i)
                                                 .arg(QString::fromStdString(e.spec.layers[i].type))
                                                 .arg(d.worst)
                                                 .arg(d.at)
                                                 .arg(ours.data()[d.at])
                                                 .arg(theirs.ptr<float>()[d.at])));
        ++compared;
    }
    qInfo("%d layers, worst %.3g", compared, worst);
}

void TestOnnxExport::decodedBoxesMatchDecode_data()
{
    QTest::addColumn<QString>("cfg");
    QTest::addColumn<int>("batch");
    for (const char* name : {"yolov3-tiny.cfg", "yolov2-tiny.cfg", "yolov4-tiny.cfg", "yolov7-tiny-like.cfg"})
        QTest::newRow(name) << QString(name) << 1;
    // A fixed batch of 2, the second image's rows: OpenCV refused the batch-1 grid ("eltwise_layer.cpp:
    // inputs[0][0]==inputs[i][0]").
    QTest::newRow("yolov3-tiny.cfg, batch 2") << QString("yolov3-tiny.cfg") << 2;
    QTest::newRow("yolov2-tiny.cfg, batch 2") << QString("yolov2-tiny.cfg") << 2;
}

// The in-graph decode against core/detect's decodeDetections (threshold −1: every candidate), row by row.
void TestOnnxExport::decodedBoxesMatchDecode()
{
    QFETCH(QString, cfg);
    QFETCH(int, batch);
    OnnxExportOptions options;
    options.withDecode = true;
    options.batch = batch;
    const Exported e = exportAndRun(cfg, options, batch, 11);
    if (!e.peersAsked)
        QSKIP(kPeersInThePlainSuite);
    QVERIFY2(e.checker.isEmpty(), qPrintable(e.checker));
    QVERIFY2(e.peer.error.empty(), e.peer.error.c_str());
    const NetworkSpec& spec = e.spec;
    const std::vector<Detection> ours = decodeDetections(*e.net, batch - 1, {-1.0f, false, 0, 0});
    const cv::Mat rows = outputNamed(e.peer, "detections");
    QCOMPARE(rows.dims, 3);
    QCOMPARE(rows.size[0], batch);
    const int count = rows.size[1], entries = rows.size[2];
    QCOMPARE(std::size_t(count), ours.size());
    // Ours: [yolo] anchor-major like the export; [region] cell-major: map the row index.
    std::size_t base = 0;
    std::vector<std::size_t> order(ours.size());
    for (const LayerSpec& layer : spec.layers) {
        if (layer.type != "yolo" && layer.type != "region")
            continue;
        const std::size_t plane = std::size_t(layer.output.w) * std::size_t(layer.output.h);
        const std::size_t anchors = std::size_t(layer.output.size) / plane / std::size_t(entries);
        for (std::size_t a = 0; a < anchors; ++a)
            for (std::size_t cell = 0; cell < plane; ++cell)
                order[base + a * plane + cell] =
                    base + (layer.type == "yolo" ? a * plane + cell : cell * anchors + a);
        base += anchors * plane;
    }
    double worst = 0;
    for (int r = 0; r < count; ++r) {
        const Detection& d = ours[order[std::size_t(r)]];
        const float* row = rows.ptr<float>(batch - 1) + std::size_t(r) * std::size_t(entries);
        std::vector<float> expected{d.box.x, d.box.y, d.box.w, d.box.h, d.objectness};
        expected.insert(expected.end(), d.prob.begin(), d.prob.end());
        QCOMPARE(int(expected.size()), entries);
        const Difference diff = compare(expected.data(), row, expected.size());
        worst = std::max(worst, diff.worst);
        QVERIFY2(diff.worst <= 1e-4, qPrintable(QString("row %1 entry %2: ours %3, OpenCV %4")
                                                    .arg(r)
                                                    .arg(diff.at)
                                                    .arg(expected[diff.at])
                                                    .arg(row[diff.at])));
    }
    qInfo("%d rows of %d, worst relative difference %.3g", count, entries, worst);
}

// The studio's File ▸ New has no file: the graph is named "netwright" (an empty name failed the checker,
// "Field 'name' of 'graph' is required to be non-empty").
void TestOnnxExport::unsavedNetworkExports()
{
    const NetworkSpec spec =
        test::specFromText("[net]\nwidth=8\nheight=8\nchannels=3\n[convolutional]\nfilters=4\nsize=3\n", "");
    QVERIFY2(spec.ok(), test::allText(spec.diagnostics).c_str());
    auto net = randomNet(spec, 1, 3);
    const std::string bytes = exportOrFail(*net, {});
    QCOMPARE(checkerComplaint(bytes), QString());
    QVERIFY(bytes.find("netwright") != std::string::npos);
}

// [net] inputs=10 (no image): the model's input is [1, 10] and OpenCV's output equals Netwright's. It
// was declared [1, 0, 0, 0], which the checker passed and no runtime could feed.
void TestOnnxExport::flatInputExports()
{
    const NetworkSpec spec = test::specFromText("[net]\ninputs=10\n[connected]\noutput=4\nactivation=tanh\n"
                                                "[connected]\noutput=3\nactivation=linear\n[softmax]\n",
                                                "flat.cfg");
    QVERIFY2(spec.ok(), test::allText(spec.diagnostics).c_str());
    auto net = randomNet(spec, 1, 5);
    const std::string bytes = exportOrFail(*net, {});
    QTemporaryDir dir;
    writeFile(dir.filePath("flat.onnx"), QByteArray(bytes.data(), qsizetype(bytes.size())));
    QProcess python;
    python.start("/usr/bin/python3",
                 {"-c",
                  "import onnx, sys\n"
                  "m = onnx.load(sys.argv[1])\n"
                  "print([d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim])",
                  dir.filePath("flat.onnx")});
    QVERIFY(python.waitForFinished(120000));
    QCOMPARE(python.readAllStandardOutput().trimmed(), QByteArray("[1, 10]"));
#ifndef NETWRIGHT_SANITIZE
    const std::vector<float> input = randomInput(10, 6);
    net->forward(input.data());
    cv::Mat blob(1, 10, CV_32F);
    std::memcpy(blob.ptr<float>(), input.data(), input.size() * sizeof(float));
    const PeerRun peer = runOpenCv(bytes, blob);
    QVERIFY2(peer.error.empty(), peer.error.c_str());
    QCOMPARE(std::size_t(peer.outputs.at(0).total()), std::size_t(3));
    const Difference d = compare(net->output().data(), peer.outputs[0].ptr<float>(), 3);
    QVERIFY2(d.worst <= 1e-5, qPrintable(QString::number(d.worst)));
#endif
}

// batch=dynamic: one file runs batches of 1 and 3.
void TestOnnxExport::dynamicBatch()
{
    OnnxExportOptions options;
    options.batch = 0;
    const Exported e = exportAndRun("shapes-tiny.cfg", options, 3, 2);
    if (!e.peersAsked)
        QSKIP(kPeersInThePlainSuite);
    QVERIFY2(e.checker.isEmpty(), qPrintable(e.checker));
    QVERIFY2(e.peer.error.empty(), e.peer.error.c_str());
    const std::vector<std::string>& names = e.peer.names;
    const std::vector<cv::Mat>& outs = e.peer.outputs;
    const auto& net = e.net;
    QCOMPARE(outs.size(), std::size_t(2));
    for (std::size_t k = 0; k < outs.size(); ++k) {
        const int layer = std::stoi(names[k].substr(names[k].rfind('_') + 1));
        QCOMPARE(outs[k].size[0], 3);
        const Tensor& ours = net->output(layer);
        QCOMPARE(std::size_t(outs[k].total()), ours.size());
        QVERIFY(compare(ours.data(), outs[k].ptr<float>(), ours.size()).worst <= 1e-4);
    }
}

void TestOnnxExport::everyOpsetIsChecked_data()
{
    QTest::addColumn<int>("opset");
    for (int opset = kMinOnnxOpset; opset <= kMaxOnnxOpset; ++opset)
        QTest::newRow(qPrintable(QString::number(opset))) << opset;
}

// Every opset the exporter offers, on the net with the most operator kinds and on a decoded detector.
void TestOnnxExport::everyOpsetIsChecked()
{
    QFETCH(int, opset);
    OnnxExportOptions options;
    options.opset = opset;
    const Exported plain = exportAndRun("every-op.cfg", options, 1, 4);
    options.withDecode = true;
    const Exported decoded = exportAndRun("yolov7-tiny-like.cfg", options, 1, 4);
    if (!plain.peersAsked)
        QSKIP(kPeersInThePlainSuite);
    QVERIFY2(plain.checker.isEmpty(), qPrintable(plain.checker));
    QVERIFY2(plain.peer.error.empty(), plain.peer.error.c_str());
    const cv::Mat out = outputNamed(plain.peer, "output");
    const Tensor& ours = plain.net->output();
    QCOMPARE(std::size_t(out.total()), ours.size());
    QVERIFY(compare(ours.data(), out.ptr<float>(), ours.size()).worst <= 1e-4);

    QVERIFY2(decoded.checker.isEmpty(), qPrintable(decoded.checker));
    QVERIFY2(decoded.peer.error.empty(), decoded.peer.error.c_str());
    QCOMPARE(outputNamed(decoded.peer, "detections").size[1], 3 * (24 * 24 + 12 * 12));
}

void TestOnnxExport::refusalsNameTheLayer_data()
{
    QTest::addColumn<QString>("layerText");
    QTest::addColumn<QString>("expected");
    const QString head =
        "[net]\nwidth=16\nheight=16\nchannels=3\n\n[convolutional]\nfilters=4\nsize=3\npad=1\n"
        "activation=leaky\n\n";
    QTest::newRow("local") << head + "[local]\nfilters=4\nsize=3\nactivation=leaky\n"
                           << "net.cfg:12: layer 1 [local] has no ONNX form";
    QTest::newRow("stair") << head + "[convolutional]\nfilters=4\nsize=1\nactivation=stair\n"
                           << "net.cfg:12: layer 1 [convolutional] activation=stair has no ONNX form";
    QTest::newRow("downsampling upsample") << head + "[upsample]\nstride=-2\n"
                                           << "net.cfg:12: layer 1 [upsample] a negative stride";
    QTest::newRow("smaller shortcut source")
        << "[net]\nwidth=16\nheight=16\nchannels=3\n\n[convolutional]\nfilters=4\nsize=3\nstride=2\npad=1\n"
           "activation=leaky\n\n[upsample]\nstride=2\n\n[shortcut]\nfrom=-2\n"
        << "net.cfg:16: layer 2 [shortcut] adding layer 0 (8x8x4) to a 16x16x4 output";
}

void TestOnnxExport::refusalsNameTheLayer()
{
    QFETCH(QString, layerText);
    QFETCH(QString, expected);
    const NetworkSpec spec = specFromText(layerText.toStdString(), "net.cfg");
    QVERIFY2(spec.ok(), allText(spec.diagnostics).c_str());
    std::string error;
    auto net = Net::create(spec, 1, error);
    QVERIFY2(net, error.c_str());
    std::string bytes;
    const auto refusal = buildOnnxModel(*net, {}, bytes);
    QVERIFY(refusal);
    QVERIFY2(QString::fromStdString(*refusal).startsWith(expected), refusal->c_str());
    QVERIFY(bytes.empty());
}

// netwright-cli export-onnx: the file, the report, and bad options refused.
void TestOnnxExport::commandLine()
{
    QTemporaryDir dir;
    const QString cfg = cfgPath("shapes-tiny.cfg"), weights = dir.filePath("w.weights"),
                  model = dir.filePath("m.onnx");
    QCOMPARE(cli({"init", cfg, weights, "--seed", "3"}).exitCode, 0);
    Run run =
        cli({"export-onnx", cfg, weights, model, "--with-decode", "--batch", "dynamic", "--opset", "13"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.out.contains("output detections [batch, 540, 10]"), run.out.constData());
    const QString complaint = checkerComplaint(readAll(model).toStdString());
    QVERIFY2(complaint.isEmpty(), qPrintable(complaint));

    run = cli({"export-onnx", cfg, weights, dir.filePath("x.onnx"), "--opset", "9"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("opset 9 is not supported: choose 11 to 17"), run.err.constData());
    run = cli({"export-onnx", cfg, weights, dir.filePath("x.onnx"), "--opset", "-2"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("opset -2 is not supported: choose 11 to 17"), run.err.constData());
    run = cli({"export-onnx", "--help"});
    QVERIFY2(run.out.contains("ONNX opset, 11 to 17") && !run.out.contains("1000"), run.out.constData());
    run = cli({"export-onnx", cfg, weights, dir.filePath("x.onnx"), "--batch", "two"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("--batch two: give a number from 1 to 65536, or dynamic"), run.err.constData());
    run = cli({"export-onnx", cfgPath("darknet19.cfg"), weights, dir.filePath("x.onnx")});
    QCOMPARE(run.exitCode, 1); // another network's weights
    QVERIFY(!QFile::exists(dir.filePath("x.onnx")));
    const QString classifierWeights = dir.filePath("fashion.weights");
    QCOMPARE(cli({"init", cfgPath("fashion-mnist.cfg"), classifierWeights}).exitCode, 0);
    run = cli({"export-onnx", cfgPath("fashion-mnist.cfg"), classifierWeights, dir.filePath("x.onnx"),
               "--with-decode"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("fashion-mnist.cfg has no [yolo] or [region] head"), run.err.constData());
    // A recurrent network is refused for its layer (it was refused for its batch of 1 image, with advice
    // that did not help: "use a multiple of 576").
    const QString rnn = "/usr/share/darknet/cfg/rnn.train.cfg", rnnWeights = dir.filePath("rnn.weights");
    QCOMPARE(cli({"init", rnn, rnnWeights}).exitCode, 0);
    run = cli({"export-onnx", rnn, rnnWeights, dir.filePath("x.onnx")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("rnn.train.cfg:14: layer 0 [rnn] has no ONNX form"), run.err.constData());
}

// Every cfg Debian's Darknet ships, AlexeyAB's samples and the bundled ones (up to 30 M parameters,
// so the suite stays quick): the model is written and passes ONNX's checker and strict shape inference,
// or the export is refused naming the file, line and layer. Nothing else, never a crash.
void TestOnnxExport::everyCfgExportsOrIsRefusedByLine()
{
    int exported = 0, refused = 0;
    QStringList refusals;
    // Up to 30 M parameters; 12 M under the sanitizers, where copying the larger networks' weights into
    // their models took 44 s and passed through no code the smaller ones do not (the plain suite runs all).
#ifdef NETWRIGHT_SANITIZE
    constexpr long long kMostParameters = 12'000'000;
    constexpr int kLeastExported = 15;
#else
    constexpr long long kMostParameters = 30'000'000;
    constexpr int kLeastExported = 20;
#endif
    for (const QStringList& list : {darknetCfgs(), abCfgs(), bundledCfgs()})
        for (const QString& path : list) {
            const NetworkSpec spec = specOf(path);
            if (!spec.ok() || spec.totalParams > kMostParameters)
                continue;
            std::string error;
            auto net = Net::create(spec, 1, error, Net::Use::InferenceOnly);
            if (!net) // a layer the runtime cannot run yet ([reorg3d]) or a recurrent cfg's batch of 1
                      // (time_steps > 1): not the exporter's question
                continue;
            std::string bytes;
            OnnxExportOptions options;
            options.everyLayer = true; // every layer's declared dims checked by the strict inference
            const auto refusal = buildOnnxModel(*net, options, bytes);
            if (!refusal) {
                QVERIFY(bytes.size() > 100);
                ++exported;
                continue;
            }
            const QString text = QString::fromStdString(*refusal);
            const QString file = path; // (as given: the other commands' messages name a cfg so)
            QVERIFY2(
                QRegularExpression("^" + QRegularExpression::escape(file) + R"(:\d+: layer \d+ \[\w+\] )")
                    .match(text)
                    .hasMatch(),
                qPrintable(text));
            refusals << text.left(text.indexOf(" (exported"));
            ++refused;
        }
    qInfo("%d exported, %d refused:\n%s", exported, refused, qPrintable(refusals.join('\n')));
    QVERIFY(exported >= kLeastExported);
}

QTEST_GUILESS_MAIN(TestOnnxExport)
#include "test_onnx_export.moc"
