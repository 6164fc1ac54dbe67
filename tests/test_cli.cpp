// netwright-cli as a user runs it: summary (table and JSON), roundtrip, exit codes and error text.
#include "cfg/document.h"
#include "runtime/net.h"
#include "test_support.h"
#include "train/run_folder_lock.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <sys/stat.h>

using namespace nw;

namespace {

using test::cli;
using test::Run;

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& content)
{
    QFile file(dir.filePath(name));
    if (file.open(QIODevice::WriteOnly))
        file.write(content);
    return file.fileName();
}

// The libraries the dynamic loader opens for a command (it names every one under LD_DEBUG=files).
QByteArray librariesOpened(const QStringList& arguments, int expectedExit)
{
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("LD_DEBUG", "files");
    process.setProcessEnvironment(environment);
    process.start(NETWRIGHT_CLI, arguments);
    const bool finished = process.waitForFinished(300000);
    const QByteArray log = process.readAllStandardError();
    if (!finished || process.exitStatus() != QProcess::NormalExit || process.exitCode() != expectedExit)
        qFatal("netwright-cli %s did not exit with %d", qPrintable(arguments.join(' ')), expectedExit);
    return log;
}

bool opens(const QByteArray& log, const char* library)
{
    return log.contains(QByteArray("file=") + library) || log.contains(QByteArray("/") + library);
}

// A two-class classifier of 8×8 images (dir/pets.cfg) with random weights (dir/pets.weights).
std::pair<QString, QString> tinyClassifier(const QTemporaryDir& dir)
{
    const QString cfg = dir.filePath("pets.cfg"), weights = dir.filePath("pets.weights");
    test::writeFile(cfg, "[net]\nbatch=1\nwidth=8\nheight=8\nchannels=3\n[connected]\noutput=2\n"
                         "activation=linear\n[softmax]\n");
    if (test::cli({"init", cfg, weights}).exitCode != 0)
        qFatal("netwright-cli init %s failed", qPrintable(cfg));
    return {cfg, weights};
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void summaryJsonDescribesEveryLayer();
    void detectLetterboxesWhenTheCfgSays();
    void detectSavesLabelsWhereTrainingReadsThem();
    void namesBeyondAsciiKeepColumnsInLine();
    void anchorsLeaveOutWhatTrainingDrops();
    void darknetHabitsAreAnsweredInWords();
    void summaryTableHasEveryLayerAndTotals();
    void summaryNamesLayersTheGpuCannotRun();
    void batchOptionScalesMemory();
    void brokenCfgExitsNonZeroWithFileAndLine();
    void missingFileIsReported();
    void roundtripWritesTheSameBytes();
    void filesWrittenToStdoutHoldNoReport();
    void setClassesWritesEveryHead();
    void usageErrorsExitWithTwo();
    void benchReportsLatencyMemoryAndBlasKernels();
    void initWritesWeightsThatLoad();
    void hostileInputsGetClearErrors();
    void unreadableImagesAreNamedNotScored();
    void namesNotInUtf8AreSaidByEveryCommand();
    void anotherNetworksWeightsAreRefused();
    void nonFiniteInputIsNamed();
    void unwritableResultsFail();
    void devicesListsGpusOrSaysWhyNone();
    void runsComparesAFoldersRuns();
    void deviceChoiceIsCheckedBeforeWork();
    void detectReadsPathsFromStdin();
    void imageAndVideoLibrariesLoadWhenUsed();
};

void TestCli::summaryJsonDescribesEveryLayer()
{
    const QString path = QString(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg";
    const Run run = cli({"summary", path, "--json"});
    QCOMPARE(run.exitCode, 0);
    QJsonParseError error;
    const QJsonObject root = QJsonDocument::fromJson(run.out, &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);
    const QJsonArray layers = root["layers"].toArray();
    QCOMPARE(layers.size(), 24);
    const QJsonObject first = layers[0].toObject();
    QCOMPARE(first["type"].toString(), QString("convolutional"));
    QCOMPARE(first["input"].toArray(), QJsonArray({416, 416, 3}));
    QCOMPARE(first["output"].toArray(), QJsonArray({416, 416, 16}));
    QCOMPARE(root["inputs"].toInteger(), 416 * 416 * 3);
    QCOMPARE(QString::number(first["bflops"].toDouble(), 'f', 3), QString("0.150"));
    QCOMPARE(first["params"].toInteger(), 16 * 3 * 9 + 16);
    QCOMPARE(first["workspace_bytes"].toInteger(), 416LL * 416 * 9 * 3 * 4);
    QCOMPARE(layers[16].toObject()["type"].toString(), QString("yolo"));
    QCOMPARE(layers[20].toObject()["sources"].toArray(), QJsonArray({19, 8}));
    // Totals equal the sum and the maximum of the layers' own figures.
    double bflops = 0;
    qint64 workspace = 0;
    for (const QJsonValue& layer : layers) {
        bflops += layer.toObject()["bflops"].toDouble();
        workspace = std::max(workspace, layer.toObject()["workspace_bytes"].toInteger());
    }
    QCOMPARE(root["total_bflops"].toDouble(), bflops);
    QCOMPARE(root["max_workspace_bytes"].toInteger(), workspace);
    QCOMPARE(root["errors"].toArray().size(), 0);
    QCOMPARE(root["warnings"].toArray().size(), 0);
    QVERIFY(first["shape_known"].toBool());

    // Behind an error the shapes are null, as the table's "?" (they were [0,0,0] beside "valid": true);
    // a file that cannot be read still gives JSON, with its error (stdout was empty).
    QTemporaryDir dir;
    test::writeFile(dir.filePath("typo.cfg"), "[net]\nwidth=8\nheight=8\nchannels=3\n\n[maxpoool]\n\n"
                                              "[convolutional]\nfilters=2\nsize=1\n");
    const Run typo = cli({"summary", dir.filePath("typo.cfg"), "--json"});
    QCOMPARE(typo.exitCode, 1);
    const QJsonArray typoLayers = QJsonDocument::fromJson(typo.out).object()["layers"].toArray();
    QCOMPARE(typoLayers.size(), 2);
    QVERIFY(typoLayers[1].toObject()["input"].isNull() && typoLayers[1].toObject()["output"].isNull());
    QVERIFY(!typoLayers[1].toObject()["shape_known"].toBool());
    const Run missing = cli({"summary", dir.filePath("missing.cfg"), "--json"});
    QCOMPARE(missing.exitCode, 1);
    const QJsonArray errors = QJsonDocument::fromJson(missing.out).object()["errors"].toArray();
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors[0].toObject()["text"].toString().contains("missing.cfg: error: no such file"),
             missing.out.constData());
}

