// The CPU runtime against the reference Darknet: random weights and BN statistics written by
// libdarknet itself, the same input, every layer's output compared; .weights round trips byte for byte;
// damaged files are refused without changing anything.
#include "kernels/cpu/gemm.h"
#include "runtime/net.h"
#include "test_support.h"
#include "util/float_file.h"
#include "util/uniform_float.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <cfloat>
#include <cmath>
#include <limits>
#include <omp.h>
#include <thread>
#include <utility>

using namespace nw;

namespace {

std::unique_ptr<Net> makeNet(const std::string& cfg, int batch = 1)
{
    const NetworkSpec spec = buildNetworkSpec(cfg::Document::load(cfg), {batch});
    std::string error;
    auto net = Net::create(spec, batch, error);
    if (!net)
        qWarning("%s", error.c_str());
    return net;
}

std::unique_ptr<Net> makeNetFromText(const std::string& text)
{
    std::string error;
    return Net::create(test::specFromText(text), 1, error);
}

bool makeReferenceCase(const QString& cfg, const QString& dir, QString* failure)
{
    QProcess process;
    process.start(DARKNET_REF_FORWARD, {cfg, dir, "7"});
    if (!process.waitForFinished(300000) || process.exitStatus() != QProcess::NormalExit ||
        process.exitCode() != 0) {
        *failure = "libdarknet forward helper failed on " + cfg;
        return false;
    }
    return true;
}

using test::readFloats;

// One input for `net` (batch 1), uniform in [0, 1), the same for the same seed.
std::vector<float> uniformInput(const Net& net, unsigned seed)
{
    std::vector<float> input(std::size_t(net.inputShape().size));
    std::mt19937 random(seed);
    for (float& v : input)
        v = uniformFloat(random, 0, 1);
    return input;
}

// max |a − b| / max(1, max |a|): the tolerance is stated against this figure.
double relativeError(const std::vector<float>& reference, std::span<const float> ours)
{
    double largest = 1, diff = 0;
    for (std::size_t i = 0; i < reference.size(); ++i) {
        largest = std::max(largest, double(std::fabs(reference[i])));
        diff = std::max(diff, double(std::fabs(reference[i] - ours[i])));
        if (std::isnan(ours[i]) != std::isnan(reference[i]))
            return INFINITY;
    }
    return diff / largest;
}

} // namespace

class TestRuntime : public QObject {
    Q_OBJECT
private slots:
    void inferenceOnlyNetSharesBuffersAndGivesTheSameHeads_data();
    void inferenceOnlyNetSharesBuffersAndGivesTheSameHeads();
    void stride1MaxpoolMatchesWindowsByHand();
    void matchesDarknetLayerByLayer_data();
    void matchesDarknetLayerByLayer();
    void damagedWeightsAreRefusedWithoutChanges();
    void transposedFilesMatchDarknet_data();
    void transposedFilesMatchDarknet();
    void trailingBytesAreRefusedUnlessAllowed();
    void backbonesLoadForTrainingOnly();
    void nonFiniteWeightsAreAWarningNamingTheLayer();
    void aDirectoryIsNotAWeightsFile();
    void threadCountDoesNotChangeResults();
    void batchItemsAreIndependent();
    void defaultThreadsFollowOmpNumThreads();
    void threadCountIsPerNetAndScopedToThePass();
    void standaloneBatchnormByHand();
    void initialWeightsFollowDarknet();
    void layersWithoutForwardAreNamed();
    void reorg3dIsATrueSpaceToDepth();
    void parameterStoreIsTheWeightsFileLayout_data();
    void parameterStoreIsTheWeightsFileLayout();
};

void TestRuntime::matchesDarknetLayerByLayer_data()
{
    QTest::addColumn<QString>("cfg");
    for (const char* name :
         {"yolov3-tiny", "yolov2-tiny", "yolov2-tiny-voc", "resnet18", "darknet19", "yolov1-tiny", "tiny",
          "darknet", "alexnet", "resnext50", "cifar", "go", "rnn", "gru"})
        QTest::newRow(name) << QString(DARKNET_CFG_DIR) + "/" + name + ".cfg";
    QTest::newRow("mixed (local, lrn, crop, reorg, l2norm, ...)")
        << QString(NETWRIGHT_TEST_DATA_DIR) + "/parity/mixed.cfg";
    QTest::newRow("lstm") << QString(NETWRIGHT_TEST_DATA_DIR) + "/parity/lstm.cfg";
    QTest::newRow("deconvolutional, crnn") << QString(NETWRIGHT_TEST_DATA_DIR) + "/parity/deconv-crnn.cfg";
    QTest::newRow("tree softmax (darknet9000)")
        << QString(NETWRIGHT_TEST_DATA_DIR) + "/parity/tree-softmax.cfg";
}

