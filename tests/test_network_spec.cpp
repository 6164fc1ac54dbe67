// The network description: shapes and BFLOPs equal to the reference Darknet (Debian's libdarknet,
// run in a helper process) on every cfg it ships, hand-computed cases, and one clear diagnostic per
// broken layer.
#include "graph/activation_plan.h"
#include "graph/network_spec.h"
#include "graph/set_classes.h"
#include "layers/detection_heads.h"
#include "report/summary.h"
#include "test_support.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>
#include <sstream>
#include <tuple>

using namespace nw;

namespace {

struct ReferenceLayer {
    QString type;
    int w, h, c;
    qint64 outputs;
    double bflops; // < 0 when Darknet prints none for this layer
};

// Runs the libdarknet helper on a cfg: one line per layer.
QList<ReferenceLayer> referenceLayers(const QString& cfg, QString* failure)
{
    QProcess process;
    process.start(DARKNET_REF_SHAPES, {cfg});
    if (!process.waitForFinished(300000) || process.exitStatus() != QProcess::NormalExit ||
        process.exitCode() != 0) {
        *failure = "libdarknet helper failed on " + cfg + ": " + process.readAllStandardError();
        return {};
    }
    QList<ReferenceLayer> layers;
    for (const QByteArray& line : process.readAllStandardOutput().split('\n')) {
        const QList<QByteArray> f = line.split(' ');
        if (f.size() == 7)
            layers.push_back({QString(f[1]), f[2].toInt(), f[3].toInt(), f[4].toInt(), f[5].toLongLong(),
                              f[6].toDouble()});
    }
    return layers;
}

std::string net(int w, int h, int c)
{
    return "[net]\nwidth=" + std::to_string(w) + "\nheight=" + std::to_string(h) +
           "\nchannels=" + std::to_string(c) + "\n\n";
}

} // namespace

class TestNetworkSpec : public QObject {
    Q_OBJECT
private slots:
    void inferenceReusesFreedOutputsByHand();
    void matchesReferenceDarknet_data();
    void matchesReferenceDarknet();
    void alexeyAbCfgsAreValid_data();
    void alexeyAbCfgsAreValid();
    void handComputedConvolution();
    void handComputedShapes();
    void brokenLayersAreReported_data();
    void brokenLayersAreReported();
    void batchScalesActivationMemory();
    void receptiveFieldByHand();
    void hugeInputIsRefusedOnce();
    void oneMistakeGivesOneMessage();
    void aConvolutionFeedingAYoloHeadIsLinear();
    void aCommaInACommentAfterAListIsSaid();
    void unimplementedAlexeyAbKeysAreWarned();
    void detectorMistakesOfAHandBuiltNetwork();
    void netValuesThatDivergeAreNamed();
    void headsWithOtherClassesAreNamed();
    void routesShowWhatTheyRead();
    void commentsAfterNumbersReadAsDarknet();
    void unreadableValuesMakeNoFigures();
    void syntaxProblemsBelongToTheirLayer();
    void setClassesRetargetsEveryHead_data();
    void setClassesRetargetsEveryHead();
    void setClassesRefusesWhatItCannotSet();
    void gaussianYolov3AsAlexeyAbWritesIt();
    void setClassesScheduleFollowsAlexeyAB();
};

void TestNetworkSpec::matchesReferenceDarknet_data()
{
    QTest::addColumn<QString>("path");
    const QStringList cfgs = test::darknetCfgs();
    QVERIFY2(cfgs.size() >= 40, "Debian's darknet cfgs are missing: run scripts/setup.sh");
    for (const QString& path : cfgs)
        QTest::newRow(qPrintable(QFileInfo(path).fileName())) << path;
}

void TestNetworkSpec::matchesReferenceDarknet()
{
    QFETCH(QString, path);
    const NetworkSpec spec = buildNetworkSpec(cfg::Document::load(path.toStdString()));
    QVERIFY2(spec.ok(), test::allText(spec.diagnostics).c_str());
#ifdef NETWRIGHT_SANITIZE
    // Under the sanitizers the spec is built (above) and Darknet is not asked: libdarknet allocating
    // and initialising every weight of 45 cfgs was all of this test's 45 s there (2 minutes beside
    // another suite), and the plain suite compares the same figures.
    QSKIP("built under the sanitizers; compared with Darknet by the plain suite");
#endif
    QString failure;
    const QList<ReferenceLayer> reference = referenceLayers(path, &failure);
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    QCOMPARE(spec.layers.size(), std::size_t(reference.size()));
    int comparedBflops = 0;
    for (const ReferenceLayer& ref : reference) {
        const LayerSpec& layer = spec.layers[std::size_t(&ref - reference.data())];
        const QString where = QString("layer %1 (%2)").arg(layer.index).arg(ref.type);
        QVERIFY2(QString::fromStdString(layer.type) == ref.type,
                 qPrintable(where + " type " + QString::fromStdString(layer.type)));
        QVERIFY2(layer.output.w == ref.w && layer.output.h == ref.h && layer.output.c == ref.c,
                 qPrintable(where + ": output " + QString::fromStdString(layer.output.text()) +
                            QString(" vs Darknet %1x%2x%3").arg(ref.w).arg(ref.h).arg(ref.c)));
        QVERIFY2(layer.output.size == ref.outputs,
                 qPrintable(where +
                            QString(": %1 outputs vs Darknet %2").arg(layer.output.size).arg(ref.outputs)));
        if (ref.bflops >= 0) {
            QCOMPARE(QString::number(layer.costs.bflops, 'f', 3), QString::number(ref.bflops, 'f', 3));
            ++comparedBflops;
        }
    }
    QVERIFY(comparedBflops > 0 || path.contains("rnn") || path.contains("gru") || path.contains("writing"));
}

void TestNetworkSpec::alexeyAbCfgsAreValid_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("layers");
    QTest::addColumn<QString>("totalBflops"); // as AlexeyAB's Darknet prints "Total BFLOPS"
    const QString dir = QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/";
    QTest::newRow("yolov4") << dir + "yolov4.cfg" << 162 << "128.459";
    QTest::newRow("yolov4-tiny") << dir + "yolov4-tiny.cfg" << 38 << "6.910";
    QTest::newRow("yolov4-tiny-3l") << dir + "yolov4-tiny-3l.cfg" << 45 << "";
    QTest::newRow("yolov3-tiny_3l") << dir + "yolov3-tiny_3l.cfg" << 31 << "";
}

void TestNetworkSpec::alexeyAbCfgsAreValid()
{
    QFETCH(QString, path);
    QFETCH(int, layers);
    QFETCH(QString, totalBflops);
    const NetworkSpec spec = buildNetworkSpec(cfg::Document::load(path.toStdString()));
    QVERIFY2(spec.diagnostics.empty(), test::allText(spec.diagnostics).c_str());
    QCOMPARE(int(spec.layers.size()), layers);
    if (!totalBflops.isEmpty())
        QCOMPARE(QString::number(spec.totalBflops, 'f', 3), totalBflops);
    if (path.endsWith("yolov4-tiny.cfg")) { // the CSP split: route groups=2 group_id=1 halves 64 channels
        QCOMPARE(spec.layers[3].output, Shape::image(104, 104, 32));
        QCOMPARE(spec.layers[30].output, Shape::image(13, 13, 255));
        QCOMPARE(spec.layers[37].output, Shape::image(26, 26, 255));
    }
    if (path.endsWith("yolov4.cfg")) { // SPP: three stride-1 max-pools keep 19x19, the route joins 4x512
        QCOMPARE(spec.layers[114].output, Shape::image(19, 19, 512));
        QCOMPARE(spec.layers[113].output, Shape::image(19, 19, 2048));
        QCOMPARE(spec.layers[139].output, Shape::image(76, 76, 255));
    }
}

void TestNetworkSpec::handComputedConvolution()
{
    // 5x5x3 input, 4 filters 3x3 stride 2 pad 1: out (5 + 2 - 3)/2 + 1 = 3.
    const NetworkSpec spec = test::specFromText(
        net(5, 5, 3) + "[convolutional]\nfilters=4\nsize=3\nstride=2\npad=1\nactivation=leaky\n");
    QVERIFY2(spec.ok(), test::allText(spec.diagnostics).c_str());
    const LayerSpec& conv = spec.layers[0];
    QCOMPARE(conv.output, Shape::image(3, 3, 4));
    QCOMPARE(conv.costs.params, std::int64_t(4 * 3 * 3 * 3 + 4));
    QCOMPARE(conv.costs.bflops, 2.0 * 4 * 9 * 3 * 9 / 1e9);
    QCOMPARE(conv.costs.workspaceBytes, std::int64_t(3 * 3 * 9 * 3 * 4));
    QCOMPARE(conv.memoryBytes, std::int64_t(3 * 3 * 4 * 4));
    QCOMPARE(spec.maxWorkspaceBytes, conv.costs.workspaceBytes);
}