void TestCli::summaryTableHasEveryLayerAndTotals()
{
    const Run run = cli({"summary", QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg"});
    QCOMPARE(run.exitCode, 0);
    const QStringList lines = QString(run.out).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + 7 + 1 + 1);
    QVERIFY(lines[0].contains("BFLOPs"));
    QVERIFY(lines[1].contains("convolutional") && lines[1].contains("28x28x1") &&
            lines[1].contains("28x28x32"));
    QVERIFY(lines[7].contains("softmax"));
    QVERIFY(lines[8].startsWith("Total:"));
    QVERIFY(lines[9].startsWith("GPU: "));
    QVERIFY(run.err.isEmpty());

    // A route over 60 layers: its row whole, with its params column (rows were cut at 256 bytes, and
    // past about 60 entries joined the next row); its sources by number, as Darknet prints them.
    QTemporaryDir dir;
    QByteArray wide = "[net]\nwidth=8\nheight=8\nchannels=1\n";
    QByteArray layers;
    for (int i = 0; i < 60; ++i) {
        wide += "[convolutional]\nfilters=1\nsize=1\n";
        layers += (i ? "," : "") + QByteArray::number(i);
    }
    wide += "[route]\nlayers=" + layers + "\n[convolutional]\nfilters=2\nsize=1\n";
    const Run wideRun = cli({"summary", writeFile(dir, "wide.cfg", wide)});
    QCOMPARE(wideRun.exitCode, 0);
    const QStringList wideLines = QString(wideRun.out).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(wideLines.size(), 1 + 62 + 1 + 1);
    QVERIFY2(wideLines[61].contains("route") &&
                 wideLines[61].contains(QByteArray(layers).replace(',', ' ') + " ") &&
                 wideLines[61].contains("8x8x60") && wideLines[61].trimmed().endsWith(" 0"),
             qPrintable(wideLines[61]));
    QVERIFY(wideLines[62].contains("convolutional") && wideLines[62].contains(" 122 "));
}

// summary names the layers the CUDA backend cannot run or train yet (a GPU run is never silently
// partial): here a dilated convolution whose padding changes its size (cuDNN and Darknet size it
// differently); and that yolov1 (local, detection), the recurrent layers, LRN, down-sampling and the
// networks made to check the GPU layers have every layer there.
void TestCli::summaryNamesLayersTheGpuCannotRun()
{
    const bool cuda = QJsonDocument::fromJson(cli({"devices", "--json"}).out).object()["cuda_built"].toBool();
    QTemporaryDir dir;
    const QString dilated = dir.filePath("dilated.cfg");
    test::writeFile(dilated,
                    "[net]\nwidth=12\nheight=12\nchannels=3\n\n[convolutional]\nfilters=4\nsize=3\n"
                    "pad=0\ndilation=2\nactivation=leaky\n\n[convolutional]\nfilters=2\nsize=1\n"
                    "activation=linear\n\n[convolutional]\nfilters=2\nsize=3\npadding=0\ndilation=3\n");
    const Run json = cli({"summary", dilated, "--json"});
    QCOMPARE(json.exitCode, 0);
    const QJsonObject gpu = QJsonDocument::fromJson(json.out).object()["gpu"].toObject();
    QCOMPARE(gpu["cuda_built"].toBool(), cuda);
    if (!cuda) {
        QVERIFY(cli({"summary", dilated}).out.contains("GPU: this build has no CUDA backend"));
        QSKIP("built without CUDA: nothing more to name");
    }
    QCOMPARE(gpu["inference_missing"].toArray(),
             (QJsonArray{"layer 0 [convolutional] (line 6)", "layer 2 [convolutional] (line 18)"}));
    QCOMPARE(gpu["training_missing"].toArray(), gpu["inference_missing"].toArray());
    const Run table = cli({"summary", dilated});
    QVERIFY2(table.out.contains("GPU: no GPU version yet for layer 0 [convolutional] (line 6), layer 2 "
                                "[convolutional] (line 18) (runs on the CPU only)"),
             table.out.constData());
    // (and the networks the gpu tests check layer by layer, whose point is every layer on the GPU)
    const QString gpuData = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../tests/data/";
    for (const QString& everything :
         {QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg",
          QString("/usr/share/darknet/cfg/yolov2.cfg"), QString("/usr/share/darknet/cfg/alexnet.cfg"),
          gpuData + "gpu/attention-layers.cfg", gpuData + "gpu/multilabel.cfg", gpuData + "onnx/se-block.cfg",
          QString("/usr/share/darknet/cfg/vgg-16.cfg"), gpuData + "onnx/every-op.cfg",
          gpuData + "gpu/deconvolution.cfg", QString("/usr/share/darknet/cfg/yolov1.cfg"),
          gpuData + "gpu/recurrent.cfg", QString("/usr/share/darknet/cfg/rnn.cfg"),
          QString("/usr/share/darknet/cfg/gru.cfg"), gpuData + "parity/lstm.cfg",
          gpuData + "parity/deconv-crnn.cfg", gpuData + "parity/mixed.cfg",
          gpuData + "gpu/normalization-resampling.cfg"})
        QVERIFY2(cli({"summary", everything}).out.contains("GPU: runs and trains every layer"),
                 qPrintable(everything));
    // yolo9000's tree does not train anywhere (said as such, not as a GPU gap); on the GPU its heads run
    // (darknet9000's tree softmax too)
    for (const auto& [tree, layer] :
         {std::pair{QString("darknet9000"), QString("layer 25 [softmax] (line 199)")},
          std::pair{QString("yolo9000"), QString("layer 24 [region] (line 198)")}}) {
        const Run summary = cli({"summary", "/usr/share/darknet/cfg/" + tree + ".cfg"});
        QVERIFY2(
            summary.out.contains("GPU: runs every layer; " + layer.toUtf8() + " cannot train on any device"),
            summary.out.right(300).constData());
    }
}

void TestCli::batchOptionScalesMemory()
{
    const QString path = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg";
    const auto memory = [&](const QString& batch) {
        const Run run = cli({"summary", path, "--json", "--batch", batch});
        return QJsonDocument::fromJson(run.out).object()["memory_bytes"].toInteger();
    };
    QCOMPARE(memory("128"), 128 * memory("1"));
    QCOMPARE(cli({"summary", path, "--batch", "0"}).exitCode, 2);
}

void TestCli::brokenCfgExitsNonZeroWithFileAndLine()
{
    QTemporaryDir dir;
    const QString path =
        writeFile(dir, "bad.cfg", "[net]\nwidth=8\nheight=8\nchannels=3\n[convolutional]\nfilters=x\n");
    const Run run = cli({"summary", path, "--json"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(path.toUtf8() + ":6: error: layer 0: bad number for 'filters'"),
             run.err.constData());
    const QJsonObject root = QJsonDocument::fromJson(run.out).object();
    QCOMPARE(root["errors"].toArray().size(), 1);
    QCOMPARE(root["errors"].toArray()[0].toObject()["line"].toInt(), 6);
}

void TestCli::missingFileIsReported()
{
    const Run run = cli({"summary", "/nonexistent/net.cfg"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.err.contains("/nonexistent/net.cfg: error: no such file (expected a cfg file)"));
    QVERIFY(run.out.isEmpty());

    // Installed (bin/ beside share/netwright/), a bundled network named from another folder: where it is.
    QTemporaryDir prefix;
    QVERIFY(QDir(prefix.path()).mkpath("bin") && QDir(prefix.path()).mkpath("share/netwright/cfg"));
    QVERIFY(QFile::copy(NETWRIGHT_CLI, prefix.filePath("bin/netwright-cli")));
    QVERIFY(QFile::copy(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg",
                        prefix.filePath("share/netwright/cfg/shapes-tiny.cfg")));
    QProcess installed;
    installed.setWorkingDirectory(QDir::tempPath());
    installed.start(prefix.filePath("bin/netwright-cli"), {"summary", "shapes-tiny.cfg"});
    QVERIFY(installed.waitForFinished(60000));
    QCOMPARE(installed.exitCode(), 1);
    const QByteArray err = installed.readAllStandardError();
    QVERIFY2(err.contains(
                 "shapes-tiny.cfg: error: no such file (expected a cfg file); Netwright's bundled one is " +
                 prefix.filePath("share/netwright/cfg/shapes-tiny.cfg").toUtf8()),
             err.constData());
    // Only where such a file is expected: not for an image, nor for a file to be written.
    installed.start(prefix.filePath("bin/netwright-cli"),
                    {"forward", QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg",
                     QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights",
                     "--input", "shapes-tiny.cfg"});
    QVERIFY(installed.waitForFinished(60000));
    const QByteArray imageErr = installed.readAllStandardError();
    QVERIFY2(imageErr.contains("shapes-tiny.cfg") && !imageErr.contains("bundled"), imageErr.constData());
}

// OUT given as /dev/stdout (`set-classes a.cfg 3 /dev/stdout > b.cfg`): the file alone on stdout, the
// report on stderr (it was appended to the cfg, the weights and the ONNX model, which no longer loaded).
void TestCli::filesWrittenToStdoutHoldNoReport()
{
    QTemporaryDir dir;
    const QString cfg = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    const QString weights = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights";
    const Run classes = cli({"set-classes", cfg, "3", "/dev/stdout"});
    QVERIFY2(classes.exitCode == 0, classes.err.constData());
    QVERIFY2(classes.err.contains("wrote /dev/stdout (3 classes)"), classes.err.constData());
    QVERIFY(!classes.out.contains("wrote"));
    test::writeFile(dir.filePath("three.cfg"), classes.out);
    const Run summary = cli({"summary", dir.filePath("three.cfg")});
    QVERIFY2(summary.exitCode == 0, summary.err.constData());
    // partial: the bytes of the same cut written to a file.
    const Run toStdout = cli({"partial", cfg, weights, "/dev/stdout", "5"});
    QVERIFY2(toStdout.exitCode == 0, toStdout.err.constData());
    QVERIFY2(toStdout.err.contains("/dev/stdout: layers 0..4 of"), toStdout.err.constData());
    QCOMPARE(cli({"partial", cfg, weights, dir.filePath("five.weights"), "5"}).exitCode, 0);
    QCOMPARE(toStdout.out, test::readAll(dir.filePath("five.weights")));
    // NaN in the weights a backbone is cut from is said (it passed on unsaid).
    QByteArray nan = test::readAll(weights);
    const float notANumber = std::numeric_limits<float>::quiet_NaN();
    for (int i = 0; i < 4; ++i) // layer 0's first biases, after the 20-byte header
        std::memcpy(nan.data() + 20 + i * 4, &notANumber, 4);
    test::writeFile(dir.filePath("nan.weights"), nan);
    const Run fromNan = cli({"partial", cfg, dir.filePath("nan.weights"), dir.filePath("nan5.weights"), "5"});
    QVERIFY2(fromNan.exitCode == 0 && fromNan.err.contains("4 of 16 values of 'biases' are NaN or infinite"),
             fromNan.err.constData());
}

void TestCli::roundtripWritesTheSameBytes()
{
    QTemporaryDir dir;
    const QString in = QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/yolov4.cfg";
    const QString out = dir.filePath("copy.cfg");
    const Run run = cli({"roundtrip", in, out});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(test::readAll(out), test::readAll(in));
    // A missing folder is named as such, with the user's file, not the temporary one written first.
    const Run missing = cli({"roundtrip", in, dir.filePath("no/such/out.cfg")});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains(("cannot write " + dir.filePath("no/such/out.cfg") + ": the folder " +
                                   dir.filePath("no/such") + " does not exist")
                                      .toUtf8()),
             missing.err.constData());
    QVERIFY(!missing.err.contains(".tmp-"));
}

// yolov4-tiny to a 5-class .data: each edit printed with its line, only those lines changed, the
// result trains on that .data's classes (summary clean); the input is never written over.
void TestCli::setClassesWritesEveryHead()
{
    QTemporaryDir dir;
    const QString in = QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/yolov4-tiny.cfg";
    const QString data = writeFile(dir, "obj.data", "classes = 5\ntrain = train.txt\n");
    const QString out = dir.filePath("obj.cfg");
    const Run run = cli({"set-classes", in, data, out, "--schedule"});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.out, (in + ":21: [net]: max_batches=10000 (was 2000200)\n" + in +
                       ":23: [net]: steps=8000,9000 (was 1600000,1800000)\n" + in +
                       ":221: layer 29 [convolutional]: filters=30 (was 255)\n" + in +
                       ":229: layer 30 [yolo]: classes=5 (was 80)\n" + in +
                       ":274: layer 36 [convolutional]: filters=30 (was 255)\n" + in +
                       ":280: layer 37 [yolo]: classes=5 (was 80)\nwrote " + out + " (5 classes)\n")
                          .toUtf8());
    const QList<QByteArray> before = test::readAll(in).split('\n'), after = test::readAll(out).split('\n');
    QCOMPARE(after.size(), before.size());
    QList<int> changed;
    for (int i = 0; i < before.size(); ++i)
        if (before[i] != after[i])
            changed << i + 1;
    QCOMPARE(changed, (QList<int>{21, 23, 221, 229, 274, 280}));
    QCOMPARE(after[220], QByteArray("filters=30"));
    QCOMPARE(cli({"summary", out}).exitCode, 0);
    // Never shorter than the training images (AlexeyAB's rule too): 12,000 listed images, 12,000 iterations.
    QByteArray listed;
    for (int i = 0; i < 12000; ++i)
        listed += "img" + QByteArray::number(i) + ".jpg\n";
    test::writeFile(dir.filePath("train.txt"), listed);
    const Run many = cli({"set-classes", in, data, dir.filePath("many.cfg"), "--schedule"});
    QVERIFY2(many.out.startsWith((in + ":21: [net]: max_batches=12000 (was 2000200)\n" + in +
                                  ":23: [net]: steps=9600,10800 (was 1600000,1800000)\n")
                                     .toUtf8()),
             many.out.constData());
    // That list is an input too: the new cfg is not written over it (it was, the list lost).
    const Run overTheList = cli({"set-classes", in, data, dir.filePath("train.txt"), "--schedule"});
    QCOMPARE(overTheList.exitCode, 1);
    QVERIFY2(overTheList.err.contains("is also the input"), overTheList.err.constData());
    QCOMPARE(test::readAll(dir.filePath("train.txt")), listed);
    // A warm-up in the steps (scales above 1) is kept before the new decays: it was reset to .1,.1, the
    // peak rate 20 times lower (yolov1-tiny), or a ramp lost (yolov2-tiny-voc's .1 then 10).
    for (const auto& [cfg, line, steps] :
         {std::tuple{"yolov1-tiny.cfg",
                     ":20:", "steps=200,400,600,800,4800,5400 (was 200,400,600,800,20000,30000)"},
          std::tuple{"yolov2-tiny-voc.cfg", ":21:", "steps=-1,100,4800,5400 (was -1,100,20000,30000)"}}) {
        const QString darknetCfg = QString(DARKNET_CFG_DIR) + "/" + cfg;
        const Run warm = cli({"set-classes", darknetCfg, "3", dir.filePath("warm.cfg"), "--schedule"});
        QVERIFY2(warm.exitCode == 0, warm.err.constData());
        QVERIFY2(warm.out.contains((darknetCfg + line + " [net]: " + steps + "\n").toUtf8()),
                 warm.out.constData());
        QVERIFY2(!warm.out.contains("scales="), warm.out.constData());
    }

    const Run over = cli({"set-classes", out, "3", out});
    QCOMPARE(over.exitCode, 1);
    QVERIFY2(over.err.contains("is also the input"), over.err.constData());
    const Run word = cli({"set-classes", in, "five", dir.filePath("x.cfg")});
    QCOMPARE(word.exitCode, 1);
    QVERIFY2(word.err.startsWith("error: five is not a number of classes, nor a .data file with classes=: "),
             word.err.constData());
    QVERIFY(!QFile::exists(dir.filePath("x.cfg")));
    // The .data file is an input too (it was written over with the cfg).
    const Run overData = cli({"set-classes", in, data, data});
    QCOMPARE(overData.exitCode, 1);
    QVERIFY2(overData.err.contains("is also the input " + data.toUtf8()), overData.err.constData());
    QCOMPARE(test::readAll(data), QByteArray("classes = 5\ntrain = train.txt\n"));
    const Run huge = cli({"set-classes", in, "99999999999", dir.filePath("x.cfg")});
    QCOMPARE(huge.err, QByteArray("error: 99999999999 classes: more than a cfg number holds\n"));
    // set-classes on yolov4-tiny with `from` replaced by `to`, into OUT.
    const auto onEdited = [&](const char* name, const QByteArray& from, const QByteArray& to,
                              const char* classes, const QString& written) {
        return cli({"set-classes", writeFile(dir, name, QByteArray(test::readAll(in)).replace(from, to)),
                    classes, written});
    };
    // A comment after a value stays, and is no part of the value said.
    const Run comment =
        onEdited("commented.cfg", "filters=255\n", "filters=255   # 3*(80+5)\n", "5", dir.filePath("c.cfg"));
    QCOMPARE(comment.exitCode, 0);
    QVERIFY2(comment.out.contains("layer 29 [convolutional]: filters=30 (was 255)\n"),
             comment.out.constData());
    QVERIFY(test::readAll(dir.filePath("c.cfg")).contains("\nfilters=30   # 3*(80+5)\n"));
    // A layer of a type not known here (AlexeyAB's [conv_lstm]) where the head was is named as such.
    const Run unknown = onEdited("unknown.cfg", "[yolo]", "[conv_lstm]", "3", dir.filePath("x.cfg"));
    QCOMPARE(unknown.exitCode, 1);
    QVERIFY2(unknown.err.contains("layer 30 [conv_lstm] is a layer type Netwright does not know"),
             unknown.err.constData());
    // AlexeyAB's [Gaussian_yolo] heads are retargeted: (classes + 9) per anchor (the filters=255 left
    // from [yolo] are the error it mends).
    const Run gaussian = onEdited("gaussian.cfg", "[yolo]", "[Gaussian_yolo]", "3", dir.filePath("g.cfg"));
    QVERIFY2(gaussian.exitCode == 0, gaussian.err.constData());
    QVERIFY2(gaussian.out.contains("layer 29 [convolutional]: filters=36 (was 255)\n"),
             gaussian.out.constData());
    // An input with errors of its own: written, and the errors are said to be the input's.
    const Run inputErrors = onEdited("broken.cfg", "[maxpool]", "[maxpol]", "3", dir.filePath("b.cfg"));
    QCOMPARE(inputErrors.exitCode, 1);
    QVERIFY2(inputErrors.err.contains("had errors before; set-classes changed only the lines it printed"),
             inputErrors.err.constData());
    const Run tree =
        cli({"set-classes", QString(DARKNET_CFG_DIR) + "/yolo9000.cfg", "3", dir.filePath("x.cfg")});
    QCOMPARE(tree.exitCode, 1);
    QVERIFY2(tree.err.contains("layer 24 [region] takes its classes from its tree= file"),
             tree.err.constData());
    // Classes that make the network invalid (its heads' convolutions over 1,048,576 channels): said, and
    // nothing written (a cfg that summary refuses was written, then exit status 1).
    const Run tooMany = cli({"set-classes", in, "1000000", dir.filePath("huge.cfg")});
    QCOMPARE(tooMany.exitCode, 1);
    QVERIFY2(tooMany.err.contains("1000000 classes make " + in.toUtf8() + " invalid (above, with the lines " +
                                  dir.filePath("huge.cfg").toUtf8() + " would have); it was not written"),
             tooMany.err.constData());
    QVERIFY(!QFileInfo::exists(dir.filePath("huge.cfg")));
    // --schedule is a detector's rule: a classifier's schedule stays, and that is said.
    const Run classifier = cli({"set-classes", QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg", "3",
                                dir.filePath("c.cfg"), "--schedule"});
    QVERIFY2(classifier.exitCode == 0 &&
                 classifier.err.contains("is a classifier, so its schedule is kept") &&
                 !classifier.out.contains("max_batches"),
             classifier.err.constData());
}

void TestCli::usageErrorsExitWithTwo()
{
    QCOMPARE(cli({}).exitCode, 2);
    QCOMPARE(cli({"summary"}).exitCode, 2);
    QCOMPARE(cli({"frobnicate"}).exitCode, 2);
    QCOMPARE(cli({"--help"}).exitCode, 0);
    // Numbers out of range, NaN included (CLI11's own range check lets NaN through).
    const QString cfg = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    // A decimal comma (a German or French habit) is named with the number as it should be written.
    const Run comma = cli({"detect", cfg, "w.weights", "a.jpg", "--thresh", "0,25"});
    QCOMPARE(comma.exitCode, 2);
    QVERIFY2(comma.err.contains("note: numbers take a decimal dot: 0.25, not 0,25"), comma.err.constData());
    for (const char* value : {"nan", "1.5", "-0.1", "x"}) {
        const Run run = cli({"detect", cfg, "w.weights", "a.jpg", "--thresh", value});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QByteArray("--thresh: Value ") + value + " not a number in [0 - 1]"),
                 run.err.constData());
    }
    QCOMPARE(cli({"train", "a.data", cfg, "--learning-rate", "nan"}).exitCode, 2);
    // (0 was taken as "the cfg's rate", unsaid)
    const Run zeroRate = cli({"train", "a.data", cfg, "--learning-rate", "0"});
    QCOMPARE(zeroRate.exitCode, 2);
    QVERIFY2(zeroRate.err.contains("a rate of 0 learns nothing: leave --learning-rate out for the cfg's "
                                   "learning_rate"),
             zeroRate.err.constData());
    // An empty weights path ("$WEIGHTS" unset) ran the network on random weights with exit status 0.
    const QString image = "/usr/share/darknet/data/dog.jpg";
    for (const QStringList& arguments :
         {QStringList{"detect", cfg, "", image}, QStringList{"classify", cfg, "", image},
          QStringList{"forward", cfg, "", "--input", image}, QStringList{"export-onnx", cfg, "", "o.onnx"},
          QStringList{"map", "a.data", cfg, ""}, QStringList{"valid", "a.data", cfg, ""},
          QStringList{"partial", cfg, "", "o.weights", "3"}}) {
        const Run run = cli(arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("weights: an empty path where a .weights file was expected"),
                 run.err.constData());
    }
    // …classify's Darknet order too, where the weights come fourth.
    const Run dataOrder = cli({"classify", "a.data", cfg, "", image});
    QCOMPARE(dataOrder.exitCode, 2);
    QVERIFY2(dataOrder.err.contains("weights: an empty path"), dataOrder.err.constData());
    const Run emptyStart = cli({"train", "a.data", cfg, ""});
    QCOMPARE(emptyStart.exitCode, 2);
    QVERIFY2(emptyStart.err.contains("leave it out to start from random weights"),
             emptyStart.err.constData());
    QCOMPARE(cli({"bench", cfg, "--weights", ""}).exitCode, 2);
    for (const char* size : {"0x0", "-32x32", "32x32x3", "100000x100000"}) {
        const Run run = cli({"bench", cfg, "--size", size});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(
            run.err.contains(QByteArray("--size: Value ") + size + " is not a size WxH, sides 1 to 16384"),
            run.err.constData());
    }
    QCOMPARE(cli({"make-shapes", "out", "--size", "20000x20000"}).exitCode, 2);
}