// Tolerance: 1e-3 × max(1, max|reference|) per layer. The only systematic difference is batch norm's
// epsilon (ours sqrt(var + 1e-5), pjreddie's CPU sqrt(var) + 1e-6); measured worst is ≈ 1e-4.
void TestRuntime::matchesDarknetLayerByLayer()
{
    QFETCH(QString, cfg);
    if (test::tooLargeForSanitizers(buildNetworkSpec(cfg::Document::load(cfg.toStdString())).totalParams))
        QSKIP(test::kLargeUnderSanitizers);
    QTemporaryDir dir;
    QString failure;
    QVERIFY2(makeReferenceCase(cfg, dir.path(), &failure), qPrintable(failure));
    auto net = makeNet(cfg.toStdString());
    QVERIFY(net);
    const QString weights = dir.filePath("net.weights");
    const auto error = net->loadWeights(weights.toStdString());
    QVERIFY2(!error, error ? error->c_str() : "");
    const std::vector<float> input = readFloats(dir.filePath("input.f32"));
    QCOMPARE(input.size(), std::size_t(net->inputShape().size));
    net->forward(input.data());
    const auto& layers = net->spec().layers;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        if (layers[i].type == "cost") // Darknet's cost layer output is not defined at inference
            continue;
        const std::vector<float> reference =
            readFloats(dir.filePath(QString("layer_%1.f32").arg(i, 3, 10, QChar('0'))));
        QCOMPARE(reference.size(), net->output(int(i)).size());
        const double relative = relativeError(reference, net->output(int(i)).span());
        QVERIFY2(relative <= 1e-3, qPrintable(QString("layer %1 (%2): relative error %3")
                                                  .arg(i)
                                                  .arg(QString::fromStdString(layers[i].type))
                                                  .arg(relative)));
    }
    // Load → save writes Darknet's bytes back.
    const QString copy = dir.filePath("copy.weights");
    QVERIFY(!net->saveWeights(copy.toStdString()));
    QCOMPARE(test::readAll(copy), test::readAll(weights));
}

void TestRuntime::transposedFilesMatchDarknet_data()
{
    QTest::addColumn<QString>("cfg");
    for (const char* name : {"yolov1-tiny", "rnn", "gru"}) // [connected], [rnn], [gru]
        QTest::newRow(name) << QString(DARKNET_CFG_DIR) + "/" + name + ".cfg";
    QTest::newRow("lstm") << QString(NETWRIGHT_TEST_DATA_DIR) + "/parity/lstm.cfg";
}

// A file whose header version is over 1000 holds every connected matrix as [inputs][outputs] — the
// [connected] layers' and the gate blocks of [rnn], [gru] and [lstm] (Darknet's load_weights_upto). The
// reference case rewritten that way gives Darknet's outputs again ([rnn] & co. read it untransposed,
// with no warning, before), saves back to the same bytes, and refuses to train, saying why.
void TestRuntime::transposedFilesMatchDarknet()
{
    QFETCH(QString, cfg);
    QTemporaryDir dir;
    QString failure;
    QVERIFY2(makeReferenceCase(cfg, dir.path(), &failure), qPrintable(failure));
    auto net = makeNet(cfg.toStdString());
    QVERIFY(net);
    QVERIFY(!net->loadWeights(dir.filePath("net.weights").toStdString()));
    QByteArray transposed;
    const auto append = [&](const void* data, std::size_t bytes) {
        transposed.append(static_cast<const char*>(data), qsizetype(bytes));
    };
    const std::int32_t header[4] = {1001, 0, 0, 0}; // major, minor, revision, a 32-bit seen
    append(header, sizeof header);
    int matrices = 0;
    for (const LayerSpec& layer : net->spec().layers) {
        const bool connected =
            layer.type == "connected" || layer.type == "rnn" || layer.type == "gru" || layer.type == "lstm";
        std::size_t outputs = 0;
        for (const WeightArray& array : net->layerWeightArrays(layer.index)) {
            std::vector<float> values(array.data->begin(), array.data->end());
            if (std::string(array.name) == "biases")
                outputs = values.size(); // each block's biases come just before its matrix
            if (connected && std::string(array.name) == "weights") {
                const std::size_t inputs = values.size() / outputs;
                for (std::size_t o = 0; o < outputs; ++o)
                    for (std::size_t i = 0; i < inputs; ++i)
                        values[i * outputs + o] = array.data->begin()[o * inputs + i];
                ++matrices;
            }
            append(values.data(), values.size() * sizeof(float));
        }
    }
    QVERIFY(matrices > 0);
    const QString path = dir.filePath("transposed.weights");
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly) && file.write(transposed) == transposed.size());
    }
    auto reader = makeNet(cfg.toStdString());
    const auto error = reader->loadWeights(path.toStdString());
    QVERIFY2(!error, error ? error->c_str() : "");
    QVERIFY(reader->weightsHeader().transpose());
    const std::vector<float> input = readFloats(dir.filePath("input.f32"));
    reader->forward(input.data());
    const int last = int(reader->spec().layers.size()) - 1;
    const std::vector<float> reference =
        readFloats(dir.filePath(QString("layer_%1.f32").arg(last, 3, 10, QChar('0'))));
    const double relative = relativeError(reference, reader->output(last).span());
    QVERIFY2(relative <= 1e-3, qPrintable(QString("relative error %1").arg(relative)));
    const QString copy = dir.filePath("copy.weights");
    QVERIFY(!reader->saveWeights(copy.toStdString()));
    QCOMPARE(test::readAll(copy), transposed);
    const auto training = reader->setTraining(true);
    QVERIFY(training && training->find("transposed .weights file") != std::string::npos);
}