void TestNetworkSpec::handComputedShapes()
{
    const NetworkSpec spec =
        test::specFromText(net(26, 26, 64) + "[maxpool]\nsize=2\nstride=1\n\n" // 0: 26x26x64 (pad 1)
                                             "[route]\nlayers=-1\ngroups=2\ngroup_id=1\n\n" // 1: 26x26x32
                                             "[upsample]\nstride=-2\n\n"                    // 2: 13x13x32
                                             "[reorg]\nstride=2\n\n" // 3: 6.5 -> error? no: 13 odd
        );
    QCOMPARE(spec.layers[0].output, Shape::image(26, 26, 64));
    QCOMPARE(spec.layers[1].output, Shape::image(26, 26, 32));
    QCOMPARE(spec.layers[1].sources, std::vector<int>{0});
    QCOMPARE(spec.layers[2].output, Shape::image(13, 13, 32));
    QVERIFY(!spec.layers[3].valid()); // 13 is not a multiple of 2
    const NetworkSpec flat =
        test::specFromText(net(4, 4, 2) + "[connected]\noutput=6\n[softmax]\ngroups=3\n[dropout]\n");
    QVERIFY2(flat.ok(), test::allText(flat.diagnostics).c_str());
    QCOMPARE(flat.layers[0].output, Shape::image(1, 1, 6));
    QCOMPARE(flat.layers[0].costs.params, std::int64_t(32 * 6 + 6));
    QCOMPARE(flat.layers[1].output, Shape::flat(6));
    QCOMPARE(flat.layers[2].output, Shape::flat(6));
}

void TestNetworkSpec::brokenLayersAreReported_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("layer");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("message");
    const QString n = QString::fromStdString(net(13, 13, 8)); // lines 1-5
    QTest::newRow("yolo filters")
        << n + "[convolutional]\nfilters=20\n\n[yolo]\nclasses=2\nmask=0,1,2\nnum=3\n"
        << 1 << 10 << "3 anchors × (classes 2 + 5) = 21 are needed: set filters=21";
    // Counts past int: the arithmetic is wide (no overflow for the sanitizers to find), the figure exact.
    QTest::newRow("yolo classes near INT_MAX")
        << n + "[convolutional]\nfilters=20\n\n[yolo]\nclasses=2147483647\nmask=0,1,2\nnum=3\n"
        << 1 << 10 << "3 anchors × (classes 2147483647 + 5) = 6442450956 are needed";
    QTest::newRow("region classes near INT_MAX")
        << n + "[convolutional]\nfilters=20\n\n[region]\nclasses=2147483647\nnum=5\n"
        << 1 << 10 << "num 5 × (classes + coords + 1) = 10737418260 are needed";
    QTest::newRow("route out of range")
        << n + "[convolutional]\nfilters=4\n[route]\nlayers=-5\n"
        << 1 << 9 << "'layers' refers to layer -5 (= -4), but only layers 0..0";
    QTest::newRow("route forward") << n + "[route]\nlayers=3\n" << 0 << 7 << "'layers' refers to layer 3";
    QTest::newRow("share_index") << n + "[convolutional]\nfilters=4\nshare_index=0\n"
                                 << 0 << 8
                                 << "share_index (AlexeyAB's: this layer uses another layer's weights";
    QTest::newRow("shortcut sizes")
        << n + "[convolutional]\nfilters=4\nsize=4\n[shortcut]\nfrom=-2\n[shortcut]\nfrom=0\n"
        << 1 << 10 << "'from' refers to layer -2";
    QTest::newRow("shortcut not integer ratio")
        << n + "[convolutional]\nfilters=8\nsize=5\n[maxpool]\nsize=2\nstride=2\n[shortcut]\nfrom=0\n"
        << 2 << 13 << "cannot add layer 0 (9x9x8) to the previous layer (5x5x8)";
    // dilation was never checked: 0 and -5 ran, 2000000000 overflowed im2col's int offsets.
    QTest::newRow("dilation 0") << n + "[convolutional]\nfilters=4\nsize=3\ndilation=0\n"
                                << 0 << 9 << "dilation must be at least 1 (found 0)";
    QTest::newRow("dilation huge")
        << n + "[convolutional]\nfilters=4\nsize=3\ndilation=2000000000\n"
        << 0 << 9 << "dilation=2000000000 spreads the 3x3 window over more than 1048576 pixels";
    QTest::newRow("size too small") << n + "[convolutional]\nfilters=4\nsize=15\n"
                                    << 0 << 8 << "output would be -1x-1";
    QTest::newRow("image after flat")
        << n + "[connected]\noutput=10\n[softmax]\n[maxpool]\nsize=2\nstride=2\n"
        << 2 << 9 << "[maxpool] needs an image input (w×h×c) but the layer before it outputs 10";
    QTest::newRow("groups") << n + "[convolutional]\nfilters=6\ngroups=4\n"
                            << 0 << 8 << "groups=4 must divide";
    QTest::newRow("mask outside anchors")
        << n + "[convolutional]\nfilters=14\n[yolo]\nclasses=2\nmask=1,5\nnum=3\n"
        << 1 << 10 << "mask index 5 is not an anchor";
    QTest::newRow("negative anchor")
        << n + "[convolutional]\nfilters=14\n[yolo]\nclasses=2\nmask=0,1\nnum=2\n"
               "anchors=10,14, -3,5\n"
        << 1 << 12 << "anchor value 3 is -3.000000: anchors are positive";
    QTest::newRow("zero region anchor")
        << n + "[convolutional]\nfilters=6\n[region]\nclasses=1\nnum=1\nanchors=0,1\n"
        << 1 << 11 << "anchor value 1 is 0.000000";
    QTest::newRow("detection inputs")
        << n + "[connected]\noutput=100\n[detection]\nside=7\nclasses=20\ncoords=4\n"
        << 1 << 9 << "needs 1225 input values";
    // Box layouts the decoders cannot read (they read past the output: a heap overflow, a segfault), and
    // values no head or pooling means (8 GB of truth buffers; windows wholly in the padding; NaN outputs).
    QTest::newRow("region coords 0")
        << n + "[convolutional]\nfilters=2\n[region]\nclasses=1\nnum=1\ncoords=0\nanchors=1,1\n"
        << 1 << 11 << "coords=0: a [region] box has 4 (x, y, w, h)";
    QTest::newRow("detection coords default")
        << n + "[connected]\noutput=98\n[detection]\nside=7\nclasses=0\nnum=1\n"
        << 1 << 8 << "coords=1: a [detection] box has 4 (x, y, w, h): set coords=4";
    QTest::newRow("max 1e8")
        << n + "[convolutional]\nfilters=6\n[region]\nclasses=1\nnum=1\nanchors=1,1\n"
               "max=100000000\n"
        << 1 << 12 << "max (the most boxes of an image's labels the head reads) must be from 1 to 10000";
    // The key at fault, on its line (said as "size and stride must be at least 1" on size='s line).
    QTest::newRow("maxpool stride 0") << n + "[maxpool]\nsize=2\nstride=0\n"
                                      << 0 << 8 << "stride=0: must be at least 1";
    QTest::newRow("maxpool stride_y 0") << n + "[maxpool]\nsize=2\nstride=2\nstride_y=0\n"
                                        << 0 << 9 << "stride_y=0: must be at least 1";
    QTest::newRow("conv stride_x 0") << n + "[convolutional]\nfilters=2\nstride=1\nstride_x=0\n"
                                     << 0 << 9 << "stride_x=0: must be at least 1"; // (was on stride=1)
    QTest::newRow("conv stride 0") << n + "[convolutional]\nfilters=2\nstride=0\n"
                                   << 0 << 8 << "stride=0: must be at least 1";
    QTest::newRow("local stride 0") << n + "[local]\nfilters=2\nsize=3\nstride=0\n"
                                    << 0 << 9 << "stride=0: must be at least 1";
    QTest::newRow("maxpool padding") << n + "[maxpool]\nsize=2\npadding=1000\n"
                                     << 0 << 8
                                     << "padding=1000 with size=2 puts whole windows outside the image";
    QTest::newRow("softmax temperature 0") << n + "[softmax]\ntemperature=0\n"
                                           << 0 << 7 << "temperature must be a positive number";
    QTest::newRow("second net") << n + "[net]\nwidth=3\n" << 0 << 6 << "a second [net] section";
    // Sizes no machine could hold are refused on their layer's line, without overflowing on the way.
    QTest::newRow("filters 2e9") << n + "[convolutional]\nfilters=2000000000\n"
                                 << 0 << 6
                                 << "the output would be 13x13x2000000000: sides and channels are limited";
    QTest::newRow("size INT_MAX") << n + "[convolutional]\nfilters=4\nsize=2147483647\npad=1\n"
                                  << 0 << 6 << "the layer would need over a petabyte of weights";
    QTest::newRow("connected 2e9") << n + "[connected]\noutput=2000000000\n"
                                   << 0 << 6 << "the output would be 1x1x2000000000";
    QTest::newRow("2.8 TB of weights")
        << n + "[convolutional]\nfilters=4096\n[connected]\noutput=1000000\n"
        << 1 << 8 << "the layer would need 2768.9 GB of weights (692225000000 values";
    QTest::newRow("reorg stride 65536")
        << n + "[reorg]\nstride=65536\nreverse=1\n"
        << 0 << 7 << "divisible by stride² = 4294967296"; // was int: wrapped to 0, SIGFPE
    // Darknet's reorg order with channels not divisible by stride²: values doubled or dropped, and
    // fewer channels than stride² divided by zero.
    QTest::newRow("reorg channels") << n + "[convolutional]\nfilters=6\nsize=1\n[reorg]\nstride=2\n"
                                    << 1 << 10 << "reorg needs channels (6) divisible by stride² = 4";
    // Darknet reads outside the image for a crop larger than its input (it was a warning here).
    QTest::newRow("crop larger than the input")
        << n + "[crop]\ncrop_width=4\ncrop_height=200\n"
        << 0 << 8 << "is larger than the 13x13x8 input: make crop_width and crop_height at most";
    QTest::newRow("reorg extra negative") << n + "[reorg]\nextra=-5\n"
                                          << 0 << 7 << "extra must not be negative (found -5)";
    QTest::newRow("window beyond the side limit")
        << n + "[maxpool]\nsize=2000000\nstride=1\npadding=3999998\n"
        << 0 << 9 << "beyond the limit of 1048576";
    // Behind a layer with an error, the layers that read a flat input said it held nothing (the studio
    // showed three errors for one negative filters=).
    for (const char* type : {"connected", "rnn", "gru", "lstm", "detection"})
        QTest::newRow(qPrintable(QString("negative filters before [%1]").arg(type)))
            << n + "[convolutional]\nfilters=-5\n[" + type + "]\n" +
                   (type == std::string("detection") ? "coords=4\n" : "") + "[connected]\noutput=2\n"
            << 0 << 7 << "filters must be at least 1 (found -5)";
    // [net]: each problem on its key's line, once.
    const QString batch = "[net]\nbatch=4\n";
    QTest::newRow("negative width") << batch + "width=-28\nheight=28\nchannels=1\n[connected]\noutput=2\n"
                                    << -1 << 3 << "width must not be negative (found -28)";
    QTest::newRow("no channels") << batch + "width=28\nheight=28\nchannels=0\n[connected]\noutput=2\n"
                                 << -1 << 5 << "no input size: set width, height and channels";
    QTest::newRow("channels too many")
        << batch + "width=28\nheight=28\nchannels=2000000\n[connected]\noutput=2\n"
        << -1 << 5 << "the input 28x28x2000000 is too large";
    QTest::newRow("subdivisions above batch")
        << batch + "subdivisions=200\nwidth=28\nheight=28\nchannels=1\n[connected]\noutput=2\n"
        << -1 << 3 << "subdivisions must be between 1 and batch=4 (found 200)";
}