// bench --json: the figures benchmark scripts read, and which OpenBLAS kernels ran (a user's
// OPENBLAS_CORETYPE wins; the machine's own choice otherwise), so results say what they measured.
void TestCli::benchReportsLatencyMemoryAndBlasKernels()
{
    const QString cfg = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    const QByteArray saved = qgetenv("OPENBLAS_CORETYPE");
    qputenv("OPENBLAS_CORETYPE", "Haswell");
    // 256 MB resident here, in the parent: the child's figures are its own (getrusage's ru_maxrss
    // survives fork and exec, so the figures were this suite's size when it was the larger).
    QByteArray parentMemory(256 << 20, '\1'); // (Qt's own allocation: not optimised away)
    const Run run = cli({"bench", cfg, "--runs", "3", "--threads", "1", "--json"});
    parentMemory.clear();
    const Run perLayer = cli({"bench", cfg, "--runs", "1", "--per-layer"});
    if (saved.isEmpty())
        qunsetenv("OPENBLAS_CORETYPE");
    else
        qputenv("OPENBLAS_CORETYPE", saved);
    QCOMPARE(run.exitCode, 0);
    QJsonParseError error;
    const QJsonObject result = QJsonDocument::fromJson(run.out, &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(result["blas_core"].toString(), QString("Haswell"));
    QCOMPARE(result["runs"].toInt(), 3);
    QCOMPARE(result["threads"].toInt(), 1);
    QCOMPARE(result["width"].toInt(), 192);
    QCOMPARE(result["height"].toInt(), 192);
    QVERIFY(result["min_ms"].toDouble() > 0);
    QVERIFY(result["min_ms"].toDouble() <= result["median_ms"].toDouble());
    QVERIFY(result["peak_rss_mb"].toDouble() > result["baseline_rss_mb"].toDouble());
    QVERIFY2(result["baseline_rss_mb"].toDouble() < 200, run.out.constData());
    // --per-layer: a header, one row per layer of the cfg, the summary line.
    QCOMPARE(perLayer.exitCode, 0);
    const QList<QByteArray> lines = perLayer.out.trimmed().split('\n');
    const int layers = buildNetworkSpec(cfg::Document::load(cfg.toStdString())).layers.size();
    QCOMPARE(lines.size(), layers + 2);
    QVERIFY(lines.front().contains("GFLOP/s"));
    QVERIFY(lines.back().contains("OpenBLAS Haswell"));
    // With --json the per-layer times come in the JSON (they were dropped), as do a training pass's.
    const Run layerJson = cli({"bench", cfg, "--runs", "1", "--per-layer", "--json"});
    QCOMPARE(layerJson.exitCode, 0);
    const QJsonArray rows = QJsonDocument::fromJson(layerJson.out).object()["layers"].toArray();
    QCOMPARE(rows.size(), layers);
    QCOMPARE(rows[0].toObject()["type"].toString(), QString("convolutional"));
    QCOMPARE(rows[0].toObject()["output"].toString(), QString("192x192x16"));
    // Each layer's BFLOPs as the description has them (three decimals gave the max-pool 0.001).
    const NetworkSpec described = buildNetworkSpec(cfg::Document::load(cfg.toStdString()));
    for (int l = 0; l < layers; ++l)
        QVERIFY2(std::abs(rows[l].toObject()["bflops"].toDouble() - described.layers[l].costs.bflops) <=
                     1e-8 * std::max(1.0, described.layers[l].costs.bflops),
                 qPrintable(QString("layer %1").arg(l)));
    const Run training = cli({"bench", QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg", "--train",
                              "--runs", "1", "--per-layer", "--json"});
    QCOMPARE(training.exitCode, 0);
    const QJsonObject pass = QJsonDocument::fromJson(training.out, &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(pass["batch"].toInt(), 128);
    QVERIFY(pass["images_per_s"].toDouble() > 0);
    QVERIFY(pass["layers"].toArray()[0].toObject()["backward_ms"].toDouble() > 0);
    // A recurrent network runs one sequence of time_steps items (batch 1 was refused: "use a multiple
    // of 3", and bench has no batch option).
    QTemporaryDir dir;
    const QString rnn = dir.filePath("rnn.cfg");
    test::writeFile(rnn, "[net]\ninputs=4\ntime_steps=3\n\n[connected]\noutput=4\n\n[gru]\noutput=4\n");
    const Run sequence = cli({"bench", rnn, "--runs", "2"});
    QVERIFY2(sequence.exitCode == 0, sequence.err.constData());
    QVERIFY2(sequence.out.contains(rnn.toUtf8() + " 4 inputs, one sequence of 3 items"),
             sequence.out.constData()); // (a flat input was "0x0")
    const Run sequenceJson = cli({"bench", rnn, "--runs", "2", "--json"});
    QCOMPARE(QJsonDocument::fromJson(sequenceJson.out).object()["time_steps"].toInt(), 3);
    // forward likewise: a .f32 of 3 × 4 floats in, 3 × 4 out; an image is no sequence.
    const QString weights = dir.filePath("rnn.weights"), in = dir.filePath("in.f32");
    QCOMPARE(cli({"init", rnn, weights}).exitCode, 0);
    test::writeFile(in, QByteArray(12 * 4, 0));
    const Run stepped = cli({"forward", rnn, weights, "--input", in, "--out", dir.filePath("out.f32")});
    QVERIFY2(stepped.exitCode == 0, stepped.err.constData());
    QCOMPARE(test::readAll(dir.filePath("out.f32")).size(), 12 * 4);
    // An upper-case ending is a tensor too (IN.F32 was read as an image); --all-layers into a folder that
    // holds a longer network's layer files says so (a script comparing the folder mixed two networks).
    QVERIFY(QFile::copy(in, dir.filePath("IN.F32")));
    QVERIFY(QDir().mkpath(dir.filePath("layers")));
    test::writeFile(dir.filePath("layers/layer_040.f32"), QByteArray(4, 0));
    const Run upper = cli(
        {"forward", rnn, weights, "--input", dir.filePath("IN.F32"), "--all-layers", dir.filePath("layers")});
    QVERIFY2(upper.exitCode == 0, upper.err.constData());
    QVERIFY2(upper.err.contains("also holds layer_040.f32 past this network's"), upper.err.constData());
    const Run image = cli({"forward", rnn, weights, "--input", "/usr/share/darknet/data/dog.jpg"});
    QCOMPARE(image.exitCode, 1);
    QVERIFY2(image.err.contains("reads a sequence, not an image: give --input a .f32 file of 3 × 4 floats"),
             image.err.constData());
    // A flat input ([net] inputs=10) reads no image: said once, by its size (each image was "the network
    // wants 0 channels; images give 1 or 3", and classify counted them as unreadable).
    const QString flat = dir.filePath("flat.cfg"), flatWeights = dir.filePath("flat.weights");
    test::writeFile(flat, "[net]\ninputs=10\n\n[connected]\noutput=3\n\n[softmax]\n");
    QCOMPARE(cli({"init", flat, flatWeights}).exitCode, 0);
    const Run flatImage = cli({"forward", flat, flatWeights, "--input", "/usr/share/darknet/data/dog.jpg"});
    QCOMPARE(flatImage.exitCode, 1);
    QCOMPARE(flatImage.err, "error: " + flat.toUtf8() +
                                ": the network reads 10 numbers ([net] inputs=), not an image: give "
                                "--input a .f32 file of 10 floats\n");
    const Run flatClassified = cli({"classify", flat, flatWeights, "/usr/share/darknet/data/dog.jpg"});
    QCOMPARE(flatClassified.exitCode, 1);
    QVERIFY2(flatClassified.err.contains(flat.toUtf8() +
                                         ": the network reads 10 numbers ([net] inputs=), not an "
                                         "image: classify needs a network of width="),
             flatClassified.err.constData());
}

// init: the same seed gives the same bytes, another seed other weights; the file loads (bench runs
// on it without a warning) and has Darknet's size: a 20-byte header and, per layer, biases, batch
// norm scales, rolling means and variances and weights (fashion-mnist.cfg: 421,642 weights and
// What an AlexeyAB Darknet user types by habit gets an answer: single-dash flags (CLI11 read "-height" as
// -h and printed the help, exit 0, computing nothing), a .data file where a cfg or a names file goes
// (one "outside any section" error per line; each line taken as a class name), a detector given to
// valid (it blamed the labels), Darknet's two-word commands and a mistyped command (CLI11 said only "A
// subcommand is required").
void TestCli::darknetHabitsAreAnsweredInWords()
{
    QTemporaryDir dir;
    const QString data = dir.filePath("obj.data");
    test::writeFile(data, "classes = 5\ntrain = train.txt\nvalid = valid.txt\nnames = obj.names\n");
    const Run detectorTrain = cli({"detector", "train", data, "yolo.cfg"});
    QCOMPARE(detectorTrain.exitCode, 2);
    QCOMPARE(
        detectorTrain.err,
        QByteArray("error: detector train is Darknet's command; here it is train (see netwright-cli train "
                   "--help)\n"));
    const Run typo = cli({"--allow-extra", "sumary", "yolo.cfg"});
    QCOMPARE(typo.exitCode, 2);
    QVERIFY2(typo.err.startsWith("error: sumary: no such command (did you mean summary?); the commands: "
                                 "summary, roundtrip, set-classes, forward,"),
             typo.err.constData());
    const Run unknown = cli({"frobnicate"});
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY2(unknown.err.startsWith("error: frobnicate: no such command; the commands: summary,"),
             unknown.err.constData());
    // No command word: a mistyped top-level option is named, nothing at all gets the list.
    const Run version = cli({"--verison"});
    QCOMPARE(version.exitCode, 2);
    QVERIFY2(version.err.startsWith("error: --verison: no such option (did you mean --version?)"),
             version.err.constData());
    const Run nothing = cli({});
    QCOMPARE(nothing.exitCode, 2);
    QVERIFY2(nothing.err.startsWith("error: no command given; the commands: summary,"),
             nothing.err.constData());
    QCOMPARE(cli({"--version"}).exitCode, 0);
    const Run dashes = cli({"anchors", data, "-num_of_clusters", "6", "-height", "320"});
    QCOMPARE(dashes.exitCode, 2);
    QVERIFY2(dashes.err.contains("-num_of_clusters is Darknet's: here it is --num"), dashes.err.constData());
    // Darknet's flags with no counterpart say why none is needed; an option the command lacks is named.
    // Every single-dash flag is said at once (the first alone took several tries).
    const Run several = cli({"train", data, "x.cfg", "-map", "-dont_show"});
    QCOMPARE(several.exitCode, 2);
    QVERIFY2(several.err.contains("error: -map:") && several.err.contains("error: -dont_show is Darknet's"),
             several.err.constData());
    // detector test's order (.data first): the command as it is here, with the .data's names.
    test::writeFile(dir.filePath("obj.names"), "a\nb\nc\nd\ne\n");
    const Run detectorTest = cli({"detect", data, "yolo.cfg", "yolo.weights", "dog.jpg"});
    QCOMPARE(detectorTest.exitCode, 2);
    QCOMPARE(detectorTest.err, ("error: " + data +
                                " is a .data file: detect takes CFG WEIGHTS IMAGE… (Darknet's "
                                "detector test took the .data first): netwright-cli detect yolo.cfg "
                                "yolo.weights dog.jpg --names " +
                                dir.filePath("obj.names") + "\n")
                                   .toUtf8());
    // The cfg left out (DATA WEIGHTS IMAGE): the weights were suggested as the cfg, the image as weights.
    const Run noCfg = cli({"detect", data, "yolo.weights", "dog.jpg", "cat.jpg"});
    QCOMPARE(noCfg.exitCode, 2);
    QVERIFY2(noCfg.err.contains("netwright-cli detect CFG yolo.weights dog.jpg … --names"),
             noCfg.err.constData());
    const Run dontShow = cli({"train", data, "x.cfg", "-dont_show"});
    QCOMPARE(dontShow.exitCode, 2);
    QCOMPARE(dontShow.err,
             QByteArray("error: -dont_show is Darknet's: not needed: netwright-cli opens no window\n"));
    const Run clear = cli({"train", data, "x.cfg", "-clear"});
    QVERIFY2(
        clear.err.contains("-clear is Darknet's: not needed: a run without --resume starts from iteration 0"),
        clear.err.constData());
    const Run noSuch = cli({"train", data, "x.cfg", "-thresh", "0.3"});
    QCOMPARE(noSuch.err,
             QByteArray("error: -thresh: train has no option --thresh (options have two dashes here: "
                        "see netwright-cli train --help)\n"));
    const Run twoDashes = cli({"detect", "x.cfg", "x.weights", "dog.jpg", "-thresh", "0.3"});
    QVERIFY2(twoDashes.err.contains("-thresh: options have two dashes here (--thresh;"),
             twoDashes.err.constData());
    // Darknet's -out (a JSON file) is detect --json here, not --out (a folder of images); -iou_thresh is
    // --iou; a mistyped option is matched to the command's (CLI11 said it "was not expected").
    const Run out = cli({"detect", "x.cfg", "x.weights", "dog.jpg", "-out", "res.json"});
    QVERIFY2(
        out.err.contains("-out is Darknet's: it writes the detections as JSON to a file: here detect --json "
                         "> FILE"),
        out.err.constData());
    QVERIFY(cli({"map", data, "x.cfg", "x.weights", "-iou_thresh", "0.5"})
                .err.contains("-iou_thresh is Darknet's: here it is map --iou"));
    const Run thres = cli({"detect", "x.cfg", "x.weights", "dog.jpg", "--thres", "0.3"});
    QCOMPARE(thres.exitCode, 2);
    QCOMPARE(thres.err, QByteArray("error: --thres: detect has no such option (did you mean --thresh?; see "
                                   "netwright-cli detect --help)\n"));
    const Run afterDashes = cli({"summary", "--", "-odd-name.cfg"}); // after "--": a file name
    QCOMPARE(afterDashes.exitCode, 1);
    QVERIFY2(afterDashes.err.contains("-odd-name.cfg: error: no such file"), afterDashes.err.constData());
    const QString shapes = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    const QString weights = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights";
    const Run dataAsCfg = cli({"summary", data});
    QCOMPARE(dataAsCfg.exitCode, 1);
    QVERIFY2(
        dataAsCfg.err.contains("obj.data:1: error: this is a .data file (classes=…), not a network cfg") &&
            dataAsCfg.err.count("error") == 1,
        dataAsCfg.err.constData());
    const Run dataAsNames =
        cli({"detect", shapes, weights, "/usr/share/darknet/data/dog.jpg", "--names", data});
    QCOMPARE(dataAsNames.exitCode, 1);
    QVERIFY2(dataAsNames.err.contains("this is a .data file (classes=), not a names file") &&
                 dataAsNames.err.contains("(obj.names)"),
             dataAsNames.err.constData());
    // And the other way round: the cfg first (Darknet's order is DATA CFG), a cfg as the weights, a
    // binary file as the .data (they said "expected key=value, found '[net]'", "the file ends inside
    // layer 0", or printed the binary).
    const Run cfgAsData = cli({"train", shapes, data});
    QCOMPARE(cfgAsData.exitCode, 1);
    QVERIFY2(cfgAsData.err.contains(
                 "shapes-tiny.cfg:4: this is a network cfg ([net]), not a .data file: the .data "
                 "file comes first (train DATA CFG"),
             cfgAsData.err.constData());
    const Run cfgAsWeights = cli({"detect", shapes, shapes, "/usr/share/darknet/data/dog.jpg"});
    QCOMPARE(cfgAsWeights.exitCode, 1);
    QVERIFY2(cfgAsWeights.err.contains(
                 "shapes-tiny.cfg: this is a text file (it starts with \"# shapes-tiny: a\"), "
                 "not a Darknet .weights file"),
             cfgAsWeights.err.constData());
    // An image where the weights go (`detect CFG IMAGE`): named ("the header's version -503326465…").
    const Run imageAsWeights = cli({"detect", shapes, "/usr/share/darknet/data/dog.jpg", "img"});
    QCOMPARE(imageAsWeights.exitCode, 1);
    QVERIFY2(
        imageAsWeights.err.contains("dog.jpg: this is a JPEG image, not a Darknet .weights file: give a "
                                    ".weights file in its place (detect CFG WEIGHTS IMAGE..., train DATA CFG "
                                    "[WEIGHTS])"),
        imageAsWeights.err.constData());
    // A training checkpoint where weights go (it read as "a larger network's weights").
    const QString state = dir.filePath("shapes-tiny_last.state");
    test::writeFile(state, QByteArray("NWSTATE2") + QByteArray(64, '\0'));
    const Run stateAsWeights = cli({"detect", shapes, state, "/usr/share/darknet/data/dog.jpg"});
    QCOMPARE(stateAsWeights.exitCode, 1);
    QVERIFY2(
        stateAsWeights.err.contains("shapes-tiny_last.state: this is a training checkpoint (.state: "
                                    "weights and the solver's state, read by --resume), not a .weights file"),
        stateAsWeights.err.constData());
    const Run weightsAsData = cli({"anchors", weights});
    QCOMPARE(weightsAsData.exitCode, 1);
    QCOMPARE(weightsAsData.err,
             "error: " + weights.toUtf8() +
                 ": a binary file, not a .data file (key=value lines: classes, train, valid, "
                 "names)\n");
    // An option for the other kind of network is named, not ignored without a word.
    test::writeToySet(dir.path(), 16);
    test::writeFile(dir.filePath("toy.cfg"), test::kToyCfg);
    const Run mapOnClassifier = cli({"train", dir.filePath("toy.data"), dir.filePath("toy.cfg"), "--out",
                                     dir.filePath("toy-run"), "--max-batches", "1", "--map-every", "5"});
    QCOMPARE(mapOnClassifier.exitCode, 0);
    QVERIFY2(mapOnClassifier.err.contains("note: --map-every and --map are for detectors; this classifier is "
                                          "scored by top-1: --valid-every N"),
             mapOnClassifier.err.constData());
    const Run detectorInValid = cli({"valid", data, shapes, weights});
    QCOMPARE(detectorInValid.exitCode, 1);
    QVERIFY2(
        detectorInValid.err.contains("valid scores classifiers; score a detector with netwright-cli map"),
        detectorInValid.err.constData());
}

// biases, and 3 × 96 batch-norm values).
void TestCli::initWritesWeightsThatLoad()
{
    QTemporaryDir dir;
    const QString cfg = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg";
    const QString a = dir.filePath("a.weights"), b = dir.filePath("b.weights"), c = dir.filePath("c.weights");
    QCOMPARE(cli({"init", cfg, a, "--seed", "3"}).exitCode, 0);
    QCOMPARE(cli({"init", cfg, b, "--seed", "3"}).exitCode, 0);
    QCOMPARE(cli({"init", cfg, c, "--seed", "4"}).exitCode, 0);
    const QByteArray first = test::readAll(a);
    QCOMPARE(first.size(), 20 + 4 * (421642 + 3 * (32 + 64)));
    QCOMPARE(test::readAll(b), first);
    QVERIFY(test::readAll(c) != first);
    const Run bench = cli({"bench", cfg, "--weights", a, "--runs", "1"});
    QCOMPARE(bench.exitCode, 0);
    QVERIFY2(!bench.err.contains("warning"), bench.err.constData());
    const Run missing = cli({"init", dir.filePath("none.cfg"), a});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY(missing.err.contains("none.cfg"));
    // init builds an inference net (outputs shared): the bytes are those of a whole net initialised
    // alike, for [local], [batchnorm] and every layer kind the ONNX exporter knows.
    const QString local =
        writeFile(dir, "local.cfg",
                  "[net]\nwidth=16\nheight=16\nchannels=3\n"
                  "[convolutional]\nfilters=4\nsize=3\nbatch_normalize=1\nactivation=leaky\n"
                  "[local]\nfilters=4\nsize=3\nstride=1\npad=1\nactivation=leaky\n"
                  "[batchnorm]\n[connected]\noutput=5\nactivation=linear\n");
    for (const QString& path : {local, QString(NETWRIGHT_TEST_DATA_DIR) + "/onnx/every-op.cfg",
                                QString(NETWRIGHT_TEST_DATA_DIR) + "/gpu/multilabel.cfg"}) {
        const QString written = dir.filePath("init.weights"), whole = dir.filePath("whole.weights");
        QCOMPARE(cli({"init", path, written, "--seed", "7"}).exitCode, 0);
        std::string error;
        auto net = Net::create(buildNetworkSpec(cfg::Document::load(path.toStdString())), 1, error);
        QVERIFY2(net, error.c_str());
        net->initialize(7);
        QVERIFY(!net->saveWeights(whole.toStdString()));
        QVERIFY2(test::readAll(written) == test::readAll(whole), qPrintable(path));
    }
    // A recurrent network of 3 time steps (its batch is whole sequences): 2,861 weights and 131 × 3
    // batch-norm values after the header.
    const QString recurrent = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../tests/data/gpu/recurrent.cfg";
    const Run sequences = cli({"init", recurrent, a});
    QVERIFY2(sequences.exitCode == 0, sequences.err.constData());
    QCOMPARE(test::readAll(a).size(), 20 + 4 * (2861 + 3 * 131));
    // partial: the first 3 layers (convolution, maxpool, convolution: 4 × 32 + 9 × 32 and 4 × 64 + 9 × 32 ×
    // 64 floats, biases and batch norm before the weights) of b — a backbone that forward refuses and train
    // starts from.
    const QString backbone = dir.filePath("fm.conv.3");
    const Run partial = cli({"partial", cfg, b, backbone, "3"});
    QVERIFY2(partial.exitCode == 0, partial.err.constData());
    QCOMPARE(test::readAll(backbone), first.left(20 + 4 * (4 * 32 + 9 * 32 + 4 * 64 + 9 * 32 * 64)));
    const Run refused = cli({"bench", cfg, "--weights", backbone, "--runs", "1"});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains("a backbone to train from"), refused.err.constData());
    // A backbone cut shorter (Darknet's partial reads only the layers it writes; it was refused), but
    // not longer than it holds.
    const Run ofABackbone = cli({"partial", cfg, backbone, dir.filePath("fm.conv.2"), "2"});
    QVERIFY2(ofABackbone.exitCode == 0, ofABackbone.err.constData());
    QCOMPARE(test::readAll(dir.filePath("fm.conv.2")), first.left(20 + 4 * (4 * 32 + 9 * 32)));
    const Run pastIt = cli({"partial", cfg, backbone, dir.filePath("fm.conv.5"), "5"});
    QCOMPARE(pastIt.exitCode, 1);
    QVERIFY2(pastIt.err.contains("the file ends after layer 2") &&
                 pastIt.err.contains("(partial 5 needs layers 0..4)"),
             pastIt.err.constData());
    QVERIFY(!QFileInfo::exists(dir.filePath("fm.conv.5")));
    const Run tooMany = cli({"partial", cfg, b, backbone, "8"});
    QCOMPARE(tooMany.exitCode, 1);
    QVERIFY2(tooMany.err.contains("has 7 layers (0..6)"), tooMany.err.constData());
    // A cfg whose head differs from the weights' (AlexeyAB's README cuts yolov4-tiny.weights with a cfg of
    // its own classes): refused with the way out, --allow-extra, with which only the layers written must
    // fit, as Darknet's partial reads only those (it was refused, "--allow-extra" or not).
    QByteArray fiveClasses = test::readAll(cfg);
    QVERIFY(fiveClasses.contains("output=10"));
    fiveClasses.replace("output=10", "output=5"); // (a smaller head: bytes left over)
    const QString otherHead = writeFile(dir, "five.cfg", fiveClasses);
    const Run headDiffers = cli({"partial", otherHead, b, dir.filePath("five.conv.3"), "3"});
    QCOMPARE(headDiffers.exitCode, 1);
    QVERIFY2(headDiffers.err.contains("--allow-extra writes layers 0..2 all the same"),
             headDiffers.err.constData());
    QVERIFY(!QFileInfo::exists(dir.filePath("five.conv.3")));
    const Run ownClasses = cli({"partial", otherHead, b, dir.filePath("five.conv.3"), "3", "--allow-extra"});
    QVERIFY2(ownClasses.exitCode == 0, ownClasses.err.constData());
    QCOMPARE(test::readAll(dir.filePath("five.conv.3")), test::readAll(backbone));
    QVERIFY2(ownClasses.err.contains("is not all of " + otherHead.toUtf8()) &&
                 ownClasses.err.contains("its layers 0..2 are written as they come in the file"),
             ownClasses.err.constData());
}

// What a careless or hostile user hands the tool: every case ends with exit code 1 and a message
// naming the file, never an abort (exit code −1 in Run) or a hang.
// An image that cannot be read is named and left out of valid's and map's scores (valid used to score
// it as right); none readable is an error, as is training on a list where nothing can be read; a
// detector is refused by valid and classify.
void TestCli::unreadableImagesAreNamedNotScored()
{
    QTemporaryDir dir;
    const auto [cfg, weights] = tinyClassifier(dir);
    test::writeFile(dir.filePath("labels.txt"), "cat\ndog\n");
    test::writeFile(dir.filePath("cat-broken.jpg"), "not an image");
    test::writeFile(dir.filePath("some.list"), "/usr/share/darknet/data/dog.jpg\n" +
                                                   dir.filePath("cat-broken.jpg").toUtf8() + "\n" +
                                                   dir.filePath("missing/cat.jpg").toUtf8() + "\n");
    test::writeFile(dir.filePath("none.list"), dir.filePath("missing/cat.jpg").toUtf8() + "\n");
    test::writeFile(dir.filePath("some.data"), "classes=2\nvalid=some.list\nlabels=labels.txt\n");
    test::writeFile(dir.filePath("none.data"), "classes=2\nvalid=none.list\nlabels=labels.txt\n");
    const Run some = cli({"valid", dir.filePath("some.data"), cfg, weights});
    QCOMPARE(some.exitCode, 0);
    QVERIFY2(some.out.startsWith("1 images: top-1") && some.out.contains("(1 unreadable left out)"),
             some.out.constData());
    QVERIFY2(some.err.contains("warning: " + dir.filePath("cat-broken.jpg").toUtf8() + ": cannot read"),
             some.err.constData());
    // A missing image is left out when the list is read, named with its line (as train says it).
    QVERIFY2(some.err.contains("warning: " + dir.filePath("some.list").toUtf8() + ":3: " +
                               dir.filePath("missing/cat.jpg").toUtf8() + " does not exist: left out"),
             some.err.constData());
    // classify counts the list's three lines, the missing one included (it said "2 of 2").
    const Run classified = cli({"classify", cfg, weights, dir.filePath("some.list")});
    QCOMPARE(classified.exitCode, 1);
    QVERIFY2(classified.err.contains("classify: 2 of 3 images could not be read and were skipped"),
             classified.err.constData());
    const Run none = cli({"valid", dir.filePath("none.data"), cfg, weights});
    QCOMPARE(none.exitCode, 1);
    QVERIFY2(none.err.contains("none.list:1: " + dir.filePath("missing/cat.jpg").toUtf8() +
                               " does not exist: no image of the list exists"),
             none.err.constData());
    // A folder given as the names file, and a names file of another size, are said.
    const Run folderNames =
        cli({"classify", cfg, weights, "/usr/share/darknet/data/dog.jpg", "--names", dir.path()});
    QCOMPARE(folderNames.exitCode, 1);
    QVERIFY2(folderNames.err.contains("is a directory, not a names file"), folderNames.err.constData());
    test::writeFile(dir.filePath("three.names"), "cat\ndog\nbird\n");
    const Run moreNames = cli({"classify", cfg, weights, "/usr/share/darknet/data/dog.jpg", "--names",
                               dir.filePath("three.names")});
    QCOMPARE(moreNames.exitCode, 0);
    QVERIFY2(moreNames.err.contains(
                 "has 3 names but the network has 2 classes (the names file of another data set?)"),
             moreNames.err.constData());
    // Darknet's ImageNet names (21842, the 1000 ImageNet-1k classes first), as its imagenet1k.data pairs
    // them with a 1000-class network: no warning (it said "the names file of another data set?").
    test::writeFile(dir.filePath("thousand.cfg"),
                    "[net]\nwidth=8\nheight=8\nchannels=3\n[connected]\noutput=1000\n[softmax]\n");
    QCOMPARE(cli({"init", dir.filePath("thousand.cfg"), dir.filePath("thousand.weights")}).exitCode, 0);
    const Run imagenet = cli({"classify", dir.filePath("thousand.cfg"), dir.filePath("thousand.weights"),
                              "/usr/share/darknet/data/dog.jpg", "--names",
                              "/usr/share/darknet/data/imagenet.shortnames.list"});
    QCOMPARE(imagenet.exitCode, 0);
    QVERIFY2(!imagenet.err.contains("warning"), imagenet.err.constData());
    // Raw scores or probabilities, by the network's last layer (guessed from the first image's scores, a
    // linear layer's were shown as percentages, "153.18%" and "-3.41%"); a [cost] after it is passed by.
    // Weights 0 and biases 0.2, 0.3: the linear scores, 0.2 and 0.3, look like probabilities.
    QByteArray endsWeights(20, 0); // header 0.2.0, seen 0 (64 bits)
    endsWeights[4] = 2;
    for (const float value : {0.2f, 0.3f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f})
        endsWeights.append(reinterpret_cast<const char*>(&value), sizeof value);
    test::writeFile(dir.filePath("ends.weights"), endsWeights);
    for (const auto& [ending, probabilities] :
         {std::pair{"activation=linear\n", false}, std::pair{"activation=logistic\n[cost]\n", true},
          std::pair{"", true}, // (a [connected]'s default activation: logistic, as in Darknet)
          std::pair{"activation=linear\n[softmax]\n[cost]\n", true}}) {
        test::writeFile(
            dir.filePath("ends.cfg"),
            QByteArray("[net]\nwidth=8\nheight=8\nchannels=3\n[avgpool]\n[connected]\noutput=2\n") + ending);
        const Run scored = cli({"classify", dir.filePath("ends.cfg"), dir.filePath("ends.weights"),
                                "/usr/share/darknet/data/dog.jpg"});
        QVERIFY2(scored.exitCode == 0, scored.err.constData());
        QVERIFY2(scored.out.contains("(raw scores: the network does not end in a softmax)") != probabilities,
                 (ending + scored.out).constData());
    }
    // A glob over a data set's folder (train/*) names each image's label file too: left out with a note
    // (each was read as a list whose lines did not exist, and the run failed).
    QVERIFY(QFile::copy("/usr/share/darknet/data/dog.jpg", dir.filePath("a.jpg")));
    test::writeFile(dir.filePath("a.txt"), "0 0.5 0.5 0.2 0.2\n");
    const Run globbed = cli({"classify", dir.filePath("ends.cfg"), dir.filePath("ends.weights"),
                             dir.filePath("a.jpg"), dir.filePath("a.txt")});
    QVERIFY2(globbed.exitCode == 0, globbed.err.constData());
    QVERIFY2(globbed.err.contains("note: 1 label file left out (" + dir.filePath("a.txt").toUtf8() +
                                  " holds the boxes of " + dir.filePath("a.jpg").toUtf8() +
                                  " beside it, not a list of images)"),
             globbed.err.constData());
    QCOMPARE(globbed.out.count(".jpg"), 1);
    // A list of images that happens to sit beside an image of its name (test.txt by test.jpg) is a list:
    // its images are read (it was taken for a label file, and nothing ran with exit 0).
    QVERIFY(QFile::copy("/usr/share/darknet/data/dog.jpg", dir.filePath("test.jpg")));
    test::writeFile(dir.filePath("test.txt"), "a.jpg\ntest.jpg\n");
    const Run listed =
        cli({"classify", dir.filePath("ends.cfg"), dir.filePath("ends.weights"), dir.filePath("test.txt")});
    QVERIFY2(listed.exitCode == 0, listed.err.constData());
    QCOMPARE(listed.out.count(".jpg"), 2);
    QVERIFY2(!listed.err.contains("left out"), listed.err.constData());
    // A relative path in a list that names an image beside the list and another in the working folder
    // (which Darknet reads): said, with the list's line.
    QVERIFY(QDir(dir.path()).mkpath("data/img") && QDir(dir.path()).mkpath("img"));
    QVERIFY(QFile::copy("/usr/share/darknet/data/dog.jpg", dir.filePath("data/img/a.jpg")));
    QVERIFY(QFile::copy("/usr/share/darknet/data/horses.jpg", dir.filePath("img/a.jpg")));
    test::writeFile(dir.filePath("data/valid.txt"), "img/a.jpg\n");
    const QString before = QDir::currentPath();
    QVERIFY(QDir::setCurrent(dir.path()));
    const Run twoFiles =
        cli({"classify", dir.filePath("ends.cfg"), dir.filePath("ends.weights"), "data/valid.txt"});
    QVERIFY(QDir::setCurrent(before));
    QVERIFY2(twoFiles.exitCode == 0, twoFiles.err.constData());
    QVERIFY2(
        twoFiles.err.contains("note: data/valid.txt:1: img/a.jpg is read beside the list (data/img/a.jpg); "
                              "the working folder holds another img/a.jpg, which Darknet would read"),
        twoFiles.err.constData());
    // An empty --out (an unset shell variable) is refused: detect wrote nothing and train used backup=,
    // both with exit status 0.
    const Run emptyOut = cli({"detect", QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg",
                              QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights",
                              "/usr/share/darknet/data/dog.jpg", "--out", ""});
    QVERIFY(emptyOut.exitCode != 0);
    QVERIFY2(emptyOut.err.contains("an empty output folder (an unset shell variable?)"),
             emptyOut.err.constData());
    const Run emptyTrainOut = cli({"train", QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.data",
                                   QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg", "--out", ""});
    QVERIFY(emptyTrainOut.exitCode != 0);
    QVERIFY2(emptyTrainOut.err.contains("leave --out out (the .data file's backup= folder is used)"),
             emptyTrainOut.err.constData());
    // The other commands' output paths too: init and export-onnx said "cannot replace : No such file or
    // directory", forward wrote nothing with exit status 0.
    const QString shapesCfg = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg",
                  shapesWeights =
                      QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights";
    for (const QStringList& args :
         {QStringList{"init", shapesCfg, ""}, QStringList{"export-onnx", shapesCfg, shapesWeights, ""},
          QStringList{"forward", shapesCfg, shapesWeights, "--input", "/usr/share/darknet/data/dog.jpg",
                      "--out", ""}}) {
        const Run empty = cli(args);
        QVERIFY2(
            empty.exitCode == 2 &&
                empty.err.contains("an empty path where the output was expected (an unset shell variable?)"),
            qPrintable(args.join(' ') + ": " + empty.err));
    }
    // A folder's JPEGs named .jfif or .JPE are images too (left out without a word).
    QVERIFY(QDir(dir.path()).mkpath("jf"));
    QVERIFY(QFile::copy("/usr/share/darknet/data/dog.jpg", dir.filePath("jf/a.jfif")));
    QVERIFY(QFile::copy("/usr/share/darknet/data/dog.jpg", dir.filePath("jf/b.JPE")));
    const Run jfif =
        cli({"classify", dir.filePath("ends.cfg"), dir.filePath("ends.weights"), dir.filePath("jf")});
    QVERIFY2(jfif.exitCode == 0, jfif.err.constData());
    QVERIFY2(jfif.out.contains("a.jfif") && jfif.out.contains("b.JPE"), jfif.out.constData());
    // A video given to classify is named as one (it was "damaged, or not an image format OpenCV knows"),
    // and a folder of videos is not said to be read for its .mp4 files.
    QVERIFY(QDir(dir.path()).mkpath("clips"));
    test::writeFile(dir.filePath("clips/clip.mp4"), "not read");
    const Run clip = cli({"classify", dir.filePath("ends.cfg"), dir.filePath("ends.weights"),
                          dir.filePath("clips/clip.mp4"), dir.filePath("clips")});
    QCOMPARE(clip.exitCode, 1);
    QVERIFY2(clip.err.contains("error: " + dir.filePath("clips/clip.mp4").toUtf8() +
                               ": a video: classify reads images (detect reads a video frame by frame)"),
             clip.err.constData());
    QVERIFY2(clip.err.contains("a folder without images (by their names' endings: .jpg, .png, …; classify "
                               "reads no videos)"),
             clip.err.constData());
    // A named pipe nothing writes to, as the image or the weights: refused at once (the readers waited on
    // it for ever, past SIGTERM).
    const QString pipe = dir.filePath("pipe.jpg");
    QCOMPARE(::mkfifo(pipe.toLocal8Bit().constData(), 0600), 0);
    const Run pipedImage = cli({"classify", cfg, weights, pipe});
    QCOMPARE(pipedImage.exitCode, 1);
    QVERIFY2(pipedImage.err.contains(pipe.toUtf8() + ": a named pipe, not an image"),
             pipedImage.err.constData());
    const Run pipedWeights = cli({"classify", cfg, pipe, "/usr/share/darknet/data/dog.jpg"});
    QCOMPARE(pipedWeights.exitCode, 1);
    QVERIFY2(pipedWeights.err.contains(pipe.toUtf8() + ": a named pipe, not a .weights file"),
             pipedWeights.err.constData());
    // A named pipe nothing writes to, as an image list or a .f32 input, reads as empty: refused in two
    // seconds (open() waited for a writer for ever, past Ctrl+C).
    const QString pipedList = dir.filePath("pipe.txt"), pipedTensor = dir.filePath("pipe.f32");
    QCOMPARE(::mkfifo(pipedList.toLocal8Bit().constData(), 0600), 0);
    QCOMPARE(::mkfifo(pipedTensor.toLocal8Bit().constData(), 0600), 0);
    const Run listRun = cli({"classify", cfg, weights, pipedList});
    QCOMPARE(listRun.exitCode, 1);
    QVERIFY2(
        listRun.err.contains(pipedList.toUtf8() + ": a pipe with nothing written to it, not an image list"),
        listRun.err.constData());
    const Run tensorRun = cli({"forward", cfg, weights, "--input", pipedTensor});
    QCOMPARE(tensorRun.exitCode, 1);
    QVERIFY2(tensorRun.err.contains(pipedTensor.toUtf8() + ": holds 0 bytes"), tensorRun.err.constData());
    // Darknet's order, classifier predict DATA CFG WEIGHTS IMAGE: the .data's labels= name the classes
    // and its top= says how many; an image list runs every image on it.
    test::writeFile(dir.filePath("pets.data"), "classes=2\nlabels=labels.txt\ntop=1\n");
    test::writeFile(dir.filePath("dogs.list"),
                    "/usr/share/darknet/data/dog.jpg\n/usr/share/darknet/data/person.jpg\n");
    const Run predict = cli({"classify", dir.filePath("pets.data"), cfg, weights, dir.filePath("dogs.list")});
    QCOMPARE(predict.exitCode, 0);
    const QStringList lines = QString(predict.out).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 4); // two images, one class each
    QCOMPARE(lines[0], QString("/usr/share/darknet/data/dog.jpg"));
    QVERIFY2(lines[1].endsWith("%  cat") || lines[1].endsWith("%  dog"), predict.out.constData());
    QCOMPARE(lines[2], QString("/usr/share/darknet/data/person.jpg"));
    QVERIFY2(!predict.err.contains("classes="), predict.err.constData());
    // A .data file of another class count than the network's outputs is said (valid refuses it).
    test::writeFile(dir.filePath("three.data"), "classes=3\n");
    const Run other =
        cli({"classify", dir.filePath("three.data"), cfg, weights, "/usr/share/darknet/data/dog.jpg"});
    QVERIFY2(other.exitCode == 0 && other.err.contains("warning: the .data file has classes=3 but " +
                                                       cfg.toUtf8() + " scores 2 classes"),
             other.err.constData());
    // With both, names= are the names shown (as imagenet1k.data's short names beside its synset ids in
    // labels=): Darknet's predict_classifier reads names= first, labels= only without it.
    test::writeFile(dir.filePath("shown.names"), "tabby\nterrier\n");
    test::writeFile(dir.filePath("both.data"), "classes=2\nlabels=labels.txt\nnames=shown.names\ntop=2\n");
    const Run both =
        cli({"classify", dir.filePath("both.data"), cfg, weights, "/usr/share/darknet/data/dog.jpg"});
    QCOMPARE(both.exitCode, 0);
    QVERIFY2(both.out.contains("%  tabby") && both.out.contains("%  terrier") && !both.out.contains("%  cat"),
             both.out.constData());
    const Run noImage = cli({"classify", dir.filePath("pets.data"), cfg, weights});
    QCOMPARE(noImage.exitCode, 2);
    QVERIFY2(noImage.err.contains("no image given (classify [DATA] CFG WEIGHTS IMAGE...)"),
             noImage.err.constData());
    // A blank line among the names is refused by its line, as train and valid refuse it in labels=.
    test::writeFile(dir.filePath("blank.names"), "cat\n\ndog\n");
    const Run blankNames = cli({"classify", cfg, weights, "/usr/share/darknet/data/dog.jpg", "--names",
                                dir.filePath("blank.names")});
    QCOMPARE(blankNames.exitCode, 1);
    QVERIFY2(blankNames.err.contains(dir.filePath("blank.names").toUtf8() +
                                     ":2: a blank line among the class names"),
             blankNames.err.constData());
    // Neither --names nor a .data: the cfg's own names file beside it, as detect takes it ("class 1").
    test::writeFile(dir.filePath("pets.names"), "kitten\npuppy\n");
    const Run beside = cli({"classify", cfg, weights, "/usr/share/darknet/data/dog.jpg", "--top", "2"});
    QCOMPARE(beside.exitCode, 0);
    QVERIFY2(beside.out.contains("%  kitten") && beside.out.contains("%  puppy"), beside.out.constData());
    QVERIFY2(beside.err.contains("note: class names from " + dir.filePath("pets.names").toUtf8() +
                                 " (beside the cfg; --names chooses others)"),
             beside.err.constData());
    // --json (for scripts, as detect's): the same top classes, in order, and an unreadable image's error.
    const Run json = cli({"classify", cfg, weights, "/usr/share/darknet/data/dog.jpg",
                          dir.filePath("gone.jpg"), "--top", "2", "--json"});
    QCOMPARE(json.exitCode, 1);
    const QJsonArray results = QJsonDocument::fromJson(json.out).array();
    QCOMPARE(results.size(), 2);
    const QJsonArray top = results[0].toObject()["top"].toArray();
    QCOMPARE(top.size(), 2);
    QVERIFY(top[0].toObject()["score"].toDouble() >= top[1].toObject()["score"].toDouble());
    for (const QJsonValue& entry : top) // as the text lists them: "  51.20%  kitten"
        QVERIFY2(beside.out.contains(QString("%1%  %2")
                                         .arg(entry.toObject()["score"].toDouble() * 100, 6, 'f', 2)
                                         .arg(entry.toObject()["name"].toString())
                                         .toUtf8()),
                 beside.out.constData());
    QVERIFY(results[0].toObject()["probabilities"].toBool());
    QVERIFY(results[1].toObject()["error"].toString().contains("gone.jpg: no such file"));
    QVERIFY(QFile::remove(dir.filePath("pets.names")));

    const QString detector = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    const QString detectorWeights = dir.filePath("shapes.weights");
    QCOMPARE(cli({"init", detector, detectorWeights}).exitCode, 0);
    const Run validDetector = cli({"valid", dir.filePath("some.data"), detector, detectorWeights});
    QCOMPARE(validDetector.exitCode, 1);
    QVERIFY2(validDetector.err.contains("ends in a detection head"), validDetector.err.constData());
    const Run classifyDetector =
        cli({"classify", detector, detectorWeights, "/usr/share/darknet/data/dog.jpg"});
    QCOMPARE(classifyDetector.exitCode, 1);
    QVERIFY2(classifyDetector.err.contains("ends in a detection head: it finds boxes, run it with detect"),
             classifyDetector.err.constData());

    // Detection data whose images are all missing (their label files exist): map and train refuse, naming
    // the list's line.
    QVERIFY(QDir(dir.path()).mkpath("boxes"));
    test::writeFile(dir.filePath("boxes/a.txt"), "0 0.5 0.5 0.2 0.2\n");
    test::writeFile(dir.filePath("boxes.list"), dir.filePath("boxes/a.jpg").toUtf8() + "\n");
    test::writeFile(dir.filePath("boxes.data"), "classes=5\ntrain=boxes.list\nvalid=boxes.list\n");
    const Run map = cli({"map", dir.filePath("boxes.data"), detector, detectorWeights});
    QCOMPARE(map.exitCode, 1);
    QVERIFY2(map.err.contains("boxes.list:1: " + dir.filePath("boxes/a.jpg").toUtf8() +
                              " does not exist: no image of the list exists"),
             map.err.constData());
    const Run anchors =
        cli({"anchors", dir.filePath("boxes.data"), "--num", "2"}); // (labels are read, not images)
    QCOMPARE(anchors.exitCode, 1);
    QVERIFY2(anchors.err.contains("1 box cannot make 2 anchors: use --num 1 or fewer"),
             anchors.err.constData());
    const Run trainMissing =
        cli({"train", dir.filePath("boxes.data"), detector, "--out", dir.filePath("run")});
    QCOMPARE(trainMissing.exitCode, 1);
    QVERIFY2(trainMissing.err.contains("does not exist: no image of the list exists"),
             trainMissing.err.constData());
    // There but unreadable: the loader gives up after 100 in a row.
    test::writeFile(dir.filePath("boxes/a.jpg"), "not a jpeg\n");
    const Run train = cli({"train", dir.filePath("boxes.data"), detector, "--out", dir.filePath("run")});
    QCOMPARE(train.exitCode, 1);
    QVERIFY2(train.err.contains("iteration 1: 100 samples in a row could not be read (the last: "),
             train.err.constData());
    // A detector's .data without valid= is said to leave mAP unmeasured (the run ended without a word).
    test::writeFile(dir.filePath("novalid.data"), "classes=5\ntrain=boxes.list\n");
    const Run noValid = cli({"train", dir.filePath("novalid.data"), detector, "--out", dir.filePath("run2")});
    QVERIFY2(noValid.err.contains("novalid.data has no valid= list: this detector's mAP is not measured (add "
                                  "valid=, or --map to score it on the training list)"),
             noValid.err.constData());
    // A valid= list that is not there has its warning, and no "has no valid= list" beside it.
    test::writeFile(dir.filePath("gone.data"), "classes=5\ntrain=boxes.list\nvalid=nothere.txt\n");
    const Run goneValid = cli({"train", dir.filePath("gone.data"), detector, "--out", dir.filePath("run3")});
    QVERIFY2(goneValid.err.contains("nothere.txt") && !goneValid.err.contains("has no valid= list"),
             goneValid.err.constData());
    // --map is Darknet's -map: every 4 epochs, at least every 100 iterations (it was every 1000).
    QByteArray many;
    for (int i = 0; i < 800; ++i)
        many += dir.filePath("boxes/a.jpg").toUtf8() + "\n";
    test::writeFile(dir.filePath("many.list"), many);
    for (const auto& [list, every] : {std::pair{"boxes.list", 100}, std::pair{"many.list", 200}}) {
        test::writeFile(dir.filePath("map.data"),
                        QByteArray("classes=5\ntrain=") + list + "\nvalid=boxes.list\n");
        const Run darknetMap =
            cli({"train", dir.filePath("map.data"), detector, "--map", "--out", dir.filePath("run4")});
        QVERIFY2(darknetMap.err.contains(
                     QString("note: --map: mAP@0.5 every %1 iterations (4 epochs of ").arg(every).toUtf8()),
                 darknetMap.err.constData());
    }
}

void TestCli::hostileInputsGetClearErrors()
{
    QTemporaryDir dir;
    const Run folder = cli({"summary", dir.path()});
    QCOMPARE(folder.exitCode, 1);
    QVERIFY(folder.err.contains(": error: is a directory, not a cfg file"));

    // A relative path the system refuses (one 300-character name) in a .data file.
    const QString data = dir.filePath("long.data");
    test::writeFile(data, "classes=5\ntrain=" + QByteArray(300, 'a') + "\nnames=x.names\n");
    for (const QStringList& arguments :
         {QStringList{"train", data, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg", "--out",
                      dir.filePath("out")},
          QStringList{"anchors", data}}) {
        const Run run = cli(arguments);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QByteArray(300, 'a') + ": cannot read it: File name too long"),
                 run.err.constData());
    }
    const Run dataFolder = cli({"anchors", dir.path()});
    QCOMPARE(dataFolder.exitCode, 1);
    QVERIFY(dataFolder.err.contains("is a directory, not a .data file"));
    // Fashion-MNIST's .data (gzip-compressed IDX) and any binary file as a detection list: refused by
    // name, not read as lines of garbage paths.
    const Run idx = cli({"anchors", QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.data"});
    QCOMPARE(idx.exitCode, 1);
    QVERIFY2(idx.err.contains("train-images-idx3-ubyte.gz: a gzip-compressed file, not an image list (one "
                              "image path per line); a detector trains on a list of images with YOLO label "
                              "files (IDX sets such as MNIST's are for classifiers)"),
             idx.err.constData());
    QCOMPARE(idx.err.count('\n'), 1); // that line alone: no warnings about label files of garbage paths
    // A folder as the list, or in it: named as a folder (the list read as empty; the entry "does not exist").
    QVERIFY(QDir(dir.path()).mkpath("folder/sub"));
    test::writeFile(dir.filePath("folder.data"), "classes=5\ntrain=folder\n");
    const Run folderList = cli({"anchors", dir.filePath("folder.data")});
    QCOMPARE(folderList.exitCode, 1);
    QVERIFY2(folderList.err.contains("folder: is a directory, not an image list (one image path per line)"),
             folderList.err.constData());
    // map with the bundled detector on a .data naming `valid` as its list.
    const auto mapOnList = [&](const QString& name, const QString& valid) {
        test::writeFile(dir.filePath(name), "classes=5\nvalid=" + valid.toUtf8() + "\n");
        return cli({"map", dir.filePath(name), QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg",
                    QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights"});
    };
    test::writeFile(dir.filePath("folder/list.txt"), "sub\n");
    const Run folderEntry = mapOnList("folder-entry.data", "folder/list.txt");
    QCOMPARE(folderEntry.exitCode, 1);
    QVERIFY2(folderEntry.err.contains("list.txt:1: sub is a directory, not an image"),
             folderEntry.err.constData());
    // A named pipe in a list exists: said as what it is (it was "does not exist").
    QVERIFY(mkfifo(dir.filePath("folder/pipe.jpg").toLocal8Bit().constData(), 0600) == 0);
    test::writeFile(dir.filePath("folder/pipes.txt"), "pipe.jpg\n");
    const Run pipeEntry = mapOnList("pipe-entry.data", "folder/pipes.txt");
    QCOMPARE(pipeEntry.exitCode, 1);
    QVERIFY2(pipeEntry.err.contains("pipes.txt:1: pipe.jpg is not a regular file (a named pipe or a device), "
                                    "not an image"),
             pipeEntry.err.constData());
    // A list named in a list (its lines were read as its own labels: "54 bad label lines").
    test::writeFile(dir.filePath("folder/outer.txt"), "list.txt\n");
    const Run nested = mapOnList("nested.data", "folder/outer.txt");
    QCOMPARE(nested.exitCode, 1);
    QVERIFY2(
        nested.err.contains("outer.txt:1: list.txt is a text file (.txt), not an image: a list names images, "
                            "one per line"),
        nested.err.constData());
    // The IDX images without train_labels=: named as IDX, with the key to add (it was called an image
    // list that needs labels=).
    test::writeFile(dir.filePath("idx.data"), "classes=10\ntrain=/usr/share/datasets/fashion-mnist/"
                                              "train-images-idx3-ubyte.gz\n");
    const Run noLabels =
        cli({"train", dir.filePath("idx.data"), QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg",
             "--out", dir.filePath("idx-run")});
    QCOMPARE(noLabels.exitCode, 1);
    QVERIFY2(
        noLabels.err.contains("train-images-idx3-ubyte.gz is a gzip-compressed file: name its labels file "
                              "with train_labels= (as cfg/fashion-mnist.data does)"),
        noLabels.err.constData());
    test::writeFile(dir.filePath("binary.list"), QByteArray("a.jpg\n\0\x01", 8));
    test::writeFile(dir.filePath("binary.data"), "classes=5\ntrain=binary.list\n");
    const Run binary = cli({"anchors", dir.filePath("binary.data")});
    QCOMPARE(binary.exitCode, 1);
    QVERIFY2(binary.err.contains("binary.list: a binary file, not an image list"), binary.err.constData());

    // /dev/zero named as a cfg, a .data file or an image list: named as binary from its first bytes
    // (they were read whole, memory filling until the machine gave out; then up to the size limit, 2 GB
    // for a list).
    const Run zeroCfg = cli({"summary", "/dev/zero"});
    QCOMPARE(zeroCfg.exitCode, 1);
    QVERIFY2(zeroCfg.err.contains("/dev/zero:1: error: this is not a text cfg (binary data on this line)"),
             zeroCfg.err.constData());
    const Run zeroData = cli({"anchors", "/dev/zero"});
    QCOMPARE(zeroData.exitCode, 1);
    QVERIFY2(zeroData.err.contains("/dev/zero: a binary file, not a .data file"), zeroData.err.constData());
    test::writeFile(dir.filePath("zero.data"), "classes=1\ntrain=/dev/zero\n");
    const Run zeroList = cli({"anchors", dir.filePath("zero.data")});
    QCOMPARE(zeroList.exitCode, 1);
    QVERIFY2(zeroList.err.contains("/dev/zero: a binary file, not an image list"), zeroList.err.constData());
    // A large text file is still read to its limit and refused by size.
    QByteArray large(65 << 20, 'a');
    test::writeFile(dir.filePath("large.cfg"), large);
    large.clear();
    const Run largeCfg = cli({"summary", dir.filePath("large.cfg")});
    QFile::remove(dir.filePath("large.cfg"));
    QCOMPARE(largeCfg.exitCode, 1);
    QVERIFY2(largeCfg.err.contains("more than 64 MB: too large for a cfg file; is it the right file?"),
             largeCfg.err.constData());

    // A .data file saved with a UTF-8 BOM reads as without it (classes= was not found behind the BOM).
    test::writeFile(dir.filePath("bom.data"), "\xEF\xBB\xBF"
                                              "classes=5\ntrain=bom.list\n");
    const Run bomData = cli({"anchors", dir.filePath("bom.data")});
    QCOMPARE(bomData.exitCode, 1);
    QVERIFY2(bomData.err.contains("bom.data:2: train=bom.list: no such file"), bomData.err.constData());
    // A Windows path in a .data file (CRLF too): the separator is named, as in image lists.
    test::writeFile(dir.filePath("win.data"), "classes=5\r\ntrain = C:\\darknet\\data\\train.txt\r\n");
    const Run winData = cli({"anchors", dir.filePath("win.data")});
    QCOMPARE(winData.exitCode, 1);
    QVERIFY2(winData.err.contains("win.data:2: train=C:\\darknet\\data\\train.txt: no such file") &&
                 winData.err.contains("written with '\\', Windows' separator: write '/'"),
             winData.err.constData());

    // A cfg's warnings reach every command that loads it, once (only summary printed them: a typo
    // trained silently with the default).
    test::writeFile(dir.filePath("typo.cfg"),
                    test::readAll(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg")
                        .replace("learning_rate=", "learning_rat="));
    const Run typo = cli({"init", dir.filePath("typo.cfg"), dir.filePath("typo.weights")});
    QCOMPARE(typo.exitCode, 0);
    QVERIFY2(typo.err.count("warning: unused key 'learning_rat=") == 1, typo.err.constData());

    // An output path that is an input: refused before anything is written (init wrote weights over the
    // cfg, partial a backbone over the trained weights).
    const QString cfgCopy = dir.filePath("same.cfg");
    QVERIFY(QFile::copy(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg", cfgCopy));
    const QByteArray cfgBytes = test::readAll(cfgCopy);
    const Run initOverCfg = cli({"init", cfgCopy, dir.filePath("./same.cfg")});
    QCOMPARE(initOverCfg.exitCode, 1);
    QVERIFY2(initOverCfg.err.contains("same.cfg is also the input " + cfgCopy.toUtf8() +
                                      ": writing it would replace that file; choose another output path"),
             initOverCfg.err.constData());
    QCOMPARE(test::readAll(cfgCopy), cfgBytes);
    const QString weights = dir.filePath("fm.weights");
    QCOMPARE(cli({"init", cfgCopy, weights}).exitCode, 0);
    const QByteArray weightBytes = test::readAll(weights);
    QVERIFY(QFile::link(weights, dir.filePath("link.weights")));
    const Run partialOverWeights = cli({"partial", cfgCopy, weights, dir.filePath("link.weights"), "2"});
    QCOMPARE(partialOverWeights.exitCode, 1);
    QVERIFY2(partialOverWeights.err.contains("link.weights is also the input " + weights.toUtf8()),
             partialOverWeights.err.constData());
    QCOMPARE(test::readAll(weights), weightBytes);

    // Sizes no machine holds: refused by the description with the line, before anything is allocated
    // (414 × 414 × 10^6 outputs of a 3×3 unpadded convolution, 4 bytes each).
    const QString huge = dir.filePath("huge.cfg");
    test::writeFile(huge, "[net]\nwidth=416\nheight=416\nchannels=3\n[convolutional]\nfilters=1000000\n"
                          "size=3\n[connected]\noutput=100000\n");
    for (const char* command : {"summary", "init", "bench"}) {
        const QStringList arguments = QString(command) == "init"
                                          ? QStringList{"init", huge, dir.filePath("w")}
                                          : QStringList{command, huge};
        const Run run = cli(arguments);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(
                     "huge.cfg:5: error: layer 0: the layer would need 685.6 GB of output for the batch "
                     "(171396000000 values"),
                 run.err.constData());
    }
    // A network that fits the limits but not the machine: refused with both figures (bench builds an
    // inference-only net, whose outputs share buffers: 15.1 MB instead of 18.3).
    qputenv("NETWRIGHT_MEMORY_LIMIT_MB", "10");
    const Run tight = cli({"bench", QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg"});
    qunsetenv("NETWRIGHT_MEMORY_LIMIT_MB");
    QCOMPARE(tight.exitCode, 1);
    QVERIFY2(tight.err.contains("the network needs about 15.1 MB (weights, outputs for a batch of 1 and "
                                "workspace) but NETWRIGHT_MEMORY_LIMIT_MB=10 allows 10.5 MB (10 MiB)"),
             tight.err.constData());
    // A value that is no whole number of MiB is no limit (strtoll read "8G" as 8 MiB, "abc" as 0, and
    // a count past its range as -1): the bench runs, with a warning that no limit holds.
    for (const char* unreadable : {"8G", "abc", "99999999999999999999", "0", "-5"}) {
        qputenv("NETWRIGHT_MEMORY_LIMIT_MB", unreadable);
        const Run run =
            cli({"bench", QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg", "--runs", "1"});
        qunsetenv("NETWRIGHT_MEMORY_LIMIT_MB");
        QVERIFY2(run.exitCode == 0, (QByteArray(unreadable) + ": " + run.err).constData());
        QVERIFY2(run.err.startsWith("warning: NETWRIGHT_MEMORY_LIMIT_MB='" + QByteArray(unreadable) +
                                    "' is not a whole number of MiB from 1 to 1073741824"),
                 run.err.constData());
    }
}

// A names or labels file saved as Latin-1 (an old Windows editor) shows its letters as U+FFFD in JSON
// and in the studio: valid, map and train say so with the file and line, as detect does (they were
// silent).
void TestCli::namesNotInUtf8AreSaidByEveryCommand()
{
    QTemporaryDir dir;
    const auto [cfg, weights] = tinyClassifier(dir);
    test::writeFile(dir.filePath("labels.txt"), "dog\n\xe9t\xe9\n"); // "été" in Latin-1
    // (an image of each class: a list of one class only is refused for training)
    const std::string latin1 = dir.path().toStdString() + "/\xe9t\xe9.jpg";
    std::filesystem::copy_file("/usr/share/darknet/data/horses.jpg", latin1);
    test::writeFile(dir.filePath("pets.list"),
                    "/usr/share/darknet/data/dog.jpg\n" + QByteArray::fromStdString(latin1) + "\n");
    test::writeFile(dir.filePath("pets.data"),
                    "classes=2\ntrain=pets.list\nvalid=pets.list\nlabels=labels.txt\n");
    const QByteArray said = dir.filePath("labels.txt").toUtf8() + ":2: this name is not UTF-8 text";
    const Run valid = cli({"valid", dir.filePath("pets.data"), cfg, weights});
    QVERIFY2(valid.exitCode == 0 && valid.err.contains(said), valid.err.constData());
    const Run train =
        cli({"train", dir.filePath("pets.data"), cfg, "--max-batches", "1", "--out", dir.filePath("run")});
    QVERIFY2(train.exitCode == 0 && train.err.contains(said), train.err.constData());
    // A UTF-8 file is not warned about.
    test::writeFile(dir.filePath("labels.txt"), "dog\n\xc3\xa9t\xc3\xa9\n");
    const Run utf8 = cli({"valid", dir.filePath("pets.data"), cfg, weights});
    QVERIFY2(utf8.exitCode == 0 && !utf8.err.contains("UTF-8"), utf8.err.constData());
    // Weights of NaN: the figures are printed, the images counted as wrong, and the exit status is 1
    // (it was 0: diverged weights passed a script's valid gate).
    QByteArray diverged = test::readAll(weights);
    for (qsizetype at = 20; at + 4 <= diverged.size(); at += 4) {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        std::memcpy(diverged.data() + at, &nan, 4);
    }
    test::writeFile(dir.filePath("nan.weights"), diverged);
    for (const QStringList& json : {QStringList{}, QStringList{"--json"}}) {
        const Run nan =
            cli(QStringList{"valid", dir.filePath("pets.data"), cfg, dir.filePath("nan.weights")} + json);
        QCOMPARE(nan.exitCode, 1);
        QVERIFY2(nan.err.contains("error: 1 of 1 image has scores that are not numbers (NaN): the weights "
                                  "diverged in training, or belong to another network"),
                 nan.err.constData());
        QVERIFY2(nan.out.contains(json.isEmpty() ? "1 images: top-1 0.00%" : "\"undecided\": 1"),
                 nan.out.constData());
    }

    // A detector's names: map, and train (which reads the names only to check them).
    QVERIFY(QFile::copy("/usr/share/darknet/data/dog.jpg", dir.filePath("dog.jpg")));
    test::writeFile(dir.filePath("dog.txt"), "0 0.5 0.5 0.2 0.2\n");
    test::writeFile(dir.filePath("boxes.list"), dir.filePath("dog.jpg").toUtf8() + "\n");
    test::writeFile(dir.filePath("shapes.names"), "circle\nsquare\ntriangle\nstar\nc\xe6ur\n");
    test::writeFile(dir.filePath("boxes.data"),
                    "classes=5\ntrain=boxes.list\nvalid=boxes.list\nnames=shapes.names\n");
    const QByteArray saidNames = dir.filePath("shapes.names").toUtf8() + ":5: this name is not UTF-8 text";
    const QString detector = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    const Run map = cli({"map", dir.filePath("boxes.data"), detector,
                         QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights"});
    QVERIFY2(map.exitCode == 0 && map.err.contains(saidNames), map.err.constData());
    const Run trainDetector = cli({"train", dir.filePath("boxes.data"), detector, "--max-batches", "1",
                                   "--out", dir.filePath("run-boxes")});
    QVERIFY2(trainDetector.exitCode == 0 && trainDetector.err.contains(saidNames),
             trainDetector.err.constData());
}

// shapes-tiny.weights (about 5 MB) into the Fashion-MNIST cfg gave NaN scores when the rest was
// ignored: now refused, unless asked for with --allow-extra.
void TestCli::anotherNetworksWeightsAreRefused()
{
    QTemporaryDir dir;
    const QString cfg = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg";
    const QString weights = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights";
    const QString input = dir.filePath("in.f32");
    test::writeFile(input, QByteArray(28 * 28 * 4, 0));
    const Run refused = cli({"forward", cfg, weights, "--input", input, "--out", dir.filePath("out.f32")});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains("shapes-tiny.weights: the file holds") &&
                 refused.err.contains("it belongs to a larger network (another cfg, or this one with more") &&
                 !refused.err.contains("for 3 classes"), // (an example read as this network's classes)
             refused.err.constData());
    QVERIFY(!QFileInfo::exists(dir.filePath("out.f32")));
    const Run allowed =
        cli({"forward", cfg, weights, "--input", input, "--out", dir.filePath("out.f32"), "--allow-extra"});
    // (Another network's weights, read: the output is NaN, written but not called a success.)
    QCOMPARE(allowed.exitCode, 1);
    QVERIFY(allowed.err.contains("were ignored (--allow-extra)"));
    QVERIFY2(allowed.err.contains("output values are not numbers (NaN or infinite), written as computed"),
             allowed.err.constData());
    QCOMPARE(test::readAll(dir.filePath("out.f32")).size(), 10 * 4);
    // Read all the same, the wrong weights give NaN scores: said as such (they were "raw scores of a
    // network without a softmax", printed as -nan), exit status 1.
    const QString image = dir.filePath("grey.pgm"); // (a binary PGM: 28×28, every pixel 128)
    test::writeFile(image, "P5\n28 28\n255\n" + QByteArray(28 * 28, char(128)));
    const Run scored = cli({"classify", cfg, weights, image, "--allow-extra"});
    QCOMPARE(scored.exitCode, 1);
    QVERIFY2(scored.err.contains(": the network's scores are not numbers (NaN or infinite)") &&
                 !scored.out.contains("nan") && !scored.out.contains("raw scores"),
             scored.err.constData());
    // map with a classifier's cfg: said to be one, before its weights' size is
    const Run mapped = cli({"map", QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.data", cfg, weights});
    QCOMPARE(mapped.exitCode, 1);
    QVERIFY2(mapped.err.contains("fashion-mnist.cfg has no detection head") &&
                 !mapped.err.contains("shapes-tiny.weights"),
             mapped.err.constData());
}

// A command whose results cannot be written to stdout (a full disk behind `> results.json`) fails:
// it exited 0 with an empty file.
void TestCli::unwritableResultsFail()
{
    const QString cfg = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    for (const QStringList& arguments :
         {QStringList{"summary", cfg, "--json"}, QStringList{"summary", cfg}, QStringList{"--help"}}) {
        QProcess process;
        process.setStandardOutputFile("/dev/full");
        process.start(NETWRIGHT_CLI, arguments);
        QVERIFY(process.waitForFinished(60000));
        const QByteArray err = process.readAllStandardError();
        QCOMPARE(process.exitCode(), 1);
        QVERIFY2(
            err.contains("error: cannot write the standard output (No space left on device): the results "
                         "are incomplete"),
            err.constData());
    }
    const Run fine = cli({"summary", cfg, "--json"}); // (the same, written: exit 0, no such message)
    QCOMPARE(fine.exitCode, 0);
    QVERIFY(!fine.err.contains("cannot write"));
}

// A raw tensor with NaN and infinity in it still runs, but forward says how many values are not finite
// and where the first is; a clean tensor gets no warning.
void TestCli::nonFiniteInputIsNamed()
{
    QTemporaryDir dir;
    const QString cfg = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    const QString weights = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights";
    std::vector<float> values(192 * 192 * 3, 0.5f);
    const QString clean = dir.filePath("clean.f32"), dirty = dir.filePath("dirty.f32");
    const auto save = [&](const QString& path) {
        test::writeFile(path, QByteArray(reinterpret_cast<const char*>(values.data()),
                                         qsizetype(values.size() * sizeof(float))));
    };
    save(clean);
    values[1234] = NAN;
    values[5000] = INFINITY;
    save(dirty);
    const Run quiet =
        cli({"forward", cfg, weights, "--input", clean, "--out", dir.filePath("clean-out.f32")});
    QCOMPARE(quiet.exitCode, 0);
    // An input of another size is refused before it is read whole: /dev/zero (it filled memory), a
    // short file; a folder is named as one (the message named no file).
    const QByteArray tensor = "the network's input is 110592 floats (442368 bytes, CHW float32)";
    QVERIFY(QFile::link("/dev/zero", dir.filePath("zero.f32")));
    const Run endless = cli({"forward", cfg, weights, "--input", dir.filePath("zero.f32")});
    QVERIFY2(endless.exitCode == 1 &&
                 endless.err.contains("zero.f32: holds more than 442368 bytes but " + tensor),
             endless.err.constData());
    test::writeFile(dir.filePath("short.f32"), QByteArray(8, 0));
    const Run tooShort = cli({"forward", cfg, weights, "--input", dir.filePath("short.f32")});
    QVERIFY2(tooShort.exitCode == 1 && tooShort.err.contains("short.f32: holds 8 bytes but " + tensor),
             tooShort.err.constData());
    QVERIFY(QDir(dir.path()).mkpath("folder.f32"));
    const Run folder = cli({"forward", cfg, weights, "--input", dir.filePath("folder.f32")});
    QVERIFY2(folder.exitCode == 1 && folder.err.contains("folder.f32: is a directory"),
             folder.err.constData());
    QVERIFY2(!quiet.err.contains("warning"), quiet.err.constData());
    const Run warned = cli({"forward", cfg, weights, "--input", dirty, "--out", dir.filePath("out.f32")});
    QCOMPARE(warned.exitCode, 1); // (its output is NaN too: said, and written, blaming the input)
    QVERIFY2(warned.err.contains("output values are not numbers (NaN or infinite), written as computed: the "
                                 "input holds values that are not numbers (said above)"),
             warned.err.constData());
    QVERIFY2(warned.err.contains("warning: " + dirty.toUtf8() +
                                 ": 2 of 110592 values are not finite (NaN or infinity; the first is value "
                                 "1234)"),
             warned.err.constData());
    QCOMPARE(test::readAll(dir.filePath("out.f32")).size(),
             test::readAll(dir.filePath("clean-out.f32")).size());
}

// devices: the CUDA backend is in the build exactly when it was configured in, and a machine without a
// GPU (this one, CI) gets exit status 1 and the reason in words; one with a GPU gets its list.
void TestCli::devicesListsGpusOrSaysWhyNone()
{
    const Run run = cli({"devices", "--json"});
    const QJsonObject report = QJsonDocument::fromJson(run.out).object();
    QVERIFY2(!report.isEmpty(), run.out.constData());
#ifdef NETWRIGHT_WITH_CUDA
    QVERIFY(report["cuda_built"].toBool());
    QVERIFY2(report["runtime_cuda"].toString().startsWith("13."), run.out.constData());
    QVERIFY2(report["cudnn"].toString().startsWith("9."), run.out.constData());
    // cuBLAS is opened on first use (backend/cuda/cublas_loader.cpp): `devices` asks its version
    // through it; a command without a GPU never loads it.
    QVERIFY2(report["cublas"].toString().startsWith("13.") && !report.contains("cublas_problem"),
             run.out.constData());
    QVERIFY2(!report.contains("cudnn_problem"), run.out.constData());
    // NCCL (train --gpus), where the build has it: its version, as it is installed here too.
    QVERIFY2(!report.contains("nccl") ||
                 (report["nccl"].toString().startsWith("2.") && !report.contains("nccl_problem")),
             run.out.constData());
    // (libcublas.so.N itself: cuDNN opens cuBLASLt on its own when it starts.)
    const QByteArray devicesLog = librariesOpened({"devices"}, run.exitCode);
    QVERIFY(opens(devicesLog, "libcublas.so.") && opens(devicesLog, "libcudnn.so."));
    // The CUDA runtime is linked statically, and cuBLAS, cuDNN and NCCL are opened only when a GPU is
    // used, so the programs start where none is installed (a .deb on a machine without CUDA).
    const QByteArray summaryLog =
        librariesOpened({"summary", QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg"}, 0);
    for (const char* library : {"libcublas.so.", "libcudnn.so.", "libnccl.so.", "libcudart.so."})
        QVERIFY2(!opens(summaryLog, library), library);
#else
    QVERIFY(!report["cuda_built"].toBool());
    QVERIFY(report["problem"].toString().contains("no CUDA backend"));
#endif
    const QJsonArray devices = report["devices"].toArray();
    if (devices.isEmpty()) {
        QCOMPARE(run.exitCode, 1);
        const QString problem = report["problem"].toString();
        QVERIFY2(problem.contains("no CUDA") || problem.contains("driver"), qPrintable(problem));
        const Run text = cli({"devices"});
        QCOMPARE(text.exitCode, 1);
        QVERIFY2(text.err.startsWith("no GPU: " + problem.toUtf8()), text.err.constData());
        return;
    }
    QCOMPARE(run.exitCode, 0);
    for (const auto& entry : devices) {
        const QJsonObject device = entry.toObject();
        QVERIFY(!device["name"].toString().isEmpty());
        QVERIFY(device["total_bytes"].toDouble() >= device["free_bytes"].toDouble());
        QVERIFY(device["free_bytes"].toDouble() > 0);
    }
}

// --device: a typo, or a GPU this machine does not have, ends in words before any work; check-device
// without a GPU is a clear SKIP with CTest's skip status.
void TestCli::deviceChoiceIsCheckedBeforeWork()
{
    const QString cfg = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    const Run typo = cli({"bench", cfg, "--device", "tpu"});
    QCOMPARE(typo.exitCode, 1);
    QVERIFY2(typo.err.contains("--device tpu: expected cpu, cuda or cuda:N"), typo.err.constData());
    QCOMPARE(cli({"bench", cfg, "--device", "cuda:x"}).exitCode, 1);
    QCOMPARE(cli({"bench", cfg, "--device", "cuda: 1"}).exitCode, 1);
    // check-device: a typo is a failure, not a skip (CTest must not hide it).
    const Run typoCheck = cli({"check-device", cfg, "--device", "cdua"});
    QCOMPARE(typoCheck.exitCode, 1);
    QVERIFY2(typoCheck.err.contains("--device cdua: expected cpu, cuda or cuda:N"),
             typoCheck.err.constData());
    // (so is --device cpu: it answered 77, the skip of a machine without a GPU)
    const Run cpuCheck = cli({"check-device", cfg, "--device", "cpu"});
    QCOMPARE(cpuCheck.exitCode, 1);
    QVERIFY2(cpuCheck.err.contains("check-device compares a GPU with the CPU"), cpuCheck.err.constData());
    // …and so is a broken network in its list, with or without a GPU.
    QTemporaryDir dir;
    const QString broken =
        writeFile(dir, "broken.cfg", "[net]\nwidth=8\nheight=8\nchannels=3\n[maxpool]\nsize=0\n");
    const Run brokenCheck = cli({"check-device", cfg, broken});
    QCOMPARE(brokenCheck.exitCode, 1);
    QVERIFY2(brokenCheck.err.contains(broken.toUtf8() + ":6: error"), brokenCheck.err.constData());
    QCOMPARE(cli({"bench", cfg, "--device", "cpu", "--runs", "1"}).exitCode, 0);
    // --half (FP16 convolutions) is a GPU's: refused on the CPU, and with training, in words.
    const QString dog = "/usr/share/darknet/data/dog.jpg";
    const QString tinyWeights =
        QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights";
    for (const QStringList& command :
         {QStringList{"bench", cfg, "--half"}, QStringList{"detect", cfg, tinyWeights, dog, "--half"},
          QStringList{"forward", cfg, tinyWeights, "--input", dog, "--half"}}) {
        const Run refused = cli(command);
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("--half needs --device cuda"), refused.err.constData());
    }
    const Run halfTraining = cli({"check-device", cfg, "--half", "--train"});
    QCOMPARE(halfTraining.exitCode, 1);
    QVERIFY2(halfTraining.err.contains("--half with --train: training runs in exact FP32"),
             halfTraining.err.constData());
    const Run halfBench = cli({"bench", cfg, "--train", "--half", "--device", "cuda"});
    QCOMPARE(halfBench.exitCode, 1);
    // --tf32 (FP32 on tensor cores) under the same rules, and never with --half.
    QTemporaryDir outputs; // (a refused run leaves no --out folder)
    const Run tf32Cpu = cli({"detect", cfg, tinyWeights, dog, "--tf32", "--out", outputs.filePath("boxes")});
    QCOMPARE(tf32Cpu.exitCode, 1);
    QVERIFY2(tf32Cpu.err.contains("--tf32 needs --device cuda: TF32 runs on a GPU's tensor cores"),
             tf32Cpu.err.constData());
    QVERIFY(!QFileInfo::exists(outputs.filePath("boxes")));
    // --no-graph on the CPU likewise (it was ignored in silence).
    const Run graphCpu = cli({"bench", cfg, "--no-graph", "--runs", "1"});
    QCOMPARE(graphCpu.exitCode, 1);
    QVERIFY2(graphCpu.err.contains("error: --no-graph needs --device cuda"), graphCpu.err.constData());
    const Run tf32Training = cli({"check-device", cfg, "--tf32", "--train"});
    QCOMPARE(tf32Training.exitCode, 1);
    QVERIFY2(tf32Training.err.contains("--tf32 with --train: training runs in exact FP32"),
             tf32Training.err.constData());
    const Run both = cli({"bench", cfg, "--half", "--tf32", "--device", "cuda"});
    QCOMPARE(both.exitCode, 2);
    QVERIFY2(both.err.contains("--half excludes --tf32"), both.err.constData());
    // train: the device is checked before the data is read or the output folder made.
    QTemporaryDir scratch;
    const QString out = scratch.path() + "/run";
    const QString data = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.data";
    const QString classifier = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg";
    const Run trainTypo = cli({"train", data, classifier, "--device", "tpu", "--out", out});
    QCOMPARE(trainTypo.exitCode, 1);
    QVERIFY2(trainTypo.err.contains("--device tpu: expected cpu, cuda or cuda:N"), trainTypo.err.constData());
    QVERIFY(!QFileInfo::exists(out));
    // train --gpus (one process per GPU): the list is checked before anything starts.
    for (const QString list : {"a,b", "0,0", "1,", ""}) {
        const Run refused = cli({"train", data, classifier, "--gpus", list, "--out", out});
        QCOMPARE(refused.exitCode, list.isEmpty() ? 2 : 1); // 2: a usage error
        QVERIFY2(list.isEmpty() || refused.err.contains("--gpus " + list.toUtf8() + ": expected GPU numbers"),
                 refused.err.constData());
    }
    const Run twice = cli({"train", data, classifier, "--gpus", "0", "--device", "cuda", "--out", out});
    QCOMPARE(twice.exitCode, 1);
    QVERIFY2(twice.err.contains("--gpus and --device choose the GPUs twice"), twice.err.constData());
    QVERIFY(!QFileInfo::exists(out));

    const Run list = cli({"devices", "--json"});
    const QJsonObject report = QJsonDocument::fromJson(list.out).object();
    if (!report["devices"].toArray().isEmpty())
        QSKIP("this machine has a GPU: the no-GPU answers cannot be checked here");
    const QByteArray problem = report["problem"].toString().toUtf8();
    for (const QStringList& command : {QStringList{"bench", cfg, "--device", "cuda:0"},
                                       QStringList{"bench", cfg, "--device", "cuda:0", "--half"},
                                       QStringList{"bench", cfg, "--device", "cuda:0", "--train"}}) {
        const Run gpu = cli(command);
        QCOMPARE(gpu.exitCode, 1);
        QVERIFY2(gpu.err.contains("--device cuda:0: no GPU: " + problem), gpu.err.constData());
    }
    const QString weights = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights";
    for (const QStringList& command :
         {QStringList{"detect", cfg, weights, "/usr/share/darknet/data/dog.jpg", "--device", "cuda:0"},
          QStringList{"forward", cfg, weights, "--input", "/usr/share/darknet/data/dog.jpg", "--device",
                      "cuda:0"}}) {
        const Run refused = cli(command);
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("--device cuda:0: no GPU: " + problem), refused.err.constData());
    }
    const Run check = cli({"check-device", cfg});
    QCOMPARE(check.exitCode, 77);
    QVERIFY2(check.out.startsWith("SKIP: --device cuda: no GPU: " + problem), check.out.constData());
    const Run checkTraining = cli({"check-device", "--train", "--batch", "2", cfg});
    QCOMPARE(checkTraining.exitCode, 77);
    const Run trainGpu = cli({"train", data, classifier, "--device", "cuda", "--out", out});
    QCOMPARE(trainGpu.exitCode, 1);
    QVERIFY2(trainGpu.err.contains("--device cuda: no GPU: " + problem), trainGpu.err.constData());
    QVERIFY(!QFileInfo::exists(out));
    const Run gpus = cli({"train", data, classifier, "--gpus", "0,1", "--out", out});
    QCOMPARE(gpus.exitCode, 1);
    QVERIFY2(gpus.err.contains("--gpus 0,1: --device cuda:0: no GPU: " + problem), gpus.err.constData());
    QVERIFY(!QFileInfo::exists(out));
    // Evaluation on a GPU: valid, map and classify refuse it in the same words.
    const QString shapesWeights =
        QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights";
    const QString classifierWeights = scratch.filePath("fm.weights");
    QCOMPARE(cli({"init", classifier, classifierWeights}).exitCode, 0);
    const QString shapesData = writeFile(scratch, "shapes.data", "classes=3\nvalid=valid.txt\n");
    for (const QStringList& command :
         {QStringList{"valid", data, classifier, classifierWeights, "--device", "cuda:0"},
          QStringList{"map", shapesData, cfg, shapesWeights, "--device", "cuda:0"},
          QStringList{"classify", classifier, classifierWeights, "/usr/share/darknet/data/dog.jpg",
                      "--device", "cuda:0"}}) {
        const Run refused = cli(command);
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("--device cuda:0: no GPU: " + problem), refused.err.constData());
    }
}

// A cfg with letter_box=1 is letterboxed by detect as by map (and AlexeyAB's test_detector): detect
// stretched it, so the detections deployed were not those scored.
void TestCli::detectLetterboxesWhenTheCfgSays()
{
    QTemporaryDir dir;
    const QString shapes = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    const QString weights = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights";
    QFile source(shapes);
    QVERIFY(source.open(QIODevice::ReadOnly));
    QByteArray text = source.readAll();
    const qsizetype net = text.indexOf("[net]\n");
    QVERIFY(net >= 0);
    text.insert(net + 6, "letter_box=1\n");
    const QString letterboxed = dir.filePath("letterboxed.cfg");
    QFile out(letterboxed);
    QVERIFY(out.open(QIODevice::WriteOnly) && out.write(text) == text.size());
    out.close();
    // The names beside the cfg are found without --names, as the studio finds them (it printed "class 4").
    QVERIFY(QFile::copy(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.names",
                        dir.filePath("letterboxed.names")));
    const QString dog = "/usr/share/darknet/data/dog.jpg"; // 768x576: letterboxing pads it
    const QStringList options{"--thresh", "0.01", "--json"};
    Run fromCfg = cli(QStringList{"detect", letterboxed, weights, dog} + options);
    const Run fromFlag = cli(QStringList{"detect", shapes, weights, dog, "--letterbox"} + options);
    const Run stretched = cli(QStringList{"detect", shapes, weights, dog} + options);
    QCOMPARE(fromCfg.exitCode, 0);
    QCOMPARE(fromFlag.exitCode, 0);
    QVERIFY2(fromCfg.out.contains("\"confidence\""), fromCfg.out.constData()); // boxes to compare
    QVERIFY2(!fromCfg.out.contains("\"class ") &&
                 fromCfg.err.contains("note: class names from " + dir.filePath("letterboxed.names").toUtf8()),
             fromCfg.err.constData());
    QCOMPARE(fromCfg.out.replace(letterboxed.toUtf8(), shapes.toUtf8()), fromFlag.out);
    QVERIFY(stretched.out != fromFlag.out);
    // forward too: the raw outputs are those detect decodes (it stretched the image whatever the cfg said).
    QCOMPARE(
        cli({"forward", letterboxed, weights, "--input", dog, "--out", dir.filePath("boxed.f32")}).exitCode,
        0);
    QCOMPARE(cli({"forward", shapes, weights, "--input", dog, "--out", dir.filePath("plain.f32")}).exitCode,
             0);
    QVERIFY(test::readAll(dir.filePath("boxed.f32")) != test::readAll(dir.filePath("plain.f32")));
}

// detect --save-labels (AlexeyAB's -save_labels) writes each image's boxes as the label file training
// reads, in Darknet's relative "class x y w h" form; a label file that exists is hand work and is kept.
void TestCli::detectSavesLabelsWhereTrainingReadsThem()
{
    QTemporaryDir dir;
    const QString shapes = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    const QString weights = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights";
    const QString dog = "/usr/share/darknet/data/dog.jpg"; // 768x576
    QVERIFY(QDir(dir.path()).mkpath("photos") && QDir(dir.path()).mkpath("VOC/JPEGImages"));
    for (const char* copy : {"photos/dog.jpg", "photos/kept.jpg", "VOC/JPEGImages/voc.jpg"})
        QVERIFY(QFile::copy(dog, dir.filePath(copy)));
    const QByteArray handMade = "0 0.5 0.5 0.25 0.25\n";
    QFile kept(dir.filePath("photos/kept.txt"));
    QVERIFY(kept.open(QIODevice::WriteOnly) && kept.write(handMade) == handMade.size());
    kept.close();
    const Run run =
        cli({"detect", shapes, weights, dir.filePath("photos"), dir.filePath("VOC/JPEGImages/voc.jpg"),
             "--thresh", "0.01", "--json", "--save-labels"});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(
        run.err.contains("detect: 2 label files written; 1 image had a label file already, kept as it was (" +
                         dir.filePath("photos/kept.txt").toUtf8() + ")"),
        run.err.constData());
    QFile keptAfter(dir.filePath("photos/kept.txt"));
    QVERIFY(keptAfter.open(QIODevice::ReadOnly));
    QCOMPARE(keptAfter.readAll(), handMade);
    // The lines are the JSON's pixel boxes, relative to the image's 768x576.
    const QJsonArray results = QJsonDocument::fromJson(run.out).array();
    QCOMPARE(results.size(), 3);
    for (const auto& [image, label] : {std::pair{"photos/dog.jpg", "photos/dog.txt"},
                                       std::pair{"VOC/JPEGImages/voc.jpg", "VOC/labels/voc.txt"}}) {
        QJsonArray boxes;
        for (const QJsonValue result : results)
            if (result["file"].toString().endsWith(image))
                boxes = result["detections"].toArray();
        QVERIFY(!boxes.isEmpty());
        // One line per object, its most likely class (AlexeyAB's -save_labels): the JSON lists a box once
        // per class above the threshold (the lines were too, stacked on one box).
        QJsonArray objects;
        for (const QJsonValue candidate : boxes) {
            bool best = true;
            for (const QJsonValue other : boxes)
                best = best && (other["box"] != candidate["box"] ||
                                other["confidence"].toDouble() < candidate["confidence"].toDouble() ||
                                (other["confidence"].toDouble() == candidate["confidence"].toDouble() &&
                                 other["class"].toInt() >= candidate["class"].toInt()));
            if (best)
                objects.append(candidate);
        }
        QVERIFY2(objects.size() < boxes.size(), "a box above the threshold in two classes, at --thresh 0.01");
        QFile file(dir.filePath(label));
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(dir.filePath(label)));
        const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), objects.size());
        for (qsizetype i = 0; i < lines.size(); ++i) {
            const QStringList f = lines[i].split(' ');
            QCOMPARE(f.size(), 5);
            const QJsonObject box = objects[i].toObject();
            const QJsonArray xywh = box["box"].toArray();
            QCOMPARE(f[0].toInt(), box["class"].toInt());
            QVERIFY(qAbs(f[1].toDouble() - (xywh[0].toDouble() + xywh[2].toDouble() / 2) / 768) < 2e-6);
            QVERIFY(qAbs(f[2].toDouble() - (xywh[1].toDouble() + xywh[3].toDouble() / 2) / 576) < 2e-6);
            QVERIFY(qAbs(f[3].toDouble() - xywh[2].toDouble() / 768) < 2e-6);
            QVERIFY(qAbs(f[4].toDouble() - xywh[3].toDouble() / 576) < 2e-6);
        }
    }
    // "JPEGImages/…" typed from inside the set's folder goes to labels/ too (the rule reads whole paths);
    // two images that would share a label file are named, the second not written; an empty result
    // is said; Darknet's underscore is answered.
    QVERIFY(QDir(dir.path()).mkpath("VOC2/JPEGImages") && QDir(dir.path()).mkpath("twins"));
    QVERIFY(QFile::copy(dog, dir.filePath("VOC2/JPEGImages/v2.jpg")));
    const QString here = QDir::currentPath();
    QVERIFY(QDir::setCurrent(dir.filePath("VOC2")));
    const Run relative = cli({"detect", shapes, weights, "JPEGImages", "--save-labels", "--thresh", "0.999"});
    QVERIFY(QDir::setCurrent(here));
    QCOMPARE(relative.exitCode, 0);
    QVERIFY2(QFileInfo(dir.filePath("VOC2/labels/v2.txt")).isFile() &&
                 !QFileInfo(dir.filePath("VOC2/JPEGImages/v2.txt")).exists(),
             relative.err.constData());
    QVERIFY2(relative.err.contains("detect: 1 label file written (empty: no box above the threshold"),
             relative.err.constData());
    QVERIFY(QFile::copy(dog, dir.filePath("twins/a.jpg")) && QFile::copy(dog, dir.filePath("twins/a.png")));
    const Run twins = cli({"detect", shapes, weights, dir.filePath("twins"), "--save-labels"});
    QCOMPARE(twins.exitCode, 1);
    QVERIFY2(twins.err.contains("a.png and " + dir.filePath("twins/a.jpg").toUtf8() +
                                " share the label file " + dir.filePath("twins/a.txt").toUtf8() +
                                ": written for the first only"),
             twins.err.constData());
    const Run underscore = cli({"detect", shapes, weights, dog, "--save_labels"});
    QCOMPARE(underscore.exitCode, 2);
    QVERIFY2(underscore.err.contains("error: --save_labels: here it is --save-labels"),
             underscore.err.constData());
    // A video gets no label file, and says so.
    const Run video = cli({"detect", shapes, weights, dir.filePath("none.mp4"), "--save-labels"});
    QVERIFY2(video.err.contains("note: --save-labels writes label files for images"), video.err.constData());
}

// detect's box lines keep their columns with names beyond ASCII: printf padded "Stern ä" by bytes (one
// column short) and "四角形" (three short). Each line's "%" sits in the same terminal column.
void TestCli::namesBeyondAsciiKeepColumnsInLine()
{
    QTemporaryDir dir;
    const QString shapes = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    const QString weights = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights";
    QFile names(dir.filePath("n.names"));
    QVERIFY(names.open(QIODevice::WriteOnly));
    names.write(
        "Kreis \xc3\xb6\n\xe5\x9b\x9b\xe8\xa7\x92\xe5\xbd\xa2\ntriangle\nStern \xc3\xa4\nKreuz u\xcc\x88\n");
    names.close();
    const Run run = cli({"detect", shapes, weights, "/usr/share/darknet/data/dog.jpg", "--thresh", "0.001",
                         "--names", dir.filePath("n.names")});
    QCOMPARE(run.exitCode, 0);
    QSet<QString> seen;
    QSet<qsizetype> percentColumns;
    for (const QString& line : QString::fromUtf8(run.out).split('\n')) {
        if (!line.startsWith("  "))
            continue;
        // (columns: characters, the CJK ones two, the combining diaeresis none)
        qsizetype column = 0;
        for (const QChar c : line.left(line.indexOf('%'))) {
            const char16_t u = c.unicode();
            column += (u >= 0x4E00 && u <= 0x9FFF) ? 2 : (u >= 0x0300 && u <= 0x036F) ? 0 : 1;
        }
        percentColumns.insert(column);
        seen.insert(line.mid(2, 5));
    }
    QVERIFY2(seen.size() >= 3, run.out.constData()); // several names, so that the columns are compared
    QVERIFY2(percentColumns.size() == 1, run.out.constData());
}

// anchors reads no cfg, so it says nothing of max= (it warned "max=1" on every set); a box training
// drops (thinner than 0.001 of the image) takes no anchor; fewer distinct sizes than anchors are said.
void TestCli::anchorsLeaveOutWhatTrainingDrops()
{
    QTemporaryDir dir;
    const QString root = dir.path();
    QVERIFY(QDir(root).mkpath("images"));
    QFile list(root + "/train.txt");
    QVERIFY(list.open(QIODevice::WriteOnly));
    for (int i = 0; i < 4; ++i) {
        const QString label = root + QString("/images/%1.txt").arg(i);
        QFile file(label);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(i == 0 ? "0 0.5 0.5 0.0009 0.3\n" : "");
        file.write("0 0.5 0.5 0.1 0.1\n0 0.3 0.3 0.1 0.1\n1 0.5 0.5 0.5 0.25\n");
        list.write((root + QString("/images/%1.jpg\n").arg(i)).toUtf8());
    }
    list.close();
    QFile data(root + "/obj.data");
    QVERIFY(data.open(QIODevice::WriteOnly));
    data.write(("classes=2\ntrain=" + root + "/train.txt\n").toUtf8());
    data.close();
    const Run two = cli({"anchors", root + "/obj.data", "--num", "2", "--width", "416", "--height", "416"});
    QCOMPARE(two.exitCode, 0);
    QVERIFY2(two.out.contains("anchors = 42,42, 208,104"), two.out.constData());
    // (the IoU of the anchors as written: 41.6-pixel boxes against 42, (41.6 / 42)² for 8 of 12 boxes)
    QVERIFY2(two.out.contains("average IoU = 98.74% over 12 boxes"), two.out.constData());
    QVERIFY2(two.err.contains("1 box is narrower or lower than 0.001 of the image (first in " +
                              root.toUtf8() + "/images/0.txt): training drops such boxes"),
             two.err.constData());
    QVERIFY2(!two.err.contains("max="), two.err.constData());
    // --json: the same anchors as pairs and as the cfg's value, for a script that writes the cfg.
    const Run json = cli({"anchors", root + "/obj.data", "--num", "2", "--json"});
    QVERIFY2(json.exitCode == 0, json.err.constData());
    const QJsonObject parsed = QJsonDocument::fromJson(json.out).object();
    QCOMPARE(parsed["cfg_value"].toString(), QString("42,42, 208,104"));
    QCOMPARE(parsed["anchors"].toArray(), (QJsonArray{QJsonArray{42, 42}, QJsonArray{208, 104}}));
    QVERIFY(std::abs(parsed["average_iou"].toDouble() - (8 * (41.6 / 42) * (41.6 / 42) + 4) / 12) < 1e-6);
    QCOMPARE(parsed["boxes"].toInt(), 12);
    QCOMPARE(parsed["width"].toInt(), 416);
    // A [region] head's size (13 cells): anchors in cells with 4 decimals, as AlexeyAB's calc_anchors
    // writes them at 32 or less (whole numbers made 1,1, 6,3 of them, and the IoU was the unrounded
    // anchors').
    const Run cells = cli({"anchors", root + "/obj.data", "--num", "2", "--width", "13", "--height", "13"});
    QVERIFY2(cells.exitCode == 0, cells.err.constData());
    QVERIFY2(cells.out.contains("anchors = 1.3000,1.3000, 6.5000,3.2500\naverage IoU = 100.00% over"),
             cells.out.constData());
    const Run three = cli({"anchors", root + "/obj.data", "--num", "3", "--width", "416", "--height", "416"});
    QCOMPARE(three.exitCode, 0);
    QVERIFY2(three.err.contains("the boxes have only 2 different sizes (in whole pixels at 416x416), so 3 "
                                "anchors repeat some"),
             three.err.constData());
}

// runs: a folder's own run and the one a fresh start set aside, each from its metrics.csv (the last
// row's figures, the best validation and where), newest first; a cut-off last row is left out.
void TestCli::runsComparesAFoldersRuns()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 16);
    test::writeFile(dir.filePath("toy.cfg"), test::kToyCfg);
    const QString out = dir.filePath("toy-run");
    const QStringList train = {
        "train", dir.filePath("toy.data"), dir.filePath("toy.cfg"), "--out", out, "--valid-every", "3"};
    QCOMPARE(cli(train + QStringList{"--max-batches", "3"}).exitCode, 0);
    QCOMPARE(cli(train + QStringList{"--max-batches", "5"}).exitCode, 0); // a fresh run: the first set aside
    // A last row cut off (no newline), a NaN and a 5 KB line: none of them counts.
    test::writeFile(out + "/metrics.csv", test::readAll(out + "/metrics.csv") + "4,1,1,0.1,9,9,nan,\n" +
                                              QByteArray(5000, '7') + "\n6,0.5,0.5,0.1,9,9,0.999,");
    const Run listed = cli({"runs", out, "--json"});
    QVERIFY2(listed.exitCode == 0, listed.err.constData());
    const QJsonArray runs = QJsonDocument::fromJson(listed.out).array();
    QCOMPARE(runs.size(), 2);
    const QJsonObject now = runs[0].toObject(), before = runs[1].toObject();
    QCOMPARE(now["name"].toString(), QString("."));
    QCOMPARE(now["iterations"].toInt(), 5);
    QVERIFY(now["finished"].toBool());
    QCOMPARE(now["networks"].toArray().first().toString(), QString("toy"));
    QVERIFY(before["name"].toString().startsWith("previous-"));
    QCOMPARE(before["iterations"].toInt(), 3);
    // The figures are the rows': the last average loss, the best top-1 (validated at 3 and at the end).
    const QStringList rows = QString(test::readAll(out + "/metrics.csv")).split('\n');
    const QStringList fifth = rows[5].split(',');
    QCOMPARE(fifth[0], QString("5"));
    QCOMPARE(now["avg_loss"].toDouble(), fifth[2].toDouble());
    const double third = rows[3].split(',')[6].toDouble(), last = fifth[6].toDouble();
    const QJsonObject best = now["best"].toObject();
    QCOMPARE(best["measure"].toString(), QString("valid_top1"));
    QCOMPARE(best["value"].toDouble(), std::max(third, last));
    QCOMPARE(best["iteration"].toInt(), last > third ? 5 : 3);
    const Run text = cli({"runs", out});
    QVERIFY(text.out.contains("(this folder)"));
    QVERIFY(text.out.contains("finished"));
    QVERIFY(text.out.contains(before["name"].toString().toUtf8()));
    // Newest first by the time in the names (a copied folder's files all have the copy's time); a pipe
    // named metrics.csv is said, not waited on; a run holding the folder's lock is training.
    const QString older = out + "/previous-20200101-000000";
    QVERIFY(QDir().mkpath(older));
    test::writeFile(older + "/metrics.csv", "1,2,2,0.1,9,9,,\n");
    const QString piped = out + "/previous-20200101-000001";
    QVERIFY(QDir().mkpath(piped));
    QCOMPARE(::mkfifo((piped + "/metrics.csv").toLocal8Bit().constData(), 0600), 0);
    std::string lockError;
    const RunFolderLock lock(out.toStdString(), "training toy", lockError);
    QVERIFY(lock.locked());
    const Run ordered = cli({"runs", out, "--json"});
    QCOMPARE(ordered.exitCode, 0);
    QVERIFY2(ordered.err.contains("warning: " + piped.toUtf8() + "/metrics.csv is not a regular file"),
             ordered.err.constData());
    const QJsonArray three = QJsonDocument::fromJson(ordered.out).array();
    QCOMPARE(three.size(), 3);
    QVERIFY(three[0].toObject()["training"].toBool());
    QCOMPARE(three[1].toObject()["name"].toString(), before["name"].toString());
    QCOMPARE(three[2].toObject()["name"].toString(), QString("previous-20200101-000000"));
    // A folder holding a curve alone (another cfg's, set aside from a shared folder) is no stopped run.
    const Run listing = cli({"runs", out});
    const QList<QByteArray> lines = listing.out.split('\n');
    const auto curveRow = std::ranges::find_if(
        lines, [](const QByteArray& row) { return row.startsWith("previous-20200101-000000"); });
    QVERIFY2(curveRow != lines.end() && curveRow->contains(" curve "), listing.out.constData());
    QCOMPARE(three[2].toObject()["state"].toString(), QString("curve"));
    // A run that ended before its first checkpoint (a NaN loss) is its network's, said so (it was a
    // "curve" of no network).
    const QString early = out + "/previous-20200101-000002";
    QVERIFY(QDir().mkpath(early));
    test::writeFile(early + "/metrics.csv", "1,nan,nan,0.1,9,9,,\n1,2,2,0.1,9,9,,\n");
    test::writeFile(early + "/toy_trained.cfg", test::kToyCfg);
    const QJsonArray four = QJsonDocument::fromJson(cli({"runs", out, "--json"}).out).array();
    QCOMPARE(four.size(), 4);
    const QJsonObject ended = four[2].toObject();
    QCOMPARE(ended["name"].toString(), QString("previous-20200101-000002"));
    QCOMPARE(ended["state"].toString(), QString("no checkpoint"));
    QCOMPARE(ended["networks"].toArray().first().toString(), QString("toy"));
    QCOMPARE(four[0].toObject()["state"].toString(), QString("training"));
    const Run missing = cli({"runs", dir.filePath("nothing-here")});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains("nothing-here: no such folder"), missing.err.constData());
}

// detect without IMAGE reads the paths from stdin, one per line (AlexeyAB's `detector test … <
// valid.txt`; it said "inputs is required"): the same boxes as the paths given as arguments.
void TestCli::detectReadsPathsFromStdin()
{
    const QString cfg = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    const QString weights = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights";
    const QString dog = "/usr/share/darknet/data/dog.jpg", horses = "/usr/share/darknet/data/horses.jpg";
    const auto piped = [&](const QByteArray& input) {
        QProcess process;
        process.start(NETWRIGHT_CLI, {"detect", cfg, weights, "--json", "--thresh", "0.01"});
        process.write(input);
        process.closeWriteChannel();
        process.waitForFinished(120000);
        return Run{process.exitCode(), process.readAllStandardOutput(), process.readAllStandardError()};
    };
    const Run fromStdin = piped((dog + "\r\n\n" + horses + "\n").toUtf8());
    QVERIFY2(fromStdin.exitCode == 0, fromStdin.err.constData());
    const Run fromArguments = cli({"detect", cfg, weights, dog, horses, "--json", "--thresh", "0.01"});
    QCOMPARE(fromStdin.out, fromArguments.out);
    QCOMPARE(QJsonDocument::fromJson(fromStdin.out).array().size(), 2);
    const Run nothing = piped("\n");
    QCOMPARE(nothing.exitCode, 2);
    QCOMPARE(nothing.err, QByteArray("error: detect: no IMAGE given and no path on stdin\n"));
    const Run binary = piped(QByteArray(10000, 'x'));
    QCOMPARE(binary.exitCode, 2);
    QVERIFY2(binary.err.contains("stdin holds a line over 4095 bytes"), binary.err.constData());
}

// OpenCV's image and video modules, with the GDAL, FFmpeg and codec libraries they bring (0.35 s of
// every start), are loaded through the media module only when a command reads an image or a video.
void TestCli::imageAndVideoLibrariesLoadWhenUsed()
{
    const QString cfg = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    const QByteArray summary = librariesOpened({"summary", cfg}, 0);
    for (const char* library : {"libnetwright_media.so", "libopencv_imgcodecs.so", "libopencv_videoio.so",
                                "libgdal.so", "libavcodec.so"})
        QVERIFY2(!opens(summary, library), library);
    const QString weights = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights";
    const QByteArray detect =
        librariesOpened({"detect", cfg, weights, "/usr/share/darknet/data/dog.jpg", "--json"}, 0);
    for (const char* library : {"libnetwright_media.so", "libopencv_imgcodecs.so"})
        QVERIFY2(opens(detect, library), library);
}

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