void TestRuntime::damagedWeightsAreRefusedWithoutChanges()
{
    const std::string cfg = std::string(DARKNET_CFG_DIR) + "/yolov2-tiny.cfg";
    QTemporaryDir dir;
    QString failure;
    QVERIFY2(makeReferenceCase(QString::fromStdString(cfg), dir.path(), &failure), qPrintable(failure));
    auto net = makeNet(cfg);
    QVERIFY(!net->loadWeights(dir.filePath("net.weights").toStdString()));
    const std::vector<float> input = readFloats(dir.filePath("input.f32"));
    const std::vector<float> before(net->forward(input.data()).span().begin(),
                                    net->forward(input.data()).span().end());

    // Layer 0: biases 16, BN 3×16, weights 16·3·9 = 496 floats; the maxpool has none, so layer 2 starts
    // at byte 20 + 4·496 = 2004 with 32 biases (128 bytes). Cut the file 100 bytes into them.
    const QByteArray full = test::readAll(dir.filePath("net.weights"));
    const QString cut = dir.filePath("cut.weights");
    QFile file(cut);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(full.left(20 + 4 * 496 + 100));
    file.close();
    const auto error = net->loadWeights(cut.toStdString());
    QVERIFY(error);
    QVERIFY2(
        error->find(
            "the file ends inside layer 2 [convolutional] (line 37), array 'biases': it needs 128 bytes at "
            "offset 2004 but only 100 are left") != std::string::npos,
        error->c_str());
    const auto after = net->forward(input.data()).span();
    QVERIFY(std::equal(before.begin(), before.end(), after.begin())); // nothing half-loaded

    QVERIFY(net->loadWeights(dir.filePath("missing.weights").toStdString())->find("no such file") !=
            std::string::npos);
    QFile tiny(dir.filePath("tiny.weights"));
    QVERIFY(tiny.open(QIODevice::WriteOnly));
    tiny.write("abc");
    tiny.close();
    QVERIFY(net->loadWeights(tiny.fileName().toStdString())->find("not a Darknet weights file") !=
            std::string::npos);
}

void TestRuntime::trailingBytesAreRefusedUnlessAllowed()
{
    auto net =
        makeNetFromText("[net]\nwidth=2\nheight=2\nchannels=1\n[connected]\noutput=2\nactivation=linear\n");
    QVERIFY(net);
    QTemporaryDir dir;
    const QString path = dir.filePath("w.weights");
    QVERIFY(!net->saveWeights(path.toStdString()));
    QCOMPARE(test::readAll(path).size(), 20 + 4 * (2 + 8));
    const std::vector<float> before(net->weightArrays()[1].data->begin(), net->weightArrays()[1].data->end());
    QFile file(path);
    QVERIFY(file.open(QIODevice::Append));
    file.write(QByteArray(12, '\1'));
    file.close();
    // Another network's (longer) file: refused, nothing changes.
    std::vector<std::string> warnings;
    const auto error = net->loadWeights(path.toStdString(), &warnings);
    QVERIFY(error);
    QVERIFY2(error->find("12 bytes more than this network's 60 (header and weights)") != std::string::npos,
             error->c_str());
    QVERIFY(error->find("--allow-extra") == std::string::npos); // (the studio has no such flag)
    QVERIFY(warnings.empty());
    const auto advised =
        net->loadWeights(path.toStdString(), &warnings, {.allowExtraAdvice = "use --allow-extra"});
    QVERIFY(advised && advised->ends_with("start from it; use --allow-extra"));
    QVERIFY(std::equal(before.begin(), before.end(), net->weightArrays()[1].data->begin()));
    // Asked for on purpose: the first part loads with a warning.
    QVERIFY(!net->loadWeights(path.toStdString(), &warnings, {.allowExtra = true}));
    QCOMPARE(warnings.size(), std::size_t(1));
    QVERIFY2(warnings[0].find("12 bytes more") != std::string::npos, warnings[0].c_str());
}