void TestNetworkSpec::brokenLayersAreReported()
{
    QFETCH(QString, text);
    QFETCH(int, layer);
    QFETCH(int, line);
    QFETCH(QString, message);
    const NetworkSpec spec = test::specFromText(text.toStdString(), "broken.cfg");
    QVERIFY(!spec.ok());
    const Diagnostic* found = test::findDiagnostic(spec.diagnostics, message.toStdString());
    QVERIFY2(found,
             ("expected '" + message.toStdString() + "' among:\n" + test::allText(spec.diagnostics)).c_str());
    QCOMPARE(found->layer, layer);
    QCOMPARE(found->line, line);
    if (layer >= 0)
        QVERIFY(!spec.layers[std::size_t(layer)].valid());
    // One mistake, one message: layers after it do not pile up errors about their inputs (nor a warning
    // that contradicts it).
    QVERIFY2(spec.diagnostics.size() == 1, test::allText(spec.diagnostics).c_str());
    // The layers behind it are left out of the totals, and the summary says so with "?".
    // Inference reuses buffers: it holds at most what the layers counted hold (it counted the layers left
    // out too: 61.2 KB at inference of 3.1 KB in all).
    QVERIFY2(spec.inferenceMemoryBytes <= spec.totalMemoryBytes,
             qPrintable(QString("%1 > %2").arg(spec.inferenceMemoryBytes).arg(spec.totalMemoryBytes)));
    const int leftOut = spec.layersLeftOutOfTotals();
    // (those behind it, and itself when its error left it without a shape or its size was refused: its
    // figures shown, not added — "161 layers left out" of 162 with totals of 0)
    QCOMPARE(leftOut, int(std::count_if(spec.layers.begin(), spec.layers.end(), [](const LayerSpec& l) {
                 return !l.inputKnown || (!l.valid() && l.output.size <= 0) ||
                        (!l.valid() && (l.diagnostics.front().message.find("the layer would need") == 0 ||
                                        l.diagnostics.front().message.find("the output would be") == 0));
             })));
    if (leftOut > 0)
        QVERIFY(summaryTable(spec).find(std::to_string(leftOut) + (leftOut == 1 ? " layer" : " layers") +
                                        " at or behind an error left out (?)") != std::string::npos);
    // No row shows an error's shape as one ("0", or "-256" for channels=-1): "?" instead.
    std::istringstream rows(summaryTable(spec));
    std::string row;
    std::getline(rows, row); // (the header)
    std::size_t checked = 0;
    while (std::getline(rows, row) && !row.starts_with("Total")) {
        if (row.size() < 79)
            continue;
        ++checked;
        for (const std::size_t column : {45, 63}) { // input, output (16 wide: summary.cpp's format)
            std::string shape = row.substr(column, 16);
            shape.erase(0, shape.find_first_not_of(' '));
            QVERIFY2(shape != "0" && !shape.starts_with('-'), row.c_str());
        }
    }
    QCOMPARE(checked, spec.layers.size()); // (every row has the table's width)
}

// A value that is not a number (filters=abc) makes no figures: the shape and costs its default would
// give (28x28x1, 10 params) looked like the layer's own in the table, the graph and the summary.
void TestNetworkSpec::unreadableValuesMakeNoFigures()
{
    const NetworkSpec spec = test::specFromText(
        net(28, 28, 1) + "[convolutional]\nfilters=abc\nsize=3\npad=1\n\n[maxpool]\nsize=2\nstride=2\n",
        "abc.cfg");
    QVERIFY(test::findDiagnostic(spec.diagnostics, "bad number for 'filters'"));
    const LayerSpec& conv = spec.layers[0];
    QVERIFY(!conv.valid() && conv.inputKnown && !conv.outputKnown);
    QCOMPARE(conv.output.size, std::int64_t(0));
    QCOMPARE(conv.costs.params, std::int64_t(0));
    QCOMPARE(conv.filters, std::string("?"));
    std::istringstream rows(summaryTable(spec));
    std::string header, row;
    std::getline(rows, header);
    std::getline(rows, row);
    QVERIFY2(row.find(" 28x28x1 ") != std::string::npos, row.c_str());    // its input is known
    QCOMPARE(std::count(row.begin(), row.end(), '?'), std::ptrdiff_t(5)); // filters, output and costs
    // Left out of the totals and said so, itself and the layer behind it; --json gives its costs as
    // null, as its output (they read 0 BFLOPs and 0 params there, and the totals claimed them all).
    QCOMPARE(spec.layersLeftOutOfTotals(), 2);
    QVERIFY2(summaryTable(spec).find("; 2 layers at or behind an error left out (?)") != std::string::npos,
             summaryTable(spec).c_str());
    const QJsonObject first =
        QJsonDocument::fromJson(QByteArray::fromStdString(summaryJson(spec, -1)))["layers"][0].toObject();
    QVERIFY(first["output"].isNull());
    for (const char* key : {"bflops", "params", "workspace_bytes", "memory_bytes", "inference_bytes"})
        QVERIFY2(first[key].isNull(), key);
}

// A header without ']' or a line without '=' inside a layer is that layer's problem: the studio marks its
// card and the Problems list leads to it (both pointed at [net]).
void TestNetworkSpec::syntaxProblemsBelongToTheirLayer()
{
    const NetworkSpec spec =
        test::specFromText(net(13, 13, 8) + // lines 1-5
                               "[convolutional\nfilters=4\n\n[maxpool]\nsize=2\nstride=2\nlook here\n",
                           "broken.cfg");
    const Diagnostic* header = test::findDiagnostic(spec.diagnostics, "has no closing ']'");
    const Diagnostic* noEquals = test::findDiagnostic(spec.diagnostics, "(no '=')");
    QVERIFY2(header && noEquals, test::allText(spec.diagnostics).c_str());
    QCOMPARE(header->line, 6);
    QCOMPARE(header->layer, 0);
    QCOMPARE(noEquals->line, 12);
    QCOMPARE(noEquals->layer, 1);
    // The layers keep the shapes their values give (a stray line hid every shape after it).
    QVERIFY(!spec.layers[0].valid() && spec.layers[0].outputKnown);
    QCOMPARE(spec.layers[1].output.text(), std::string("7x7x4"));
    QVERIFY(spec.layers[1].outputKnown);
    QVERIFY2(header->format().starts_with("broken.cfg:6: error: layer 0: "), header->format().c_str());
    // Before the first layer: [net]'s.
    const NetworkSpec inNet = test::specFromText("[net]\nwidth=8\nnonsense\n[maxpool]\n", "net.cfg");
    const Diagnostic* netLine = test::findDiagnostic(inNet.diagnostics, "(no '=')");
    QVERIFY(netLine);
    QCOMPARE(netLine->layer, -1);
}