// A file that ends between two layers (Darknet's partial: yolov4.conv.137 holds layers 0..136): refused
// as a whole network's weights, saying what it is; loaded as a training start, the later layers keep
// their values. saveWeights(path, N) writes such a file, seen 0. A file ending inside a layer stays an
// error either way.
void TestRuntime::backbonesLoadForTrainingOnly()
{
    const std::string cfg =
        "[net]\nwidth=4\nheight=4\nchannels=1\n[convolutional]\nfilters=2\nsize=3\npad=1\n"
        "[maxpool]\nsize=2\nstride=2\n[connected]\noutput=3\nactivation=linear\n";
    auto trained = makeNetFromText(cfg);
    trained->initialize(3);
    trained->setSeen(6400);
    QTemporaryDir dir;
    const std::string backbone = dir.filePath("net.conv.2").toStdString();
    QVERIFY(!trained->saveWeights(backbone, 2)); // layers 0 (convolution) and 1 (maxpool)
    QCOMPARE(test::readAll(QString::fromStdString(backbone)).size(), 20 + 4 * (2 + 18));
    auto net = makeNetFromText(cfg);
    net->initialize(7);
    const std::vector<float> connected(net->weightArrays()[3].data->begin(),
                                       net->weightArrays()[3].data->end());
    const std::vector<float> convolution(net->weightArrays()[1].data->begin(),
                                         net->weightArrays()[1].data->end());
    std::vector<std::string> warnings;
    const auto error = net->loadWeights(backbone, &warnings);
    QVERIFY(error);
    QVERIFY2(error->find(
                 "the file ends after layer 0 [convolutional]: it holds the weights of layers 0..0, none "
                 "of layer 2 [connected] (line 12) onwards: a backbone to train from") != std::string::npos,
             error->c_str());
    QVERIFY(std::equal(convolution.begin(), convolution.end(), net->weightArrays()[1].data->begin()));
    QVERIFY(!net->loadWeights(backbone, &warnings, {.allowPrefix = true}));
    QCOMPARE(warnings.size(), std::size_t(1));
    QVERIFY2(warnings[0].find("layers 2 to 2 start from random weights") != std::string::npos,
             warnings[0].c_str());
    QVERIFY(std::equal(connected.begin(), connected.end(), net->weightArrays()[3].data->begin()));
    QVERIFY(std::equal(net->weightArrays()[1].data->begin(), net->weightArrays()[1].data->end(),
                       trained->weightArrays()[1].data->begin()));
    QCOMPARE(net->seen(), std::uint64_t(0));
    // Cut inside the convolution's weights: an error, backbone or not.
    QFile file(QString::fromStdString(backbone));
    QVERIFY(file.resize(20 + 4 * 10));
    const auto inside = net->loadWeights(backbone, nullptr, {.allowPrefix = true});
    QVERIFY(inside && inside->find("ends inside layer 0 [convolutional]") != std::string::npos);
}

void TestRuntime::nonFiniteWeightsAreAWarningNamingTheLayer()
{
    auto net =
        makeNetFromText("[net]\nwidth=2\nheight=2\nchannels=1\n[connected]\noutput=2\nactivation=linear\n"
                        "[connected]\noutput=3\nactivation=linear\n");
    QVERIFY(net);
    QTemporaryDir dir;
    const QString path = dir.filePath("nan.weights");
    (*net->weightArrays()[3].data)[1] = std::numeric_limits<float>::quiet_NaN(); // layer 1's weights
    (*net->weightArrays()[3].data)[4] = std::numeric_limits<float>::infinity();
    QVERIFY(!net->saveWeights(path.toStdString()));
    std::vector<std::string> warnings;
    QVERIFY(!net->loadWeights(path.toStdString(), &warnings));
    QCOMPARE(warnings.size(), std::size_t(1));
    QVERIFY2(
        warnings[0].find("layer 1 [connected] (line 8): 2 of 6 values of 'weights' are NaN or infinite") !=
            std::string::npos,
        warnings[0].c_str());
}

void TestRuntime::aDirectoryIsNotAWeightsFile()
{
    auto net =
        makeNetFromText("[net]\nwidth=2\nheight=2\nchannels=1\n[connected]\noutput=2\nactivation=linear\n");
    QTemporaryDir dir;
    const auto error = net->loadWeights(dir.path().toStdString());
    QVERIFY(error);
    QVERIFY2(error->find("is a directory, not a .weights file") != std::string::npos, error->c_str());
}