void TestNetworkSpec::batchScalesActivationMemory()
{
    const cfg::Document document = cfg::Document::load(std::string(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg");
    const NetworkSpec one = buildNetworkSpec(document, {1});
    const NetworkSpec eight = buildNetworkSpec(document, {8});
    QCOMPARE(one.layers[0].memoryBytes, std::int64_t(416) * 416 * 16 * 4);
    QCOMPARE(eight.totalMemoryBytes, 8 * one.totalMemoryBytes);
    QCOMPARE(eight.totalBflops, one.totalBflops);
    // A batch too large for one layer's output (416×416×16 × 800 values) is said once, on that layer, and
    // every shape and total stays (the summary showed "?" for every layer behind it and totals of 0).
    const NetworkSpec huge = buildNetworkSpec(document, {800});
    QVERIFY(!huge.ok());
    QCOMPARE(std::count_if(huge.diagnostics.begin(), huge.diagnostics.end(),
                           [](const Diagnostic& d) { return d.severity == Severity::Error; }),
             std::ptrdiff_t(1));
    QVERIFY(huge.diagnostics.front().message.find("of output for the batch") != std::string::npos);
    QCOMPARE(huge.layersLeftOutOfTotals(), 0);
    QCOMPARE(huge.totalBflops, one.totalBflops);
    QCOMPARE(huge.totalParams, one.totalParams);
    QCOMPARE(huge.layers.back().output.text(), one.layers.back().output.text());
}

void TestNetworkSpec::receptiveFieldByHand()
{
    // yolov3-tiny: 3×3 convs and 2×2/2 pools: r += (k − 1)·jump, jump ×= stride.
    const NetworkSpec spec =
        buildNetworkSpec(cfg::Document::load(std::string(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg"));
    QCOMPARE(spec.layers[0].receptiveField, 3);
    QCOMPARE(spec.layers[1].receptiveField, 4);    // + 1·1, jump 2
    QCOMPARE(spec.layers[2].receptiveField, 8);    // + 2·2
    QCOMPARE(spec.layers[11].receptiveField, 190); // the 2×2/1 max-pool: + 1·32
    QCOMPARE(spec.layers[12].receptiveField, 254);
    QCOMPARE(spec.layers[17].receptiveField, 254); // route -4 → layer 13
    QCOMPARE(spec.layers[21].receptiveField, 286); // after the ×2 upsample: jump 16, + 2·16
    QCOMPARE(spec.layers[20].jump, 16.0);
    // A [deconvolutional] of size = stride reads one input pixel and divides the step (it added 8).
    const NetworkSpec deconv = test::specFromText(
        net(64, 64, 4) + "[convolutional]\nfilters=4\nsize=3\nstride=4\npad=1\n[deconvolutional]\nfilters=4\n"
                         "size=4\nstride=4\n[convolutional]\nfilters=4\nsize=3\npad=1\n");
    QVERIFY2(deconv.ok(), test::allText(deconv.diagnostics).c_str());
    QCOMPARE(deconv.layers[1].receptiveField, 3);
    QCOMPARE(deconv.layers[2].receptiveField, 5);
    // A [connected] layer sees its whole input: 3 + (11 − 1)·1 = 13, the whole 13×13 image.
    const NetworkSpec dense =
        test::specFromText(net(13, 13, 8) + "[convolutional]\nfilters=4\nsize=3\n[connected]\noutput=10\n");
    QCOMPARE(dense.layers[0].receptiveField, 3);
    QCOMPARE(dense.layers[1].receptiveField, 13);
    // What comes after a flat output sees what it saw (a [softmax] read 0).
    const NetworkSpec classifier = test::specFromText(
        net(13, 13, 8) + "[convolutional]\nfilters=4\nsize=3\n[connected]\noutput=10\n[connected]\noutput=5\n"
                         "[softmax]\n[cost]\n");
    for (std::size_t layer = 1; layer < classifier.layers.size(); ++layer)
        QCOMPARE(classifier.layers[layer].receptiveField, 13);
}

void TestNetworkSpec::hugeInputIsRefusedOnce()
{
    const NetworkSpec spec =
        test::specFromText(net(100000, 100000, 3) + "[convolutional]\nfilters=16\nsize=3\n", "huge.cfg");
    QVERIFY(!spec.ok());
    QCOMPARE(std::count_if(spec.diagnostics.begin(), spec.diagnostics.end(),
                           [](const Diagnostic& d) { return d.isError(); }),
             1L);
    const Diagnostic* found =
        test::findDiagnostic(spec.diagnostics, "the input 100000x100000x3 is too large");
    QVERIFY2(found, test::allText(spec.diagnostics).c_str());
    QCOMPARE(found->line, 2);
    QCOMPARE(spec.totalParams, std::int64_t(0));
}

// Darknet reads comments only on lines of their own: "layers=-1 # not -2, 0" is a route of two layers
// there (-1 and 0: 16x16x12), one here. A warning on the line says so; a comment without a comma,
// which Darknet's atoi reads the same, says nothing.
void TestNetworkSpec::aCommaInACommentAfterAListIsSaid()
{
    const auto said = [](const std::string& route) {
        const NetworkSpec spec = test::specFromText(net(16, 16, 3) +
                                                        "[convolutional]\nfilters=4\nsize=1\n\n"
                                                        "[convolutional]\nfilters=8\nsize=1\n\n[route]\n" +
                                                        route,
                                                    "rc.cfg");
        QStringList all;
        for (const Diagnostic& d : spec.diagnostics)
            all << QString::fromStdString(d.format());
        return all;
    };
    QCOMPARE(said("layers=-1 # not -2, 0\n"),
             QStringList{"rc.cfg:15: warning: layer 2: layers=-1#not-2,0: the comment after the list holds a "
                         "','; Darknet reads no comment there and counts 2 entries, Netwright 1: put the "
                         "comment on a line of its own"});
    QCOMPARE(said("layers=-1 # the last one\n"), QStringList());
}

// AlexeyAB's keys that change the result and that Netwright does not compute (a blur after a strided
// convolution, zeroed non-maxima) are warnings on their lines; they were accepted in silence. Set to 0,
// they change nothing and say nothing.
// The convolution before a [yolo] head is linear without batch norm in every Darknet cfg (logistic with
// new_coords=1): a detector built from the palette kept leaky and batch norm there and trained badly
// without a word.
void TestNetworkSpec::aConvolutionFeedingAYoloHeadIsLinear()
{
    const auto warnings = [](const std::string& conv, const std::string& yolo) {
        const NetworkSpec spec =
            test::specFromText(net(32, 32, 3) + "[convolutional]\nfilters=18\nsize=1\n" + conv +
                                   "\n[yolo]\nmask=0,1,2\nanchors=4,4,8,8,16,16\nnum=3\nclasses=1\n" + yolo,
                               "det.cfg");
        QStringList said;
        for (const Diagnostic& d : spec.diagnostics)
            said << QString::fromStdString(d.format());
        return said;
    };
    QCOMPARE(
        warnings("activation=leaky\n", ""),
        QStringList{"det.cfg:9: warning: layer 0: this convolution feeds the [yolo] head (layer 1) through "
                    "activation=leaky: the head reads raw scores (Darknet's cfgs set activation=linear and "
                    "no batch_normalize there; logistic with new_coords=1)"});
    QCOMPARE(warnings("batch_normalize=1\nactivation=linear\n", "").size(), 1);
    QVERIFY(warnings("batch_normalize=1\nactivation=linear\n", "")[0].contains("with batch_normalize=1"));
    QCOMPARE(warnings("activation=linear\n", ""), QStringList());
    QCOMPARE(warnings("activation=logistic\n", "new_coords=1\nscale_x_y=2\n"), QStringList());
    QCOMPARE(warnings("activation=mish\n", "new_coords=1\n").size(), 1);
    // new_coords=1 reads probabilities: a linear convolution before it gave confidences of 155 %.
    QCOMPARE(warnings("activation=linear\n", "new_coords=1\n"),
             QStringList{"det.cfg:9: warning: layer 0: this convolution feeds the [yolo] head (layer 1) "
                         "through activation=linear: with new_coords=1 the head reads probabilities "
                         "(scaled-YOLOv4's cfgs set activation=logistic and no batch_normalize there)"});
    // Values no cfg means, on their lines: errors where the head cannot work, warnings otherwise
    // (each was taken without a word; max=0 made train and map take the detector for a classifier).
    QCOMPARE(warnings("activation=linear\n", "max=0\n"),
             QStringList{"det.cfg:16: error: layer 1: max (the most boxes of an image's labels the head "
                         "reads) must be from 1 to 10000; leave it out for the default, 90"});
    QVERIFY(warnings("activation=linear\n", "scale_x_y=0\n")
                .join("")
                .contains("det.cfg:16: error: layer 1: scale_x_y must be positive"));
    for (const char* key :
         {"jitter=10", "ignore_thresh=2", "label_smooth_eps=-1", "beta_nms=-1", "nms_kind=foo"}) {
        const QStringList said = warnings("activation=linear\n", std::string(key) + "\n");
        QCOMPARE(said.size(), 1);
        QVERIFY2(said[0].startsWith("det.cfg:16: warning: layer 1: "), qPrintable(said[0]));
    }
    QCOMPARE(warnings("activation=linear\n", "jitter=.3\nignore_thresh=.7\nlabel_smooth_eps=0.1\n"
                                             "beta_nms=0.6\nnms_kind=diounms\nmax=200\n"),
             QStringList());
    // An anchor far larger than the input (a head pasted from a 416×416 cfg) is said; one a little
    // taller than the input still overlaps a box well, and is not.
    const auto anchored = [](const std::string& anchors) {
        QStringList said;
        for (const Diagnostic& d :
             test::specFromText(net(32, 32, 3) +
                                    "[convolutional]\nfilters=18\nsize=1\nactivation=linear\n\n"
                                    "[yolo]\nmask=0,1,2\nnum=3\nclasses=1\nanchors=" +
                                    anchors + "\n",
                                "det.cfg")
                 .diagnostics)
            said << QString::fromStdString(d.format());
        return said;
    };
    QCOMPARE(
        anchored("4,4,8,8,100,100"),
        QStringList{"det.cfg:15: warning: layer 1: anchor 2 (100,100) is far larger than the 32x32 input: a "
                    "box overlaps it by 10 % at most (anchors are in input pixels; netwright-cli anchors "
                    "DATA --width 32 --height 32 computes them for this size)"});
    QCOMPARE(anchored("4,4,8,8,20,40"), QStringList());
}

// Two heads with one mask= (a head pasted with its convolution) predict the same anchors, and the
// anchors of no mask train nothing: said at the later head's mask= line. A detector at a classifier's
// rate without burn_in (File ▸ New's [net]: lr 0.01) diverged to NaN in its first iterations: said at
// learning_rate=.
void TestNetworkSpec::detectorMistakesOfAHandBuiltNetwork()
{
    const auto said = [](const std::string& netKeys, const std::string& secondMask) {
        QStringList lines;
        for (const Diagnostic& d :
             test::specFromText("[net]\nwidth=32\nheight=32\nchannels=3\n" + netKeys + "\n" +
                                    "[convolutional]\nfilters=18\nsize=1\nactivation=linear\n\n"
                                    "[yolo]\nmask=3,4,5\nanchors=4,4,6,6,8,8,10,10,12,12,14,14\nnum=6\n"
                                    "classes=1\n\n[route]\nlayers=-2\n\n"
                                    "[convolutional]\nfilters=18\nsize=1\nactivation=linear\n\n"
                                    "[yolo]\nmask=" +
                                    secondMask +
                                    "\nanchors=4,4,6,6,8,8,10,10,12,12,14,14\nnum=6\nclasses=1\n",
                                "det.cfg")
                 .diagnostics)
            lines << QString::fromStdString(d.format());
        return lines;
    };
    QCOMPARE(said("", "0,1,2"), QStringList());
    QCOMPARE(said("", "3,4,5"),
             QStringList{"det.cfg:26: warning: layer 4: mask=3,4,5 is also layer 1 [yolo]'s, and anchors "
                         "0,1,2 are in no head's mask: both heads predict the same anchors (a pasted head?); "
                         "give each head its own anchors of the list (Darknet's: 6,7,8 / 3,4,5 / 0,1,2)"});
    QCOMPARE(
        said("batch=64\nlearning_rate=0.01\n", "0,1,2"),
        QStringList{"det.cfg:6: warning: a detector at learning_rate=0.01 without burn_in diverges in its "
                    "first iterations: add burn_in=1000 to [net] (Darknet's detector cfgs: "
                    "burn_in=1000, learning_rate 0.001 to 0.00261)"});
    QCOMPARE(said("learning_rate=0.01\nburn_in=1000\n", "0,1,2"), QStringList());
    QCOMPARE(said("learning_rate=0.00261\n", "0,1,2"), QStringList()); // (yolov4-tiny's rate)
}

void TestNetworkSpec::unimplementedAlexeyAbKeysAreWarned()
{
    const NetworkSpec spec = test::specFromText(
        net(8, 8, 3) + "[convolutional]\nfilters=4\nsize=3\nstride=2\nantialiasing=1\ncoordconv=0\n\n"
                       "[maxpool]\nsize=2\nstride=2\nmaxpool_zero_nonmax=1\n",
        "ab.cfg");
    QVERIFY(spec.ok());
    QCOMPARE(spec.diagnostics.size(), std::size_t(2));
    QCOMPARE(spec.diagnostics[0].line, 10);
    QVERIFY2(spec.diagnostics[0].message.find("antialiasing=1 (AlexeyAB's) is not implemented: this "
                                              "convolution computes without it") != std::string::npos,
             spec.diagnostics[0].message.c_str());
    QCOMPARE(spec.diagnostics[1].line, 16);
    QVERIFY(spec.diagnostics[1].message.find("maxpool_zero_nonmax=1") == 0);
    // pjreddie's binary and XNOR convolutions were read and computed in full precision without a word
    // (1.7 of 1.71 off its output).
    const NetworkSpec xnor = test::specFromText(
        net(8, 8, 3) +
            "[convolutional]\nfilters=4\nsize=3\nxnor=1\n\n[convolutional]\nfilters=4\nsize=3\nbinary=1\n",
        "xnor.cfg");
    QVERIFY(xnor.ok());
    QCOMPARE(xnor.diagnostics.size(), std::size_t(2));
    QCOMPARE(xnor.diagnostics[0].line, 9);
    QVERIFY2(xnor.diagnostics[0].message.find("xnor=1 (XNOR-Net: weights and inputs binarised) is not "
                                              "implemented: this convolution computes in full precision") !=
                 std::string::npos,
             xnor.diagnostics[0].message.c_str());
    QCOMPARE(xnor.diagnostics[1].line, 14);
    QVERIFY(xnor.diagnostics[1].message.find("binary=1 (weights binarised) is not implemented") !=
            std::string::npos);
    QVERIFY2(xnor.diagnostics[1].message.ends_with("(pjreddie's on a GPU: its CPU ignores binary=1)"),
             xnor.diagnostics[1].message.c_str());
    // Values both forks read otherwise than they look, in silence until now: inputs= that is not the
    // image's size (a first [connected] is sized from it), anchors past num= (read by neither), an
    // anchor twice in a mask (its second prediction never learns).
    const NetworkSpec mismatched = test::specFromText(
        "[net]\nwidth=8\nheight=8\nchannels=3\ninputs=100\n\n[convolutional]\nfilters=18\nsize=1\n"
        "activation=linear\n\n[yolo]\nmask=0,0,1\nanchors=1,1,2,2,3,3,4,4\nnum=3\nclasses=1\n\n"
        "[region]\nanchors=1,1,2,2,3,3,4,4\nnum=3\nclasses=1\n",
        "mismatched.cfg");
    QStringList mismatches;
    for (const Diagnostic& d : mismatched.diagnostics)
        mismatches << QString("%1: %2").arg(d.line).arg(QString::fromStdString(d.message));
    QCOMPARE(
        mismatches,
        QStringList({"5: inputs=100 is not width x height x channels = 192: Darknet sizes a first "
                     "[connected] from inputs, Netwright from the image; remove inputs= or make them agree",
                     "13: mask lists anchor 0 twice: its second prediction never learns (a truth goes to "
                     "the first)",
                     "14: anchors has 8 numbers but num=3 reads 6: the last 2 are not used (set num= to the "
                     "number of w,h pairs)",
                     "19: anchors has 8 numbers but num=3 reads 6: the last 2 are not used (set num= to the "
                     "number of w,h pairs)"}));
    // Training features of AlexeyAB's (augmentations, EMA, bad-label rejection in [net]; focal loss and
    // the like in [yolo]) were read and left out in silence: each one set is said on its line, and the
    // four bad-label keys are no longer called typos. max_delta is computed (no word).
    const NetworkSpec training = test::specFromText(
        "[net]\nwidth=32\nheight=32\nchannels=3\nmixup=1\nema_alpha=0.9998\nblur=0\n"
        "weights_reject_freq=1001\n\n[convolutional]\nfilters=18\nsize=1\nactivation=linear\n\n"
        "[yolo]\nmask=0,1,2\nanchors=1,1,2,2,3,3\nnum=3\nclasses=1\niou_loss=ciou\nmax_delta=5\n"
        "focal_loss=1\n",
        "ab.cfg");
    QVERIFY(training.ok());
    QStringList said;
    for (const Diagnostic& d : training.diagnostics)
        said << QString("%1: %2").arg(d.line).arg(QString::fromStdString(d.message));
    QCOMPARE(said,
             QStringList({
                 "5: mixup=1 (AlexeyAB's) is not implemented: training goes on without this augmentation "
                 "(pjreddie's Darknet ignores the key too)",
                 "6: ema_alpha=0.9998 (AlexeyAB's) is not implemented: no moving average of the weights "
                 "is kept (pjreddie's Darknet ignores the key too)",
                 "8: weights_reject_freq=1001 (AlexeyAB's) is not implemented: no label is rejected as "
                 "bad (pjreddie's Darknet ignores the key too)",
                 "22: focal_loss=1 (AlexeyAB's) is not implemented: the classes train with the "
                 "plain logistic loss (pjreddie's Darknet ignores the key too)",
             }));
    // A negative size is one error, not also one about the padding pad=1 makes of it.
    const NetworkSpec negative =
        test::specFromText(net(8, 8, 3) + "[convolutional]\nfilters=4\nsize=-3\npad=1\n", "size.cfg");
    QCOMPARE(negative.diagnostics.size(), std::size_t(1));
    QVERIFY(negative.diagnostics[0].message.starts_with("size must be at least 1"));
}

// A stride of 0 is the one error: the layers after it, and a route reading it, stay quiet about their
// input (two convolutions said "the layer before it outputs 0").
void TestNetworkSpec::oneMistakeGivesOneMessage()
{
    const NetworkSpec spec = test::specFromText(
        net(8, 8, 3) +
            "[convolutional]\nfilters=4\nsize=1\n\n[convolutional]\nfilters=4\nsize=3\nstride=0\n\n"
            "[convolutional]\nfilters=18\nsize=1\n\n[convolutional]\nfilters=18\nsize=1\n\n"
            "[yolo]\nmask=0,1,2\nanchors=1,1,2,2,3,3\nclasses=1\nnum=3\n\n"
            "[route]\nlayers=-3,0\n\n[convolutional]\nfilters=2\nsize=1\n",
        "cascade.cfg");
    QVERIFY2(spec.diagnostics.size() == 1, test::allText(spec.diagnostics).c_str());
    QVERIFY(spec.diagnostics[0].isError());
    QCOMPARE(spec.diagnostics[0].layer, 1);
    QVERIFY(spec.layers[0].outputKnown);
    for (int layer = 1; layer < 7; ++layer)
        QVERIFY(!spec.layers[std::size_t(layer)].outputKnown);
    QVERIFY(spec.layers[2].valid()); // quiet, not in error itself
    // [scale_channels] after the broken layer, [sam] reading it: quiet too.
    for (const char* reader : {"[scale_channels]\nfrom=0\n", "[sam]\nfrom=1\n"}) {
        const NetworkSpec more = test::specFromText(
            net(8, 8, 3) +
                "[convolutional]\nfilters=4\nsize=1\n\n[convolutional]\nfilters=4\nsize=3\nstride=0\n\n" +
                reader + "\n[convolutional]\nfilters=2\nsize=1\n",
            "cascade.cfg");
        QVERIFY2(more.diagnostics.size() == 1, (reader + test::allText(more.diagnostics)).c_str());
        QVERIFY(!more.layers[3].outputKnown);
    }
}

// Layer 0 is read by layer 1 and by the route (3); layer 1 only by layer 2; the route's output goes
// where layer 1's was (its reader has run), the last layer's where layer 0's was. Buffers of 256, 256
// and 128 floats hold five outputs of 1152 floats in all.
void TestNetworkSpec::inferenceReusesFreedOutputsByHand()
{
    const NetworkSpec spec =
        test::specFromText("[net]\nwidth=8\nheight=8\nchannels=3\n\n"
                           "[convolutional]\nfilters=4\nsize=1\n\n[convolutional]\nfilters=4\nsize=1\n\n"
                           "[convolutional]\nfilters=2\nsize=1\n\n[route]\nlayers=-3\n\n"
                           "[convolutional]\nfilters=4\nsize=1\n");
    QVERIFY2(spec.ok(), test::allText(spec.diagnostics).c_str());
    const ActivationPlan plan = planActivations(spec, 1);
    QCOMPARE(plan.buffer, (std::vector<int>{0, 1, 2, 1, 0}));
    QCOMPARE(plan.bufferFloats, (std::vector<std::int64_t>{256, 256, 128}));
    QCOMPARE(plan.addedBytes, (std::vector<std::int64_t>{1024, 1024, 512, 0, 0}));
    QCOMPARE(spec.inferenceMemoryBytes, std::int64_t(640 * 4));
    QCOMPARE(spec.totalMemoryBytes, std::int64_t(1152 * 4));
    QCOMPARE(spec.layers[3].inferenceBytes, std::int64_t(0));
    QCOMPARE(outputsKeptAfterInference(spec), (std::vector<bool>{false, false, false, false, true}));
    // A batch of 3 scales every buffer.
    QCOMPARE(planActivations(spec, 3).bufferFloats, (std::vector<std::int64_t>{768, 768, 384}));
}

// [net] values Darknet takes as written but that make training diverge or refuse: each named on its
// line (warnings), a negative max_batches an error.
void TestNetworkSpec::netValuesThatDivergeAreNamed()
{
    const NetworkSpec spec =
        test::specFromText("[net]\nbatch=4\nsubdivisions=3\nwidth=8\nheight=8\nchannels=3\n"
                           "learning_rate=-1\nmomentum=5\ndecay=-3\nmax_batches=-5\n"
                           "[connected]\noutput=2\n",
                           "net.cfg");
    const std::vector<std::pair<int, std::string>> expected{
        {3, "batch=4 is not a multiple of subdivisions=3"},
        {7, "a negative learning rate climbs the loss"},
        {8, "momentum outside 0..1"},
        {9, "a negative decay grows the weights"},
        {10, "max_batches must not be negative"}};
    for (const auto& [line, message] : expected) {
        const Diagnostic* found = test::findDiagnostic(spec.diagnostics, message);
        QVERIFY2(found, (message + " among:\n" + test::allText(spec.diagnostics)).c_str());
        QCOMPARE(found->line, line);
        QCOMPARE(found->isError(), line == 10);
    }
    // Schedules whose rate turns negative or grows without bound, named on the key's line.
    for (const auto& [policy, line, message] :
         {std::tuple{"policy=steps\nsteps=3,6\nscales=.5,-1\n", 7,
                     "a negative scale makes the learning rate "
                     "negative from its step on"},
          std::tuple{"policy=step\nstep=3\nscale=-1\n", 7,
                     "a negative factor makes the learning rate negative"},
          std::tuple{"policy=exp\ngamma=-0.9\n", 6, "a negative factor makes the learning rate negative"},
          std::tuple{"policy=exp\ngamma=1.5\n", 6, "gamma > 1 makes policy=exp's rate grow every iteration"},
          std::tuple{"policy=poly\npower=-1\n", 6, "power < 0 makes policy=poly's rate grow to infinity"}}) {
        const NetworkSpec schedule = test::specFromText("[net]\nwidth=8\nheight=8\nchannels=3\n" +
                                                            std::string(policy) + "[connected]\noutput=2\n",
                                                        "s.cfg");
        const Diagnostic* said = test::findDiagnostic(schedule.diagnostics, message);
        QVERIFY2(said && said->line == line,
                 (std::string(policy) + test::allText(schedule.diagnostics)).c_str());
    }
    const NetworkSpec one = test::specFromText(
        "[net]\nwidth=8\nheight=8\nchannels=3\nmomentum=1\n[connected]\noutput=2\n", "one.cfg");
    QVERIFY2(test::findDiagnostic(one.diagnostics, "momentum=1 never forgets a gradient"),
             test::allText(one.diagnostics).c_str());
    // A key given twice: Darknet reads the first, and the second line is named as ignored.
    const NetworkSpec twice = test::specFromText(
        "[net]\nwidth=8\nheight=8\nchannels=3\n[connected]\noutput=2\noutput=3\n", "net.cfg");
    const Diagnostic* again =
        test::findDiagnostic(twice.diagnostics, "'output' is given again (first on line 6)");
    QVERIFY2(again, test::allText(twice.diagnostics).c_str());
    QCOMPARE(again->line, 7);
    QCOMPARE(twice.layers[0].output.size, std::int64_t(2));
    // max_batches shortened for one's own data with the original steps kept: the rate never drops.
    const auto withSteps = [](const std::string& steps) {
        return test::specFromText(
            "[net]\nwidth=8\nheight=8\nchannels=3\npolicy=steps\nmax_batches=6000\nsteps=" + steps +
                "\nscales=.1,.1\n[connected]\noutput=2\n",
            "net.cfg");
    };
    const NetworkSpec late = withSteps("400000,450000");
    const Diagnostic* never = test::findDiagnostic(
        late.diagnostics,
        "steps=400000,450000 are all at or past max_batches=6000: the learning rate never drops "
        "(AlexeyAB's rule: steps at 80 % and 90 % of max_batches, 4800,5400)");
    QVERIFY2(never, test::allText(late.diagnostics).c_str());
    QCOMPARE(never->line, 7);
    QVERIFY(!never->isError());
    const NetworkSpec partly = withSteps("4800,6000");
    QVERIFY2(test::findDiagnostic(partly.diagnostics,
                                  "steps=4800,6000 are partly at or past max_batches=6000: "
                                  "the learning rate misses those drops"),
             test::allText(partly.diagnostics).c_str());
    const NetworkSpec inTime = withSteps("4800,5400");
    QVERIFY2(inTime.diagnostics.empty(), test::allText(inTime.diagnostics).c_str());
}

// Adapting a two-head cfg to other classes, people change one head and not the other: said at the
// second head (training refused it later, with the .data file's classes in the message).
void TestNetworkSpec::headsWithOtherClassesAreNamed()
{
    const std::string head = "[yolo]\nmask=0,1,2\nanchors=1,1,2,2,3,3\nnum=3\nclasses=";
    const std::string text = net(13, 13, 8) + "[convolutional]\nfilters=30\nsize=1\n\n" + head +
                             "5\n\n[route]\nlayers=-2\n\n[convolutional]\nfilters=24\nsize=1\n\n" + head +
                             "3\n";
    const NetworkSpec spec = test::specFromText(text, "heads.cfg");
    const Diagnostic* found = test::findDiagnostic(
        spec.diagnostics,
        "classes=3 but layer 1 [yolo] has classes=5: every head of a detector finds the same "
        "classes; set classes= alike in each (and filters= in the [convolutional] before each)");
    QVERIFY2(found, test::allText(spec.diagnostics).c_str());
    QCOMPARE(found->layer, 4);
    QVERIFY(!found->isError());
    const std::string alike = text.substr(0, text.rfind("3\n")) + "5\n";
    const NetworkSpec fixed = test::specFromText(alike.substr(0, alike.find("filters=24")) + "filters=30" +
                                                     alike.substr(alike.find("filters=24") + 10),
                                                 "heads.cfg");
    QVERIFY2(fixed.diagnostics.empty(), test::allText(fixed.diagnostics).c_str());
    // A head pasted from another cfg brings its own anchor list: named at that head.
    const std::string pasted = net(13, 13, 8) + "[convolutional]\nfilters=30\nsize=1\n\n" + head +
                               "5\n\n[route]\nlayers=-2\n\n[convolutional]\nfilters=30\nsize=1\n\n"
                               "[yolo]\nmask=3,4,5\nanchors=1,1,2,2,3,3,4,4,5,5,6,6\nnum=6\nclasses=5\n";
    const NetworkSpec mixed = test::specFromText(pasted, "heads.cfg");
    const Diagnostic* anchors = test::findDiagnostic(
        mixed.diagnostics,
        "num=6 and anchors= differ from layer 1 [yolo]'s: the heads of a detector share one "
        "anchor list (num= anchors), each taking its mask= of it; give every head the same "
        "anchors= and num=");
    QVERIFY2(anchors, test::allText(mixed.diagnostics).c_str());
    QCOMPARE(anchors->layer, 4);
}

// A route's input is what its sources give (it showed the layer before it: yolov4's route -4 after a
// [yolo] read "38x38x255"), and its sources are named by number, as Darknet prints them.
void TestNetworkSpec::routesShowWhatTheyRead()
{
    const QString ab = QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/";
    const NetworkSpec v4 = buildNetworkSpec(cfg::Document::load((ab + "yolov4.cfg").toStdString()));
    const LayerSpec& back = v4.layers[151]; // layers = -4, after the first [yolo]
    QCOMPARE(back.type, std::string("route"));
    QCOMPARE(back.filters, std::string("147"));
    QCOMPARE(back.input.text(), std::string("38x38x256"));
    QCOMPARE(back.input.text(), v4.layers[147].output.text());
    const LayerSpec& spp = v4.layers[113]; // layers = -1,-3,-5,-6: four 19x19x512
    QCOMPARE(spp.filters, std::string("112 110 108 107"));
    QCOMPARE(spp.input.text(), std::string("19x19x2048"));
    const NetworkSpec tiny = buildNetworkSpec(cfg::Document::load((ab + "yolov4-tiny.cfg").toStdString()));
    QCOMPARE(tiny.layers[3].filters, std::string("2 (1/2)")); // groups=2 group_id=1
    QCOMPARE(tiny.layers[3].input.text(), std::string("104x104x64"));
    QCOMPARE(tiny.layers[3].output.text(), std::string("104x104x32"));
    // Sources of different sizes: Darknet's flat concatenation, their values summed.
    const NetworkSpec flat =
        test::specFromText(net(8, 8, 1) + "[convolutional]\nfilters=2\nsize=1\n"
                                          "[maxpool]\nsize=2\nstride=2\n[route]\nlayers=-1,-2\n",
                           "net.cfg");
    QCOMPARE(flat.layers[2].input.size, std::int64_t(8 * 8 * 2 + 4 * 4 * 2));
    QCOMPARE(flat.layers[2].input.w, 0);
    QVERIFY2(test::findDiagnostic(flat.diagnostics,
                                  "the routed layers have different sizes (layer 1 is 4x4x2 but "
                                  "layer 0 is 8x8x2), so the output is a flat vector of 160 values"),
             test::allText(flat.diagnostics).c_str());
    // A flat vector beside an image is not blamed on the input size (8x6 is no multiple of 32, but no
    // input size lines a [softmax] up with an image).
    const NetworkSpec flatBesideImage =
        test::specFromText(net(8, 6, 1) + "[convolutional]\nfilters=5\nsize=1\n[avgpool]\n[softmax]\n"
                                          "[route]\nlayers=-1,-2\n",
                           "net.cfg");
    QVERIFY2(test::findDiagnostic(flatBesideImage.diagnostics,
                                  "the routed layers have different sizes (layer 2 is "
                                  "5 but layer 1 is 1x1x5)"),
             test::allText(flatBesideImage.diagnostics).c_str());
    QVERIFY2(test::allText(flatBesideImage.diagnostics).find("multiples of 32") == std::string::npos,
             test::allText(flatBesideImage.diagnostics).c_str());
    const NetworkSpec oddInput =
        test::specFromText(net(40, 40, 1) + "[convolutional]\nfilters=2\nsize=1\n"
                                            "[maxpool]\nsize=2\nstride=2\n[route]\nlayers=-1,-2\n",
                           "net.cfg");
    QVERIFY2(test::allText(oddInput.diagnostics)
                     .find("(the input is 40x40: with width and height multiples of 32") != std::string::npos,
             test::allText(oddInput.diagnostics).c_str());
    // A convolution after it is pointed at the route, not told to move before the flat layers.
    const NetworkSpec convAfter =
        test::specFromText(net(8, 8, 1) + "[convolutional]\nfilters=2\nsize=1\n[maxpool]\nsize=2\n"
                                          "stride=2\n[route]\nlayers=-1,-2\n"
                                          "[convolutional]\nfilters=2\nsize=1\n",
                           "net.cfg");
    QVERIFY2(test::findDiagnostic(
                 convAfter.diagnostics,
                 "[convolutional] needs an image input (w×h×c) but the layer before it outputs 160 "
                 "flat values: layer 2 [route] joins layers of different sizes (its warning names "
                 "them); route layers of one size"),
             test::allText(convAfter.diagnostics).c_str());
}

// "filters=255  # 3*(80+5)": Darknet's atoi stops at the comment, so such cfgs run there; here too
// (it was "bad number for 'filters'").
void TestNetworkSpec::commentsAfterNumbersReadAsDarknet()
{
    const NetworkSpec spec = test::specFromText("[net]\nwidth=13 # side\nheight=13\nchannels=3\n"
                                                "[convolutional]\nfilters=30   # 3*(5+5)\nsize=1\n"
                                                "[yolo]\nmask = 0,1,2 ;small\nanchors=1,1, 2,2, 3,3 # mine\n"
                                                "num=3\nclasses=5\njitter=.3 # more\n",
                                                "net.cfg");
    QVERIFY2(spec.diagnostics.empty(), test::allText(spec.diagnostics).c_str());
    QCOMPARE(spec.layers[0].output.text(), std::string("13x13x30"));
    QCOMPARE(detectionHeadInfo(spec.layers[1].config.get())->jitter, 0.3f);
}

namespace {

std::vector<std::string> textLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
        lines.push_back(text.substr(start, end - start));
    lines.push_back(text.substr(start));
    return lines;
}

} // namespace

// AlexeyAB's README, by hand: classes= in every head, and in the layer before it filters= (classes + 5)·3
// for [yolo], num·(classes + coords + 1) for [region], output= side²·((coords + 1)·num + classes) for
// [detection]; a classifier's last filters=/output=. The edited network has no error, and only the lines
// holding those values change.
void TestNetworkSpec::setClassesRetargetsEveryHead_data()
{
    QTest::addColumn<QString>("cfg");
    QTest::addColumn<int>("classes");
    QTest::addColumn<int>("before");        // the classes it has
    QTest::addColumn<QList<qint64>>("fed"); // what each head (or the classifier's end) then reads
    const QString ab = QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/", pj = QString(DARKNET_CFG_DIR) + "/";
    QTest::newRow("yolov4-tiny") << ab + "yolov4-tiny.cfg" << 3 << 80 << QList<qint64>{24, 24};
    QTest::newRow("yolov4") << ab + "yolov4.cfg" << 3 << 80 << QList<qint64>{24, 24, 24};
    QTest::newRow("yolov3-tiny_3l") << ab + "yolov3-tiny_3l.cfg" << 1 << 2 << QList<qint64>{18, 18, 18};
    QTest::newRow("yolov2 [region]") << pj + "yolov2.cfg" << 7 << 80 << QList<qint64>{5 * (7 + 4 + 1)};
    QTest::newRow("yolov1 [detection]") << pj + "yolov1.cfg" << 2 << 20 << QList<qint64>{7 * 7 * (5 * 3 + 2)};
    QTest::newRow("darknet19 conv-avgpool-softmax")
        << pj + "darknet19.cfg" << 10 << 1000 << QList<qint64>{10};
    QTest::newRow("fashion-mnist connected-softmax")
        << QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg" << 3 << 10 << QList<qint64>{3};
}

void TestNetworkSpec::setClassesRetargetsEveryHead()
{
    QFETCH(QString, cfg);
    QFETCH(int, classes);
    QFETCH(int, before);
    QFETCH(QList<qint64>, fed);
    cfg::Document document = cfg::Document::load(cfg.toStdString());
    const NetworkSpec original = buildNetworkSpec(document);
    QVERIFY2(original.ok(), test::allText(original.diagnostics).c_str());
    const ClassesPlan plan = planClasses(original, classes);
    QVERIFY2(plan.error.empty(), plan.error.c_str());
    QCOMPARE(plan.currentClasses, before);
    const std::string text = document.toText();
    applyEdits(document, plan.edits);
    const NetworkSpec edited = buildNetworkSpec(document.reread());
    QVERIFY2(edited.ok(), test::allText(edited.diagnostics).c_str());

    QList<qint64> reads; // what each head's input holds, or the classifier's output
    for (const LayerSpec& layer : edited.layers)
        if (const auto head = detectionHeadInfo(layer.config.get())) {
            QCOMPARE(head->classes, classes);
            reads << (layer.type == "detection" ? layer.input.size : layer.input.c);
        }
    if (!plan.detector)
        reads << edited.layers.back().output.size;
    QCOMPARE(reads, fed);
    QCOMPARE(planClasses(edited, classes).edits.size(), std::size_t(0)); // nothing left to change

    const auto oldLines = textLines(text), newLines = textLines(document.toText());
    QCOMPARE(newLines.size(), oldLines.size());
    std::size_t changed = 0;
    for (std::size_t i = 0; i < oldLines.size(); ++i)
        changed += oldLines[i] != newLines[i];
    QCOMPARE(changed, plan.edits.size());
    QCOMPARE(changed, std::size_t(plan.detector ? 2 * fed.size() : 1));
}

// Gaussian YOLOv3 as AlexeyAB's Gaussian_yolov3_BDD.cfg builds it: yolov3 with [Gaussian_yolo] heads,
// 10 classes, filters=(classes + 9)·3 = 57 before each. Shapes, the head figures and Set classes (3 →
// 36 filters).
void TestNetworkSpec::gaussianYolov3AsAlexeyAbWritesIt()
{
    QString text = QString::fromUtf8(test::readAll(QString(DARKNET_CFG_DIR) + "/yolov3.cfg"));
    text.replace("[yolo]", "[Gaussian_yolo]")
        .replace("filters=255", "filters=57")
        .replace("classes=80", "classes=10");
    const NetworkSpec spec = test::specFromText(text.toStdString(), "gaussian.cfg");
    QVERIFY2(spec.ok(), test::allText(spec.diagnostics).c_str());
    QCOMPARE(spec.layers.size(), std::size_t(107));
    int heads = 0;
    for (const LayerSpec& layer : spec.layers)
        if (const auto head = detectionHeadInfo(layer.config.get())) {
            ++heads;
            QCOMPARE(layer.type, std::string("Gaussian_yolo"));
            QCOMPARE(layer.input.c, 57);
            QCOMPARE(head->classes, 10);
            QCOMPARE(head->maxBoxes, 200); // AlexeyAB's default for its own layer
            QCOMPARE(head->inputBase + 10 * head->inputPerClass, 57LL);
        }
    QCOMPARE(heads, 3);
    cfg::Document document = cfg::Document::parse(text.toStdString(), "gaussian.cfg");
    const ClassesPlan plan = planClasses(spec, 3);
    QVERIFY2(plan.error.empty(), plan.error.c_str());
    applyEdits(document, plan.edits);
    const NetworkSpec three = buildNetworkSpec(document.reread());
    QVERIFY2(three.ok(), test::allText(three.diagnostics).c_str());
    QCOMPARE(three.layers[82].input.c, 36);
    QCOMPARE(three.layers[106].input.c, 36);
}

void TestNetworkSpec::setClassesRefusesWhatItCannotSet()
{
    const auto refusal = [](const std::string& text, int classes) {
        return planClasses(test::specFromText(text, "net.cfg"), classes);
    };
    const std::string input = net(13, 13, 8);
    const std::string yolo = "[yolo]\nmask=0\nanchors=1,1\nnum=1\nclasses=1\n";
    // A head fed by a [route]: no filters= to set there.
    ClassesPlan plan = refusal(input + "[convolutional]\nfilters=6\nsize=1\n[route]\nlayers=-1\n" + yolo, 2);
    QCOMPARE(plan.error,
             std::string("layer 2 [yolo] reads layer 1 [route], which has no filters= to set: put a "
                         "[convolutional] (size=1, activation=linear) right before it"));
    QVERIFY(plan.edits.empty());
    // Neither a detector nor a classifier.
    plan = refusal(input + "[convolutional]\nfilters=6\nsize=1\n", 2);
    QVERIFY2(plan.error.find("the network ends in layer 0 [convolutional]: it is neither a detector") == 0,
             plan.error.c_str());
    plan = refusal(input + "[convolutional]\nfilters=6\nsize=1\n" + yolo, 0);
    QCOMPARE(plan.error, std::string("the number of classes must be at least 1"));
    // yolo9000: the classes are its tree's.
    const NetworkSpec nineThousand = buildNetworkSpec(cfg::Document::load(DARKNET_CFG_DIR "/yolo9000.cfg"));
    plan = planClasses(nineThousand, 20);
    QVERIFY2(plan.error.find("takes its classes from its tree= file") != std::string::npos,
             plan.error.c_str());
    // A head's channel message names the convolution to change, or says to put one there.
    const NetworkSpec wrongFilters =
        test::specFromText(input + "[convolutional]\nfilters=7\nsize=1\n" + yolo, "net.cfg");
    QVERIFY2(
        test::findDiagnostic(wrongFilters.diagnostics,
                             "the layer before [yolo] outputs 7 channels but 1 anchors × (classes 1 + 5) = 6 "
                             "are needed: set filters=6 in layer 0 [convolutional]"),
        test::allText(wrongFilters.diagnostics).c_str());
    const NetworkSpec afterRoute = test::specFromText(
        input + "[convolutional]\nfilters=7\nsize=1\n[route]\nlayers=-1\n" + yolo, "net.cfg");
    QVERIFY2(
        test::findDiagnostic(afterRoute.diagnostics,
                             "are needed: put a [convolutional] with filters=6 (size=1) right before it"),
        test::allText(afterRoute.diagnostics).c_str());
    // The same classes: nothing to do, no error.
    plan = refusal(input + "[convolutional]\nfilters=6\nsize=1\n" + yolo, 1);
    QVERIFY(plan.error.empty());
    QVERIFY(plan.edits.empty());
}

// max_batches = 2000·classes, at least 6000; steps at 80 % and 90 % (AlexeyAB's README).
void TestNetworkSpec::setClassesScheduleFollowsAlexeyAB()
{
    const NetworkSpec spec = buildNetworkSpec(
        cfg::Document::load((QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/yolov4-tiny.cfg").toStdString()));
    const auto netEdits = [&](int classes) {
        std::vector<std::string> edits;
        for (const KeyEdit& edit : planClasses(spec, classes, true).edits)
            if (edit.section == 0)
                edits.push_back(edit.key + "=" + edit.value);
        return edits;
    };
    QCOMPARE(netEdits(2), (std::vector<std::string>{"max_batches=6000", "steps=4800,5400"}));
    QCOMPARE(netEdits(5), (std::vector<std::string>{"max_batches=10000", "steps=8000,9000"}));
    QCOMPARE(planClasses(spec, 5, false).edits.size(), std::size_t(4)); // the heads only
    // Another policy has no steps: only max_batches.
    const NetworkSpec constant =
        test::specFromText(net(13, 13, 8) + "max_batches=100\n[convolutional]\nfilters=6\nsize=1\n"
                                            "[yolo]\nmask=0\nanchors=1,1\nnum=1\nclasses=1\n",
                           "net.cfg");
    const ClassesPlan plan = planClasses(constant, 3, true);
    QCOMPARE(plan.edits.size(), std::size_t(3));
    QCOMPARE(plan.edits[0].key + "=" + plan.edits[0].value, std::string("max_batches=6000"));
}

QTEST_GUILESS_MAIN(TestNetworkSpec)
#include "test_network_spec.moc"