void TestRuntime::threadCountDoesNotChangeResults()
{
    auto net = makeNet(std::string(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg");
    net->initialize(3);
    const std::vector<float> input = uniformInput(*net, 5);
    setComputeThreads(1);
    const std::span<const float> one = net->forward(input.data()).span();
    const std::vector<float> reference(one.begin(), one.end());
    setComputeThreads(2);
    QVERIFY(relativeError(reference, net->forward(input.data()).span()) < 1e-5);
}

// The default thread count is OMP_NUM_THREADS's when set (a count that is not one is ignored), else
// every core.
void TestRuntime::defaultThreadsFollowOmpNumThreads()
{
    qputenv("OMP_NUM_THREADS", "1");
    setComputeThreads(0);
    QCOMPARE(computeThreads(), 1);
    qputenv("OMP_NUM_THREADS", "3,1");
    setComputeThreads(0);
    QCOMPARE(computeThreads(), 3);
    qputenv("OMP_NUM_THREADS", "many");
    setComputeThreads(0);
    QCOMPARE(computeThreads(), omp_get_num_procs());
    qunsetenv("OMP_NUM_THREADS");
    setComputeThreads(0);
    QCOMPARE(computeThreads(), omp_get_num_procs());
}

// Net::setThreads: each net's passes use its own count on the thread that runs them (a training worker
// and a detection worker side by side), and the caller's count is what it was afterwards.
void TestRuntime::threadCountIsPerNetAndScopedToThePass()
{
    setComputeThreads(2);
    auto one = makeNet(std::string(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg");
    auto two = makeNet(std::string(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg");
    QVERIFY(one && two);
    one->initialize(3);
    two->initialize(3);
    const std::vector<float> input = uniformInput(*one, 5);
    const std::span<const float> first = two->forward(input.data()).span();
    const std::vector<float> reference(first.begin(), first.end());
    one->setThreads(1);
    QCOMPARE(one->threads(), 1);
    std::vector<float> fromOne, fromTwo;
    std::thread a([&] {
        const auto out = one->forward(input.data()).span();
        fromOne.assign(out.begin(), out.end());
    });
    std::thread b([&] {
        const auto out = two->forward(input.data()).span();
        fromTwo.assign(out.begin(), out.end());
    });
    a.join();
    b.join();
    QVERIFY(relativeError(reference, fromOne) < 1e-5);
    QVERIFY(relativeError(reference, fromTwo) < 1e-5);
    one->forward(input.data()); // on this thread, with 1 thread
    QCOMPARE(computeThreads(), 2);
    // More threads than cores: the shared workspace is split by thread, so it grows with the count
    // (before, this wrote past its end; the sanitizer build would say so).
    two->setThreads(maxComputeThreads() + 3);
    QVERIFY(relativeError(reference, two->forward(input.data()).span()) < 1e-5);
    QCOMPARE(computeThreads(), 2);
}

void TestRuntime::batchItemsAreIndependent()
{
    const std::string cfg = std::string(DARKNET_CFG_DIR) + "/resnet18.cfg";
    auto single = makeNet(cfg, 1);
    auto pair = makeNet(cfg, 2);
    single->initialize(9);
    pair->initialize(9);
    const std::size_t n = std::size_t(single->inputShape().size);
    std::vector<float> inputs(2 * n);
    for (std::size_t i = 0; i < inputs.size(); ++i)
        inputs[i] = float((i * 7919) % 1000) / 1000.0f;
    const Tensor& both = pair->forward(inputs.data());
    for (int b = 0; b < 2; ++b) {
        const Tensor& alone = single->forward(inputs.data() + std::size_t(b) * n);
        std::vector<float> reference(alone.span().begin(), alone.span().end());
        QVERIFY(relativeError(reference, std::span<const float>(both.item(b), both.itemSize())) < 1e-5);
    }
}

void TestRuntime::standaloneBatchnormByHand()
{
    auto net = makeNetFromText("[net]\nwidth=1\nheight=1\nchannels=2\n[batchnorm]\n");
    QVERIFY(net);
    // pjreddie's order for [batchnorm]: scales, rolling mean, rolling variance.
    QTemporaryDir dir;
    const QString path = dir.filePath("bn.weights");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    const std::int32_t header[3] = {0, 2, 0};
    const std::uint64_t seen = 0;
    const float arrays[6] = {2, 3, 1, -1, 4, 0.25f};
    file.write(reinterpret_cast<const char*>(header), sizeof header);
    file.write(reinterpret_cast<const char*>(&seen), sizeof seen);
    file.write(reinterpret_cast<const char*>(arrays), sizeof arrays);
    file.close();
    QVERIFY(!net->loadWeights(path.toStdString()));
    const float input[2] = {5, 1};
    const Tensor& out = net->forward(input);
    QCOMPARE(out.data()[0], 2 * (5 - 1) / std::sqrt(4 + 1e-5f));
    QCOMPARE(out.data()[1], 3 * (1 + 1) / std::sqrt(0.25f + 1e-5f));
}

// Random initial weights of Darknet's spread (make_*_layer): a convolution's sqrt(2/fan_in)·normal is
// drawn uniformly with its variance; [connected], [local] and the recurrent layers draw uniformly in
// ±sqrt(2/fan_in) as Darknet does (they drew √3 wider), [deconvolutional] has Darknet's 0.02·normal
// variance (it had the convolution's, 0.16 here).
void TestRuntime::initialWeightsFollowDarknet()
{
    auto net = makeNetFromText("[net]\nwidth=8\nheight=8\nchannels=3\n"
                               "[convolutional]\nfilters=64\nsize=3\npad=1\nactivation=leaky\n"
                               "[local]\nfilters=16\nsize=3\nstride=1\npad=1\nactivation=leaky\n"
                               "[deconvolutional]\nfilters=32\nsize=2\nstride=2\nactivation=leaky\n"
                               "[connected]\noutput=100\nactivation=leaky\n"
                               "[rnn]\noutput=50\nhidden=50\nactivation=leaky\n");
    QVERIFY(net);
    net->initialize(11);
    // The bound of each uniform draw (so a standard deviation of bound / √3).
    const double bounds[] = {
        std::sqrt(2.0 / 27) * std::sqrt(3.0), // convolution: 3·3·3 inputs per filter, normal's variance
        std::sqrt(2.0 / (9 * 64)),            // local: 3·3·64
        0.02 * std::sqrt(3.0),                // deconvolution: 0.02·normal's variance
        std::sqrt(2.0 / (16 * 16 * 32)),      // connected: 16×16×32 inputs
    };
    for (int layer = 0; layer < 4; ++layer) {
        const double bound = bounds[layer];
        for (const WeightArray& array : net->layerWeightArrays(layer)) {
            if (std::string(array.name) != "weights")
                continue;
            double largest = 0, squares = 0;
            for (float w : *array.data) {
                largest = std::max(largest, double(std::abs(w)));
                squares += double(w) * w;
            }
            const double deviation = std::sqrt(squares / double(array.data->size()));
            QVERIFY2(
                largest <= bound * 1.0001 && largest > 0.95 * bound,
                qPrintable(QString("layer %1: largest %2, bound %3").arg(layer).arg(largest).arg(bound)));
            QVERIFY2(std::abs(deviation - bound / std::sqrt(3.0)) < 0.05 * bound / std::sqrt(3.0),
                     qPrintable(QString("layer %1: deviation %2").arg(layer).arg(deviation)));
        }
    }
    // The rnn's blocks (input, self, output), each a [connected] of its inputs: 100, 50 and 50.
    for (const WeightArray& array : net->layerWeightArrays(4))
        if (std::string(array.name) == "weights") {
            const double bound = std::sqrt(2.0 / double(array.data->size() / 50));
            for (float w : *array.data)
                QVERIFY2(std::abs(w) <= bound * 1.0001, qPrintable(QString::number(w)));
        }
}

void TestRuntime::layersWithoutForwardAreNamed()
{
    std::string error;
    // AlexeyAB's reverse [reorg3d] over 4 channels would divide by zero in its reorg_cpu: refused in words.
    auto net = Net::create(
        test::specFromText("[net]\nwidth=2\nheight=2\nchannels=4\n[reorg3d]\nstride=2\nreverse=1\n"), 1,
        error);
    QVERIFY(!net);
    QVERIFY2(
        error.find(
            "test.cfg:6: error: layer 0: reverse reorg3d needs channels (4) divisible by stride⁴ = 16") !=
            std::string::npos,
        error.c_str());
    net = Net::create(test::specFromText("[net]\nwidth=4\nheight=4\nchannels=1\n[yolo]\n"), 1, error);
    QVERIFY(!net);
    QVERIFY(error.find("the network has errors; first: test.cfg:5: error: layer 0:") == 0);
    // yolo9000's tree that cannot be read: an error on its line, naming the file.
    net = Net::create(test::specFromText("[net]\nwidth=4\nheight=4\nchannels=3\n[convolutional]\nfilters=7\n"
                                         "size=1\n[region]\nclasses=2\nnum=1\ntree=9k.tree\n"),
                      1, error);
    QVERIFY(!net);
    QVERIFY2(
        error.find("the network has errors; first: test.cfg:11: error: layer 1: 9k.tree: cannot read the "
                   "class tree") == 0,
        error.c_str());
    // A recurrent layer's batch holds sequences of time_steps items: a remainder is refused in words.
    const NetworkSpec recurrent =
        test::specFromText("[net]\ninputs=4\ntime_steps=3\n[connected]\noutput=4\n[gru]\noutput=4\n");
    net = Net::create(recurrent, 4, error);
    QVERIFY(!net);
    QCOMPARE(
        QString::fromStdString(error),
        QString("test.cfg:6: layer 1 [gru] reads its batch as sequences of time_steps=3 items, but the batch "
                "is 4: use a multiple of 3"));
    QVERIFY2(Net::create(recurrent, 6, error), error.c_str());
}

// Stride-1 max-pools (YOLOv4's SPP: 5, 9, 13) take the separable path at inference; every output must
// be the maximum of its window as Darknet defines it (origin −padding/2, positions outside the image
// ignored), for odd image sizes, default and explicit paddings, and windows larger than the image.
void TestRuntime::stride1MaxpoolMatchesWindowsByHand()
{
    struct Case {
        int w, h, size, padding; // padding < 0: the default (size − 1)
    };
    std::mt19937 random(23);
    std::uniform_real_distribution<float> uniform(-1, 1);
    for (const Case& c : {Case{7, 5, 2, -1}, Case{19, 19, 5, -1}, Case{19, 19, 9, -1}, Case{19, 19, 13, -1},
                          Case{9, 6, 3, 0}, Case{8, 7, 3, 4}, Case{4, 3, 7, -1}}) {
        std::string cfg = "[net]\nwidth=" + std::to_string(c.w) + "\nheight=" + std::to_string(c.h) +
                          "\nchannels=3\n\n[maxpool]\nstride=1\nsize=" + std::to_string(c.size) + "\n";
        if (c.padding >= 0)
            cfg += "padding=" + std::to_string(c.padding) + "\n";
        auto net = makeNetFromText(cfg);
        QVERIFY(net);
        std::vector<float> image(std::size_t(c.w * c.h * 3));
        for (float& v : image)
            v = uniform(random);
        const Tensor& out = net->forward(image.data());
        const int padding = c.padding >= 0 ? c.padding : c.size - 1, offset = -padding / 2;
        const int outW = c.w + padding - c.size + 1, outH = c.h + padding - c.size + 1;
        QCOMPARE(int(out.itemSize()), outW * outH * 3);
        for (int k = 0; k < 3; ++k)
            for (int y = 0; y < outH; ++y)
                for (int x = 0; x < outW; ++x) {
                    float best = -FLT_MAX;
                    for (int dy = 0; dy < c.size; ++dy)
                        for (int dx = 0; dx < c.size; ++dx) {
                            const int iy = y + offset + dy, ix = x + offset + dx;
                            if (iy >= 0 && iy < c.h && ix >= 0 && ix < c.w)
                                best = std::max(best, image[std::size_t((k * c.h + iy) * c.w + ix)]);
                        }
                    QCOMPARE(out.data()[(k * outH + y) * outW + x], best);
                }
    }
    // A window far larger than the image (size=2147483647: its default padding keeps the output 5x4) is
    // the plane's maximum everywhere, found over the image alone: the loops stepped through every window
    // position outside it, for hours.
    auto huge =
        makeNetFromText("[net]\nwidth=9\nheight=7\nchannels=2\n[maxpool]\nsize=2147483647\nstride=2\n");
    QVERIFY(huge);
    std::vector<float> image(9 * 7 * 2);
    for (float& v : image)
        v = uniform(random);
    const Tensor& out = huge->forward(image.data());
    QCOMPARE(int(out.itemSize()), 5 * 4 * 2);
    for (int k = 0; k < 2; ++k) {
        const float planeMax = *std::max_element(image.begin() + k * 63, image.begin() + (k + 1) * 63);
        for (int i = 0; i < 20; ++i)
            QCOMPARE(out.data()[k * 20 + i], planeMax);
    }
}

void TestRuntime::inferenceOnlyNetSharesBuffersAndGivesTheSameHeads_data()
{
    QTest::addColumn<QString>("cfg");
    QTest::addColumn<int>("size"); // the input's width and height; 0: the cfg's own
    const QString darknet = DARKNET_CFG_DIR, data = NETWRIGHT_TEST_DATA_DIR;
    // yolov2 and yolov4 at 320 instead of their 608: the same graph and buffer plan at a third of the work.
    for (const auto& [cfg, size] : {std::pair{darknet + "/yolov3-tiny.cfg", 0},
                                    {darknet + "/yolov2.cfg", 320},
                                    {darknet + "/resnet18.cfg", 0},
                                    {darknet + "/darknet19.cfg", 0},
                                    {darknet + "/rnn.cfg", 0},
                                    {data + "/ab-cfgs/yolov4.cfg", 320},
                                    {data + "/ab-cfgs/yolov4-tiny-3l.cfg", 0},
                                    {data + "/onnx/every-op.cfg", 0},
                                    {data + "/onnx/yolov7-tiny-like.cfg", 0}})
        QTest::newRow(qPrintable(QFileInfo(cfg).fileName())) << cfg << size;
}

// An inference-only net holds a fraction of the outputs (yolov3-tiny: 10 of 31 MB), and the outputs
// it keeps (heads, the output layer) equal those of a net that keeps everything, bit for bit: no layer
// may rely on its output buffer starting at zero or on another layer's output staying put.
void TestRuntime::inferenceOnlyNetSharesBuffersAndGivesTheSameHeads()
{
    QFETCH(QString, cfg);
    QFETCH(int, size);
    cfg::Document document = cfg::Document::load(cfg.toStdString());
    if (size > 0) {
        document.section(0).set("width", std::to_string(size));
        document.section(0).set("height", std::to_string(size));
    }
    const NetworkSpec spec = buildNetworkSpec(document);
    QVERIFY2(spec.ok(), test::allText(spec.diagnostics).c_str());
    if (test::tooLargeForSanitizers(spec.totalParams))
        QSKIP(test::kLargeUnderSanitizers);
    if (size > 0)
        QCOMPARE(spec.input, Shape::image(size, size, 3));
    std::string error;
    auto everything = Net::create(spec, 1, error);
    auto lean = Net::create(spec, 1, error, Net::Use::InferenceOnly);
    QVERIFY2(everything && lean, error.c_str());
    everything->initialize(5);
    lean->initialize(5);
    QCOMPARE(lean->activationBytes(), std::size_t(spec.inferenceMemoryBytes));
    QCOMPARE(everything->activationBytes(), std::size_t(spec.totalMemoryBytes));
    QVERIFY(lean->activationBytes() < everything->activationBytes());
    std::vector<float> input(std::size_t(spec.input.size));
    std::mt19937 random(2);
    int compared = 0;
    for (int pass = 0; pass < 2; ++pass) { // the second pass finds the buffers full of the first's values
        for (float& v : input)
            v = uniformFloat(random, 0, 1);
        everything->forward(input.data());
        lean->forward(input.data());
        for (int i = 0; i < int(spec.layers.size()); ++i) {
            if (!lean->outputKept(i))
                continue;
            const auto a = everything->output(i).span(), b = lean->output(i).span();
            QVERIFY2(std::equal(a.begin(), a.end(), b.begin(), b.end()),
                     qPrintable(QString("layer %1").arg(i)));
            ++compared;
        }
    }
    QVERIFY(compared >= 2);
    QVERIFY(lean->setTraining(true).value_or("").find("inference only") != std::string::npos);
}

void TestRuntime::parameterStoreIsTheWeightsFileLayout_data()
{
    QTest::addColumn<QString>("cfg");
    QTest::addColumn<bool>("resizable"); // fully convolutional: multi-scale rebuilds its layers
    QTest::newRow("yolov4-tiny") << QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/yolov4-tiny.cfg" << true;
    QTest::newRow("shapes-tiny") << QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg" << true;
    QTest::newRow("rnn (nested blocks)") << QString(DARKNET_CFG_DIR) + "/rnn.cfg" << false;
    QTest::newRow("resnet18 (flipped, shortcut)") << QString(DARKNET_CFG_DIR) + "/resnet18.cfg" << false;
}

// The ParameterStore: every layer's arrays are consecutive views of one buffer in .weights order, so the
// buffer is byte for byte a .weights file's payload; training adds one gradient buffer holding every
// trained array's gradient; a rebuild for another input size (multi-scale) keeps both.
void TestRuntime::parameterStoreIsTheWeightsFileLayout()
{
    QFETCH(QString, cfg);
    QFETCH(bool, resizable);
    auto net = makeNet(cfg.toStdString());
    QVERIFY(net);
    net->initialize(11);
    const std::span<float> values = net->parameterValues();
    std::size_t at = 0;
    for (const WeightArray& array : net->weightArrays()) {
        QVERIFY2(array.data->data() == values.data() + at, array.name);
        QCOMPARE(array.data->ownedBytes(), std::size_t(0)); // freed (every parameter was held twice)
        at += array.data->size();
    }
    QCOMPARE(at, values.size());

    QTemporaryDir dir;
    const std::string path = dir.filePath("net.weights").toStdString();
    QVERIFY(!net->saveWeights(path));
    const QByteArray file = test::readAll(QString::fromStdString(path));
    const std::size_t header = net->weightsHeader().bytes();
    QCOMPARE(std::size_t(file.size()), header + values.size() * sizeof(float));
    QVERIFY(std::memcmp(file.constData() + header, values.data(), values.size() * sizeof(float)) == 0);

    if (auto problem = net->setTraining(true))
        QSKIP(problem->c_str());
    const std::span<float> gradients = net->parameterGradients();
    std::size_t expected = 0;
    for (const auto& layer : net->trainableParameters())
        for (const Parameter& p : layer.parameters) {
            QVERIFY(p.gradient->data() == gradients.data() + expected);
            QCOMPARE(p.gradient->ownedBytes(), std::size_t(0));
            QCOMPARE(p.gradient->size(), p.values->size());
            expected += p.gradient->size();
        }
    QCOMPARE(expected, gradients.size());
    QVERIFY(expected > 0);

    if (!resizable)
        return;
    const Shape in = net->inputShape();
    const std::vector<float> before(values.begin(), values.end());
    const auto problem = net->resizeInput(in.w + 32, in.h + 32);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    QVERIFY(net->parameterValues().data() == values.data());
    at = 0;
    for (const WeightArray& array : net->weightArrays()) {
        QVERIFY(array.data->data() == values.data() + at);
        at += array.data->size();
    }
    QVERIFY(std::equal(before.begin(), before.end(), values.begin()));
    expected = 0;
    for (const auto& layer : net->trainableParameters())
        for (const Parameter& p : layer.parameters) {
            QVERIFY(p.gradient->data() == net->parameterGradients().data() + expected);
            expected += p.gradient->size();
        }
    QCOMPARE(expected, net->parameterGradients().size());
}

QTEST_GUILESS_MAIN(TestRuntime)
#include "test_runtime.moc"

// AlexeyAB's [reorg3d] (its reorg_cpu over the output's dims): output channel k = dy·2 + dx holds the
// input's pixels (2y + dy, 2x + dx) of each channel — by hand on a 4×4 input of 2 channels.
void TestRuntime::reorg3dIsATrueSpaceToDepth()
{
    std::string error;
    auto net = Net::create(test::specFromText("[net]\nwidth=4\nheight=4\nchannels=2\n[reorg3d]\nstride=2\n"),
                           1, error, Net::Use::InferenceOnly);
    QVERIFY2(net, error.c_str());
    std::vector<float> input(32);
    for (std::size_t i = 0; i < input.size(); ++i)
        input[i] = float(i); // channel c, row y, column x at c·16 + y·4 + x
    const Tensor& out = net->forward(input.data());
    QCOMPARE(out.shape().c, 8);
    // reorg_cpu deals the output channel k = offset·C + c (C = 2 input channels): offset = dy·2 + dx.
    for (int offset = 0; offset < 4; ++offset)
        for (int c = 0; c < 2; ++c)
            for (int y = 0; y < 2; ++y)
                for (int x = 0; x < 2; ++x) {
                    const int k = offset * 2 + c;
                    const float expected = float(c * 16 + (2 * y + offset / 2) * 4 + 2 * x + offset % 2);
                    QCOMPARE(out.data()[k * 4 + y * 2 + x], expected);
                }
}
