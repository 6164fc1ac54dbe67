// Training: learning-rate policies and Darknet's SGD by hand, IDX data sets, resume equal to a straight
// run, damaged checkpoints refused, and a short real run on Fashion-MNIST whose loss falls.
#include "data/class_names.h"
#include "data/data_file.h"
#include "data/dataset.h"
#include "data/image_list_file.h"
#include "data/training_data.h"
#include "report/training_chart.h"
#include "test_support.h"
#include "train/checkpoint.h"
#include "train/class_results_file.h"
#include "train/lr_policy.h"
#include "train/metrics_log.h"
#include "train/run_folder_lock.h"
#include "train/sgd.h"
#include "train/trainer.h"
#include "util/atomic_file.h"
#include "util/text_columns.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <opencv2/imgcodecs.hpp>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <zlib.h>

using namespace nw;

namespace {

using test::kToyCfg;
using test::writeIdx;
using test::writeToySet;

// The toy classifier; with `adam`, trained by Adam at a rate that suits it.
std::unique_ptr<Net> toyNet(bool adam = false)
{
    std::string cfg = kToyCfg;
    if (adam)
        cfg.insert(cfg.find("[net]\n") + 6, "adam=1\nlearning_rate=0.003\n");
    const NetworkSpec spec = test::specFromText(cfg, "toy.cfg");
    std::string error;
    auto net = Net::create(spec, spec.net.layerBatch(), error);
    if (net)
        net->initialize(4);
    return net;
}

// Throws what a device throws mid-run (GpuError is a runtime_error) at the start of iteration `at`.
class FailsAt : public TrainObserver {
public:
    explicit FailsAt(int at) : at_(at) {}
    void iteration(const IterationStats& s) override { done_ = s.iteration; }
    bool stopRequested() override
    {
        if (done_ + 1 == at_)
            throw std::runtime_error("out of GPU memory in allocating GPU memory");
        return false;
    }

private:
    int at_, done_ = 0;
};

// The toy set of 40 images in `dir` (written there), and options naming its runs "toy".
std::unique_ptr<ClassificationDataset> toySet(const QTemporaryDir& dir)
{
    writeToySet(dir.path(), 40);
    std::string error;
    auto set = loadIdxDataset(dir.filePath("toy-images.gz").toStdString(),
                              dir.filePath("toy-labels").toStdString(), 3, error);
    if (!set)
        qWarning("toy set: %s", error.c_str());
    return set;
}

TrainOptions toyOptions(const QString& outDir = {})
{
    TrainOptions options;
    options.name = "toy";
    options.outDir = outDir.toStdString();
    return options;
}

class Quiet : public TrainObserver {
public:
    std::vector<IterationStats> seen;
    std::vector<std::string> messages;
    int stopAfter = -1;
    void iteration(const IterationStats& s) override { seen.push_back(s); }
    void message(const std::string& text) override { messages.push_back(text); }
    bool stopRequested() override { return stopAfter >= 0 && int(seen.size()) >= stopAfter; }
    bool stopPending() override { return stopRequested(); }
};

// From iteration `from` (after its writes) a folder takes `file`'s place, until iteration `until` (0: to
// the end): writing the file fails there as on a full disk, even as root.
class Blocking : public Quiet {
public:
    Blocking(QString file, int from, int until = 0) : file_(std::move(file)), from_(from), until_(until) {}
    void iteration(const IterationStats& s) override
    {
        Quiet::iteration(s);
        if (s.iteration == from_) {
            QFile::remove(file_);
            QDir().mkpath(file_ + "/blocker");
        }
        if (s.iteration == until_)
            QDir(file_).removeRecursively();
    }

private:
    QString file_;
    int from_, until_;
};

// writeToySet's images in `dir`, loaded; nullptr on failure.
std::unique_ptr<ClassificationDataset> toySet(const QTemporaryDir& dir, int count)
{
    writeToySet(dir.path(), count);
    std::string error;
    return loadIdxDataset(dir.filePath("toy-images.gz").toStdString(),
                          dir.filePath("toy-labels").toStdString(), 3, error);
}

// A classification set of one image (`pixels`, class "cat") in `dir`, as a 16×16 network with
// `channels` reads it through `augmentation` (seed 3); nullptr on failure.
std::unique_ptr<ClassificationDataset> oneImageSet(const QTemporaryDir& dir, const cv::Mat& pixels,
                                                   int channels, const Augmentation& augmentation)
{
    QDir(dir.path()).mkpath("cat");
    const QString image = dir.filePath("cat/0.png");
    QFile list(dir.filePath("list.txt")), labels(dir.filePath("labels.txt"));
    if (!cv::imwrite(image.toStdString(), pixels) || !list.open(QIODevice::WriteOnly) ||
        !labels.open(QIODevice::WriteOnly))
        return nullptr;
    list.write(image.toUtf8() + "\n");
    labels.write("cat\n");
    list.close();
    labels.close();
    std::string error;
    std::vector<std::string> warnings;
    return loadImageListDataset(list.fileName().toStdString(), labels.fileName().toStdString(), 1, 16, 16,
                                channels, augmentation, 3, error, warnings);
}

TrainOptions toyOptions(const QTemporaryDir& dir)
{
    TrainOptions options;
    options.name = "toy";
    options.outDir = dir.filePath("out").toStdString();
    return options;
}

std::vector<float> allWeights(Net& net)
{
    std::vector<float> values;
    for (const WeightArray& array : net.weightArrays())
        values.insert(values.end(), array.data->begin(), array.data->end());
    return values;
}

} // namespace

class TestTraining : public QObject {
    Q_OBJECT
private slots:
    void backupIsBesideTheDataOrInTheWorkingFolder();
    void trainingCountsItsCopiesBeforeAllocating();
    void learningRatePoliciesByHand();
    void twoRunsAreTheSameToTheBit();
    void aNetworkThatCannotLearnIsRefusedByName();
    void leftTemporariesAreRemoved();
    void checkpointedNetPredictsAsTheSavedOne();
    void sgdUpdateByHand();
    void idxFilesAreReadAndCheckedWithClearErrors();
    void resumeContinuesTheSameRun_data();
    void resumeContinuesTheSameRun();
    void bestWeightsAreTheBestValidation();
    void snapshotsAreKeptAndSetAside();
    void classResultsAreKeptInTheRunFolder();
    void classResultsFilesRoundTripAndRefuseDamage();
    void twoNetworksInOneFolderKeepTheirCurves();
    void damagedCheckpointIsRefused();
    void oneRunPerOutputFolder();
    void freshRunSetsThePreviousRunAside();
    void learningRateScheduleCountsIterations();
    void scheduleFollowsTheRunsLength();
    void aStopEndsAValidationUnderWay();
    void aResumeGoesOnWithTheRunsSeed();
    void aResumeGoesOnAtTheRunsLearningRate();
    void aResumeGoesOnToTheRunsLength();
    void aResumeOfAnEditedCfgKeepsTheEarlierOne();
    void dataThatVanishesKeepsTheIterationsDone();
    void aDeletedRunFolderIsMadeAgainOrLetGo();
    void scheduleKeysAreChecked();
    void resumeBringsTheWeightsFileBackToTheState();
    void resumingPastTheEndChangesNoFile();
    void freshRunOfAnotherCfgSaysWhatItMoved();
    void lossFallsOnFashionMnist();
    void trainCommandWritesMetricsAndWeights();
    void aStopIsNotHeldByAStdoutNobodyReads();
    void chartIsDrawnFromMetrics();
    void imageListsAsDarknetReadsThem();
    void angleRotatesTrainingImages();
    void aspectBelowOneStretchesTheWidth();
    void exposureLiftsTheOtherChannelsAsDarknets();
    void classifierListsSayWhatTheyLeaveOut();
    void accuracyCountsTiesAndNanAsDarknet();
    void chosenClassIsTopOne();
    void binaryClassifierConfusionCountsItsNegatives();
    void largeConfusionKeepsEachClassesFigures();
    void classNamesFitTheirColumns();
    void validationImagesOfAnotherSizeAreRefused();
    void failureMidRunEndsInWordsWithTheCheckpointKept();
    void metricsRowsWaitOutASpellWithoutRoom();
    void aCheckpointThatCannotBeWrittenIsTriedAgain();
    void bestWeightsThatCannotBeWrittenAreAWarning();
};

// A run killed mid-checkpoint leaves net_last.state.tmp-PID-N, a whole checkpoint's size; the next run
// (holding the folder's lock) deletes those and only those (they piled up: only a process of the same
// pid removed one). writeFileAtomically names the folder only when it is missing.
void TestTraining::leftTemporariesAreRemoved()
{
    QTemporaryDir dir;
    const QString state = dir.filePath("net_last.state");
    for (const char* name : {"net_last.state.tmp-4120-7", "net_last.state.tmp-1-0", "net_last.state.tmp-12",
                             "net_last.state.tmp-12-x", "net_last.state", "other.state.tmp-4120-7"})
        test::writeFile(dir.filePath(name), "x");
    QCOMPARE(removeLeftTemporaries(state.toStdString()), 2);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files, QDir::Name),
             (QStringList{"net_last.state", "net_last.state.tmp-12", "net_last.state.tmp-12-x",
                          "other.state.tmp-4120-7"}));
    const auto missing = writeFileAtomically(dir.filePath("none/x.weights").toStdString(), "x");
    QVERIFY(missing && missing->find("the folder " + dir.filePath("none").toStdString() +
                                     " does not exist") != std::string::npos);
    const auto refused = writeFileAtomically("/proc/version", "x");
    QVERIFY(refused && refused->find("does not exist") == std::string::npos);
    // A pipe (or a device: as root a rename replaced /dev/full with a file) is written into, never
    // replaced, also through a link; one nobody reads is refused at once, not waited on; a folder named.
    const std::string fifo = dir.filePath("pipe").toStdString(), link = dir.filePath("out.cfg").toStdString();
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    QVERIFY(QFile::link(QString::fromStdString(fifo), QString::fromStdString(link)));
    const auto unread = writeFileAtomically(link, "[net]\n");
    QVERIFY(unread && unread->find("a pipe that no program is reading") != std::string::npos);
    struct stat after {};
    QVERIFY(::stat(fifo.c_str(), &after) == 0 && S_ISFIFO(after.st_mode));
    QVERIFY(QDir(dir.path()).entryList({"pipe.tmp-*"}, QDir::System | QDir::Files).isEmpty());
    const auto folder = writeFileAtomically(dir.path().toStdString(), "x");
    QVERIFY(folder && folder->ends_with(": it is a folder; name a file in it"));
    // /dev/stdout redirected to a file (`>> all.cfg`): written through the descriptor, appended; resolved,
    // the file was replaced (what it held lost, the shell's descriptor left on an unlinked file).
    const QString all = dir.filePath("all.cfg");
    test::writeFile(all, "# earlier\n");
    std::fflush(stdout);
    const int appended = ::open(all.toLocal8Bit().constData(), O_WRONLY | O_APPEND);
    const int savedStdout = ::dup(1);
    QVERIFY(appended >= 0 && savedStdout >= 0);
    ::dup2(appended, 1);
    const auto throughStdout = writeFileAtomically("/dev/stdout", "[net]\n");
    ::dup2(savedStdout, 1);
    ::close(savedStdout);
    ::close(appended);
    QVERIFY(!throughStdout);
    QCOMPARE(test::readAll(all), QByteArray("# earlier\n[net]\n"));
}

void TestTraining::learningRatePoliciesByHand()
{
    NetConfig n;
    n.learningRate = 0.1f;
    QCOMPARE(learningRate(n, 50), 0.1f);
    n.policy = "steps";
    n.steps = {10, 20};
    n.scales = {0.5f, 0.1f};
    QCOMPARE(learningRate(n, 9), 0.1f);
    QCOMPARE(learningRate(n, 10), 0.05f);
    QVERIFY(std::fabs(learningRate(n, 25) - 0.005f) < 1e-9f);
    n.policy = "step";
    n.step = 10;
    n.scale = 0.5f;
    QCOMPARE(learningRate(n, 25), 0.025f); // 0.1 · 0.5^2
    n.policy = "exp";
    n.gamma = 0.9f;
    QVERIFY(std::fabs(learningRate(n, 2) - 0.081f) < 1e-7f);
    n.policy = "poly";
    n.power = 2;
    n.maxBatches = 100;
    QVERIFY(std::fabs(learningRate(n, 50) - 0.025f) < 1e-7f); // 0.1 · (1 − 0.5)^2
    n.policy = "sigmoid";
    n.gamma = 1;
    n.step = 10;
    QVERIFY(std::fabs(learningRate(n, 10) - 0.05f) < 1e-7f);
    n.policy = "constant";
    n.burnIn = 100;
    n.power = 4;
    QVERIFY(std::fabs(learningRate(n, 50) - 0.1f * 0.0625f) < 1e-8f); // burn-in: (50/100)^4
    n.burnIn = 0;
    n.policy = "sgdr";
    n.learningRateMin = 0;
    n.sgdrCycle = 10;
    n.sgdrMult = 2;
    QVERIFY(std::fabs(learningRate(n, 5) - 0.05f) < 1e-7f);  // half-way down the first cosine
    QVERIFY(std::fabs(learningRate(n, 20) - 0.05f) < 1e-7f); // half-way down the second (10 + 20/2)
}

void TestTraining::sgdUpdateByHand()
{
    ParamArray w(1, 1.0f), g(1, 0.5f), bias(1, 0.0f), biasGradient(1, 1.0f);
    std::vector<Net::LayerParameters> layers = {{0, 1.0f, {{&w, &g, true}, {&bias, &biasGradient, false}}}};
    SgdSolver sgd(0.9f, 0.1f);
    sgd.step(layers, 0.1f, 2);
    // v = 0.5 − 0.1·2·1 = 0.3; w = 1 + (0.1/2)·0.3; then v = 0.27. Biases: no decay.
    QCOMPARE(w[0], 1.015f);
    QCOMPARE(bias[0], 0.05f);
    QCOMPARE(g[0], 0.0f);
    sgd.step(layers, 0.1f, 2);
    // v = 0.27 − 0.2·1.015 = 0.067; w = 1.015 + 0.05·0.067
    QVERIFY(std::fabs(w[0] - 1.01835f) < 1e-6f);
    QVERIFY(std::fabs(bias[0] - (0.05f + 0.05f * 0.9f)) < 1e-7f);
    // A run that used Adam (adam=1) resumed with SGD: Adam's state (m and v per array, its step count)
    // is not taken for velocities — the first step is the one from zero again (it took m as v).
    w[0] = 1.0f, g[0] = 0.5f, bias[0] = 0.0f, biasGradient[0] = 1.0f;
    sgd.state() = {{7.0f}, {7.0f}, {9.0f}, {9.0f}, {3.0f}};
    sgd.step(layers, 0.1f, 2);
    QCOMPARE(w[0], 1.015f);
    QCOMPARE(bias[0], 0.05f);
}

void TestTraining::idxFilesAreReadAndCheckedWithClearErrors()
{
    QTemporaryDir dir;
    writeToySet(dir.path(), 30);
    std::string error;
    auto set = loadIdxDataset(dir.filePath("toy-images.gz").toStdString(),
                              dir.filePath("toy-labels").toStdString(), 3, error);
    QVERIFY2(set, error.c_str());
    QCOMPARE(set->size(), std::size_t(30));
    QCOMPARE(set->width(), 6);
    QCOMPARE(set->label(4), 1);
    std::vector<float> pixels(36);
    QVERIFY(set->image(0, pixels.data(), error));
    QVERIFY(*std::max_element(pixels.begin(), pixels.end()) <= 1.0f);
    QVERIFY(pixels[0] >= 150.0f / 255.0f); // class 0: top-left quadrant is bright

    QVERIFY(!loadIdxDataset(dir.filePath("toy-labels").toStdString(),
                            dir.filePath("toy-labels").toStdString(), 3, error));
    QVERIFY(error.find("not an IDX image file") != std::string::npos);
    // A named pipe nothing writes to reads as empty (gzopen waited on it for ever, past Ctrl+C).
    const std::string fifo = dir.filePath("pipe.gz").toStdString();
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    QVERIFY(!loadIdxDataset(fifo, dir.filePath("toy-labels").toStdString(), 3, error));
    QCOMPARE(error, fifo + ": empty, not an IDX image file (expected magic 0x00000803)");
    QVERIFY(!loadIdxDataset(dir.filePath("toy-images.gz").toStdString(),
                            dir.filePath("toy-labels").toStdString(), 2, error));
    QVERIFY2(error.find("label 2 but the .data file says classes=2") != std::string::npos, error.c_str());
    writeIdx(dir.filePath("short"), 0x803, {10, 6, 6}, std::vector<unsigned char>(100), false);
    QVERIFY(!loadIdxDataset(dir.filePath("short").toStdString(), dir.filePath("toy-labels").toStdString(), 3,
                            error));
    QVERIFY(error.find("promises 10 images of 6x6 but the file holds 100 pixel bytes") != std::string::npos);
    // Headers the fuzzer (fuzz_idx) found: 16 images of 2^30 x 2^30 in an empty file (the size check
    // wrapped around to 0), and sides read as negative ints. Refused before any product.
    for (const auto& [rows, columns] :
         {std::pair{1u << 30, 1u << 30}, std::pair{0xED000000u, 0u}, std::pair{0xFFFFFFFFu, 0xFFFFFFF0u}}) {
        writeIdx(dir.filePath("hostile"), 0x803, {16, rows, columns}, {}, false);
        QVERIFY(!loadIdxDataset(dir.filePath("hostile").toStdString(),
                                dir.filePath("toy-labels").toStdString(), 3, error));
        QVERIFY2(error.find("the header gives images of " + std::to_string(rows) + "x" +
                            std::to_string(columns) + " pixels; sides must be between 1 and 65536") !=
                     std::string::npos,
                 error.c_str());
    }
    QVERIFY(!loadIdxDataset(dir.filePath("missing").toStdString(), dir.filePath("toy-labels").toStdString(),
                            3, error));
    QVERIFY(error.find("missing: cannot open") != std::string::npos);
}

void TestTraining::resumeContinuesTheSameRun_data()
{
    QTest::addColumn<bool>("adam");
    QTest::newRow("sgd") << false;
    QTest::newRow("adam (m, v and t in the checkpoint)") << true;
}

void TestTraining::resumeContinuesTheSameRun()
{
    QFETCH(bool, adam);
    QTemporaryDir dir;
    const auto set = toySet(dir);
    QVERIFY(set);
    TrainOptions options = toyOptions();
    options.checkpointEvery = 3;

    auto straight = toyNet(adam);
    options.outDir = dir.filePath("straight").toStdString();
    Quiet all;
    QVERIFY(!Trainer(*straight, *set, nullptr, options).run(all));
    QCOMPARE(all.seen.size(), std::size_t(12));
    QVERIFY(all.seen.back().averageLoss < all.seen.front().averageLoss);

    options.outDir = dir.filePath("resumed").toStdString();
    auto first = toyNet(adam);
    Quiet half;
    half.stopAfter = 6; // like Ctrl+C after iteration 6: the stop writes a checkpoint
    QVERIFY(!Trainer(*first, *set, nullptr, options).run(half));
    QCOMPARE(half.seen.size(), std::size_t(6));
    auto second = toyNet(adam); // a new process: fresh net, state from the checkpoint
    options.resume = true;
    Quiet rest;
    const auto problem = Trainer(*second, *set, nullptr, options).run(rest);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    QCOMPARE(rest.seen.front().iteration, 7);
    QCOMPARE(second->seen(), straight->seen());
    // The resumed run is the straight one to the bit: weights, momentum, seen, data order and the
    // per-sample random draws all come back from the checkpoint.
    QVERIFY(allWeights(*straight) == allWeights(*second));
    QCOMPARE(rest.seen.back().loss, all.seen.back().loss);
    // metrics.csv holds each iteration once, resumed or not.
    const QStringList rows =
        QString(test::readAll(dir.filePath("resumed/metrics.csv"))).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 1 + 12);
    QCOMPARE(rows[0], QString("iteration,loss,avg_loss,lr,images_per_sec,elapsed_s,valid_top1,map50"));
    QVERIFY(rows[7].startsWith("7,"));

    // A resume on other data than the run trained on is said (it goes on, as asked).
    options.outDir = dir.filePath("data").toStdString();
    options.resume = false;
    options.data = "/projects/a/obj.data";
    options.cfgText = kToyCfg; // the network as trained, kept beside its weights
    auto onA = toyNet(adam);
    Quiet firstPart;
    firstPart.stopAfter = 2;
    QVERIFY(!Trainer(*onA, *set, nullptr, options).run(firstPart));
    QCOMPARE(test::readAll(dir.filePath("data/toy_data.txt")), QByteArray("/projects/a/obj.data\n"));
    QCOMPARE(test::readAll(dir.filePath("data/toy_trained.cfg")), QByteArray(kToyCfg));
    // Resumed with the network edited since (the studio trains unsaved edits): the error names the cfg
    // the checkpoint fits, and the way to start afresh.
    {
        std::string edited = kToyCfg;
        edited.replace(edited.find("filters=4"), 9, "filters=5");
        const NetworkSpec spec = test::specFromText(edited, "toy.cfg");
        std::string error;
        auto other = Net::create(spec, spec.net.layerBatch(), error);
        QVERIFY2(other, error.c_str());
        TrainOptions editedOptions = options;
        editedOptions.resume = true;
        editedOptions.cfgText = edited;
        Quiet refused;
        const auto mismatch = Trainer(*other, *set, nullptr, editedOptions).run(refused);
        QVERIFY(mismatch);
        QVERIFY2(
            mismatch->find("? The run trained " + dir.filePath("data/toy_trained.cfg").toStdString() +
                           ", the network as it was then: to resume, put it back in place of toy.cfg; or "
                           "start a fresh run of this one") != std::string::npos,
            mismatch->c_str());
    }
    options.resume = true;
    options.data = "/projects/b/obj.data";
    auto onB = toyNet(adam);
    Quiet secondPart;
    QVERIFY(!Trainer(*onB, *set, nullptr, options).run(secondPart));
    QVERIFY(
        std::find(secondPart.messages.begin(), secondPart.messages.end(),
                  "note: this run trained on /projects/a/obj.data and resumes on /projects/b/obj.data: the "
                  "checkpoint goes on learning from other data (give each data set its own output folder to "
                  "keep their runs apart)") != secondPart.messages.end());
}

// _best.weights (Darknet's, under -map) holds the weights of the best validation so far: loaded, they
// score that figure again; a resumed run replaces them only with a better one than before its stop.
void TestTraining::bestWeightsAreTheBestValidation()
{
    QTemporaryDir dir;
    const auto set = toySet(dir);
    QVERIFY(set);
    TrainOptions options = toyOptions(dir.filePath("run"));
    options.validEvery = 1;
    // A part of the run (the first six iterations, then the resumed rest): the messages say each
    // figure better than every one before, and _best.weights scores the best of them again.
    double best = -1;
    const auto checkPart = [&](int stopAfter) {
        auto net = toyNet();
        Quiet observer;
        observer.stopAfter = stopAfter;
        QVERIFY(!Trainer(*net, *set, set.get(), options).run(observer));
        long improvements = 0;
        for (const IterationStats& s : observer.seen) {
            // Each validation comes with its confusion matrix, whose diagonal is its top-1.
            QCOMPARE(bool(s.confusion), s.validTop1.has_value());
            if (s.confusion) {
                std::size_t right = 0;
                for (int c = 0; c < s.confusion->classes(); ++c)
                    right += s.confusion->count(c, c);
                QCOMPARE(s.confusion->images(), set->size());
                QCOMPARE(double(right) / double(set->size()), *s.validTop1);
            }
            if (s.validTop1 && *s.validTop1 > best) {
                best = *s.validTop1;
                ++improvements;
            }
        }
        QCOMPARE(std::count_if(observer.messages.begin(), observer.messages.end(),
                               [](const std::string& m) { return m.starts_with("best top-1 so far"); }),
                 improvements);
        auto loaded = toyNet();
        QVERIFY(!loaded->loadWeights(options.outDir + "/toy_best.weights"));
        QCOMPARE(evaluate(*loaded, *set).top1, best);
    };
    checkPart(6);
    options.resume = true;
    checkPart(-1); // (no message for a figure no better than one before the stop)
}

// Darknet's backups to go back to, <cfg>_<N>.weights every N iterations (AlexeyAB's rule by default:
// every 1000 under 10000 iterations); a fresh run sets them aside with the rest of the earlier run.
void TestTraining::snapshotsAreKeptAndSetAside()
{
    QTemporaryDir dir;
    const auto set = toySet(dir);
    QVERIFY(set);
    TrainOptions options = toyOptions(dir.filePath("run"));
    options.snapshotEvery = 4;
    Quiet quiet;
    QVERIFY(!Trainer(*toyNet(), *set, nullptr, options).run(quiet));
    const QDir run(dir.filePath("run"));
    QCOMPARE(run.entryList({"toy_?.weights", "toy_??.weights"}, QDir::Files, QDir::Name),
             QStringList({"toy_12.weights", "toy_4.weights", "toy_8.weights"}));
    QCOMPARE(test::readAll(run.filePath("toy_12.weights")), test::readAll(run.filePath("toy_final.weights")));
    QVERIFY(test::readAll(run.filePath("toy_4.weights")) != test::readAll(run.filePath("toy_8.weights")));

    options.snapshotEvery = -1; // Darknet's rule: none in a 12-iteration run
    Quiet again;
    QVERIFY(!Trainer(*toyNet(), *set, nullptr, options).run(again));
    QVERIFY(run.entryList({"toy_?.weights", "toy_??.weights"}, QDir::Files).isEmpty());
    const QStringList aside = run.entryList({"previous-*"}, QDir::Dirs);
    QCOMPARE(aside.size(), 1);
    QCOMPARE(
        QDir(run.filePath(aside.first())).entryList({"toy_?.weights", "toy_??.weights"}, QDir::Files).size(),
        3);
}

// The last validation's confusion matrix is kept as <name>_classes.json, with the .data's names, so the
// studio shows it again after a restart; a fresh run sets it aside with the rest of the earlier run.
void TestTraining::classResultsAreKeptInTheRunFolder()
{
    QTemporaryDir dir;
    const auto set = toySet(dir);
    QVERIFY(set);
    test::writeFile(dir.filePath("toy.names"), "left top\nright top\nleft bottom\n");
    test::writeFile(dir.filePath("toy.data"), test::readAll(dir.filePath("toy.data")) + "names=toy.names\n");
    TrainOptions options = toyOptions(dir.filePath("run"));
    options.data = dir.filePath("toy.data").toStdString();
    options.maxBatches = 5;
    options.validEvery = 2; // at 2, 4 and the last, 5
    Quiet quiet;
    QVERIFY(!Trainer(*toyNet(), *set, set.get(), options).run(quiet));
    const std::string path = classResultsPath(options.outDir, "toy");
    QCOMPARE(QString::fromStdString(path), dir.filePath("run/toy_classes.json"));
    std::string error;
    const auto kept = loadClassResults(path, error);
    QVERIFY2(kept, error.c_str());
    QCOMPARE(kept->iteration, 5);
    QCOMPARE(kept->names, std::vector<std::string>({"left top", "right top", "left bottom"}));
    QVERIFY(kept->confusion && !kept->classAps);
    const ConfusionMatrix& last = *quiet.seen.back().confusion;
    QCOMPARE(kept->confusion->classes(), 3);
    for (int t = 0; t < 3; ++t)
        for (int c = 0; c < 3; ++c)
            QCOMPARE(kept->confusion->count(t, c), last.count(t, c));
    QCOMPARE(kept->confusion->images(), set->size());
    // A fresh run without validation: the earlier run's figures go aside with its weights.
    options.validEvery = 0;
    options.maxBatches = 1;
    const auto net = toyNet();
    Quiet again;
    QVERIFY(!Trainer(*net, *set, nullptr, options).run(again));
    QVERIFY(!QFile::exists(QString::fromStdString(path)));
    const QStringList aside = QDir(dir.filePath("run")).entryList({"previous-*"}, QDir::Dirs);
    QCOMPARE(aside.size(), 1);
    QVERIFY(QFile::exists(dir.filePath("run/" + aside.first() + "/toy_classes.json")));
}

// A detector's AP per class and a classifier's matrix (NaN answers too) read back as written; a damaged
// file is refused, naming the file and what is wrong in it.
void TestTraining::classResultsFilesRoundTripAndRefuseDamage()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("net_classes.json").toStdString();
    ClassResults detector;
    detector.iteration = 300;
    detector.names = {"circle", "square"};
    ClassAp circle, square;
    circle.ap50 = 0.875;
    circle.ap50to95 = 0.5;
    circle.truths = 40;
    circle.detections = 51;
    circle.truePositives = 35;
    circle.falsePositives = 16;
    square.truths = 0; // a class without boxes: AP 0, nothing detected
    detector.classAps = std::make_shared<const std::vector<ClassAp>>(std::vector<ClassAp>{circle, square});
    QVERIFY(!saveClassResults(path, detector));
    std::string error;
    const auto aps = loadClassResults(path, error);
    QVERIFY2(aps, error.c_str());
    QCOMPARE(aps->iteration, 300);
    QCOMPARE(aps->names, detector.names);
    QVERIFY(!aps->confusion && aps->classAps && aps->classAps->size() == 2);
    const ClassAp& read = aps->classAps->front();
    QCOMPARE(read.ap50, 0.875);
    QCOMPARE(read.ap50to95, 0.5);
    QCOMPARE(read.truths, 40);
    QCOMPARE(read.detections, 51);
    QCOMPARE(read.truePositives, 35);
    QCOMPARE(read.falsePositives, 16);
    QCOMPARE(aps->classAps->back().truths, 0);

    auto matrix = std::make_shared<ConfusionMatrix>(2);
    matrix->add(0, 0, 7);
    matrix->add(0, 1, 2);
    matrix->add(1, 0, 1);
    matrix->addUndecided(1, 3);
    ClassResults classifier;
    classifier.iteration = 12;
    classifier.confusion = matrix;
    QVERIFY(!saveClassResults(path, classifier));
    const auto cells = loadClassResults(path, error);
    QVERIFY2(cells, error.c_str());
    QVERIFY(cells->names.empty());
    QCOMPARE(cells->confusion->count(0, 1), std::size_t(2));
    QCOMPARE(cells->confusion->count(1, 1), std::size_t(0));
    QCOMPARE(cells->confusion->undecidedOf(1), std::size_t(3));
    QCOMPARE(cells->confusion->images(), std::size_t(13));

    const auto refusal = [&](const QByteArray& text) {
        test::writeFile(QString::fromStdString(path), text);
        std::string why;
        if (loadClassResults(path, why))
            return QString("accepted");
        return QString::fromStdString(why);
    };
    const QString file = QString::fromStdString(path) + ": ";
    QCOMPARE(refusal(R"({"iteration":3,"confusion":[[1,2],[3]]})"),
             file + "row 2 of \"confusion\" has 1 cells, not 2 (not a per-class results file as training "
                    "writes it)");
    QVERIFY(refusal(R"({"iteration":3,"confusion":[[1,-2],[3,4]]})")
                .startsWith(file + "row 1 of \"confusion\": cell 2 is not a count (-2)"));
    QVERIFY(
        refusal(
            R"({"iteration":3,"class_aps":[{"ap50":1.5,"ap50_95":0,"truths":1,"detections":1,"tp":1,"fp":0}]})")
            .startsWith(file + "class 1 of \"class_aps\": \"ap50\" is not a number from 0 to 1"));
    QVERIFY(refusal(R"({"confusion":[[1]]})").startsWith(file + "no \"iteration\""));
    QVERIFY(refusal(R"({"iteration":3})").startsWith(file + "neither \"confusion\" nor \"class_aps\""));
    QVERIFY(refusal("iteration,loss\n1,2\n").startsWith(file + "not a JSON object"));
    QVERIFY(refusal(R"({"iteration":3,"confusion":[[1,2],[3,4]],"undecided":[1]})")
                .startsWith(file + "\"undecided\" is not an array of 2 counts"));
}

// Darknet users train every cfg into one backup/ folder. A second network's fresh run there says that
// the two share metrics.csv; the first one resumed finds that metrics.csv is not its own (the row at its
// checkpoint holds another loss) and takes back its own, which the second run had set aside: its curve
// was spliced onto the other network's.
void TestTraining::twoNetworksInOneFolderKeepTheirCurves()
{
    QTemporaryDir dir;
    const auto set = toySet(dir);
    QVERIFY(set);
    const QString metrics = dir.filePath("run/metrics.csv");
    TrainOptions first = toyOptions(dir.filePath("run"));
    first.name = "first";
    first.maxBatches = 4;
    Quiet quiet;
    QVERIFY(!Trainer(*toyNet(), *set, nullptr, first).run(quiet));
    const QByteArray firstRows = test::readAll(metrics);

    TrainOptions second = toyOptions(dir.filePath("run"));
    second.name = "second";
    second.seed = 7;
    second.maxBatches = 3;
    Quiet other;
    QVERIFY(!Trainer(*toyNet(), *set, nullptr, second).run(other));
    QVERIFY(std::any_of(other.messages.begin(), other.messages.end(), [](const std::string& m) {
        return m.find("also holds another network's run (first_last.state): the two share metrics.csv") !=
               std::string::npos;
    }));
    const QByteArray secondRows = test::readAll(metrics);
    QVERIFY(secondRows != firstRows);

    first.resume = true;
    first.maxBatches = 6;
    Quiet resumed;
    QVERIFY(!Trainer(*toyNet(), *set, nullptr, first).run(resumed));
    QVERIFY(std::any_of(resumed.messages.begin(), resumed.messages.end(), [](const std::string& m) {
        return m.find("metrics.csv is not this run's") != std::string::npos &&
               m.find("this run's own, set aside in") != std::string::npos;
    }));
    const QByteArray rows = test::readAll(metrics);
    QVERIFY2(rows.startsWith(firstRows), rows.constData()); // its own four rows, then 5 and 6
    QCOMPARE(rows.count('\n'), 1 + 6);
    QVERIFY(QFileInfo::exists(dir.filePath("run/metrics-of-another-run.csv")));

    // The second network resumed in turn takes its own back from where the first one's resume put it.
    second.resume = true;
    second.maxBatches = 5;
    Quiet secondResumed;
    QVERIFY(!Trainer(*toyNet(), *set, nullptr, second).run(secondResumed));
    const QByteArray again = test::readAll(metrics);
    QVERIFY2(again.startsWith(secondRows), again.constData()); // its three rows, then 4 and 5
    QCOMPARE(again.count('\n'), 1 + 5);
}

// A net that loads a checkpoint predicts what the saved net predicted, also through layers that keep
// a derived form of their weights (the 16 → 16 3×3 layer runs Winograd on transformed weights, which
// the loading net had already computed from its own initialisation).
void TestTraining::checkpointedNetPredictsAsTheSavedOne()
{
    const std::string cfg = "[net]\nwidth=16\nheight=16\nchannels=3\n\n"
                            "[convolutional]\nfilters=16\nsize=3\npad=1\nactivation=leaky\n\n"
                            "[convolutional]\nfilters=16\nsize=3\npad=1\nactivation=leaky\n\n"
                            "[avgpool]\n\n[softmax]\n";
    std::string error;
    auto saved = Net::create(test::specFromText(cfg, "ckpt.cfg"), 1, error);
    auto loading = Net::create(test::specFromText(cfg, "ckpt.cfg"), 1, error);
    QVERIFY2(saved && loading, error.c_str());
    saved->initialize(1);
    loading->initialize(2);
    std::vector<float> image(16 * 16 * 3);
    for (std::size_t i = 0; i < image.size(); ++i)
        image[i] = float((i * 37) % 101) / 101.0f;
    const std::vector<float> expected(saved->forward(image.data()).span().begin(),
                                      saved->forward(image.data()).span().end());
    const std::vector<float> before(loading->forward(image.data()).span().begin(),
                                    loading->forward(image.data()).span().end());
    QVERIFY(before != expected);
    QTemporaryDir dir;
    const std::string path = dir.filePath("ckpt.state").toStdString();
    QVERIFY(!saveCheckpoint(path, *saved, TrainState{}));
    TrainState state;
    const auto problem = loadCheckpoint(path, *loading, state);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    const Tensor& got = loading->forward(image.data());
    for (std::size_t i = 0; i < expected.size(); ++i)
        QVERIFY2(std::fabs(got.span()[i] - expected[i]) <= 1e-6f,
                 qPrintable(QString("output %1: %2 vs %3").arg(i).arg(got.span()[i]).arg(expected[i])));
}

void TestTraining::damagedCheckpointIsRefused()
{
    QTemporaryDir dir;
    auto net = toyNet();
    TrainState state;
    state.iteration = 5;
    const QString path = dir.filePath("toy_last.state");
    QVERIFY(!saveCheckpoint(path.toStdString(), *net, state));
    const QByteArray good = test::readAll(path);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(good.left(good.size() / 2)); // killed mid-write without the atomic rename
    file.close();
    const auto before = allWeights(*net);
    auto other = toyNet();
    other->initialize(99);
    TrainState loaded;
    const auto problem = loadCheckpoint(path.toStdString(), *other, loaded);
    QVERIFY(problem);
    QVERIFY2(problem->find("the training state is damaged (its checksum does not match)") !=
                 std::string::npos,
             problem->c_str());
    QCOMPARE(loaded.iteration, 0);
    QVERIFY(allWeights(*other) != before); // unchanged: still its own initialisation

    // One flipped bit in the middle (a bad disk, a partial copy) is caught by the checksum too.
    QByteArray flipped = good;
    flipped[flipped.size() / 2] = char(flipped[flipped.size() / 2] ^ 0x10);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(flipped);
    file.close();
    const auto flippedProblem = loadCheckpoint(path.toStdString(), *other, loaded);
    QVERIFY(flippedProblem && flippedProblem->find("checksum does not match") != std::string::npos);
    QVERIFY(allWeights(*other) != before);
    // The intact file loads.
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(good);
    file.close();
    QVERIFY(!loadCheckpoint(path.toStdString(), *other, loaded));
    QCOMPARE(loaded.iteration, 5);
    QVERIFY(allWeights(*other) == before);
    // A state from another cfg (filters 4 → 5) names the layer and array that do not fit (it said
    // "weight array 0").
    std::string wider = kToyCfg;
    wider.replace(wider.find("filters=4"), 9, "filters=5");
    std::string error;
    auto changed = Net::create(test::specFromText(wider, "toy.cfg"), 4, error);
    QVERIFY(changed);
    const auto mismatch = loadCheckpoint(path.toStdString(), *changed, loaded);
    QVERIFY(mismatch);
    QVERIFY2(
        mismatch->find("layer 0 [convolutional] (line 15), array 'biases' holds 4 values in the state but "
                       "5 in the network") != std::string::npos,
        mismatch->c_str());

    // Darknet's backup folder holds _last.weights and no state: --resume says how to go on from them.
    const QString backup = dir.filePath("backup");
    QVERIFY(QDir().mkpath(backup));
    QVERIFY(!net->saveWeights((backup + "/toy_last.weights").toStdString()));
    const auto set = toySet(dir);
    QVERIFY(set);
    TrainOptions options = toyOptions(backup);
    options.resume = true;
    Quiet quiet;
    const auto noState = Trainer(*toyNet(), *set, nullptr, options).run(quiet);
    QVERIFY(noState);
    QVERIFY2(
        noState->find("toy_last.weights is there without its state (Darknet writes no state): train from "
                      "it as starting weights (the WEIGHTS argument, without --resume)") != std::string::npos,
        noState->c_str());
    // Another network's run in the folder: its checkpoint is named (resumed under another cfg's name,
    // it said only "nothing to resume?").
    const QString otherFolder = dir.filePath("otherFolder");
    QVERIFY(QDir().mkpath(otherFolder));
    test::writeFile(otherFolder + "/shapes-tiny_last.state", "x");
    options.outDir = otherFolder.toStdString();
    const auto otherRun = Trainer(*toyNet(), *set, nullptr, options).run(quiet);
    QVERIFY(otherRun);
    QVERIFY2(
        otherRun->find(". " + otherFolder.toStdString() +
                       " holds shapes-tiny_last.state, the run of shapes-tiny.cfg: a checkpoint is named "
                       "after its cfg, so resume it with that cfg") != std::string::npos,
        otherRun->c_str());
}

// A second run into the same folder is refused while the first holds it, naming the holder; the
// lock goes with its holder (here its object; a killed process's lock goes with the process).
void TestTraining::oneRunPerOutputFolder()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 16);
    QVERIFY(set);
    TrainOptions options = toyOptions(dir);
    QVERIFY(QDir().mkpath(dir.filePath("out")));
    auto net = toyNet();
    {
        std::string lockError;
        const RunFolderLock holder(options.outDir, "training other.cfg", lockError);
        QVERIFY2(holder.locked(), lockError.c_str());
        Quiet quiet;
        const auto problem = Trainer(*net, *set, nullptr, options).run(quiet);
        QVERIFY(problem);
        QVERIFY2(problem->find(options.outDir + " is in use by another training run (pid " +
                               std::to_string(QCoreApplication::applicationPid())) != std::string::npos,
                 problem->c_str());
        QVERIFY(problem->find("training other.cfg") != std::string::npos);
        QVERIFY(quiet.seen.empty());
        QVERIFY(!QFileInfo::exists(dir.filePath("out/metrics.csv"))); // nothing of the holder's touched
    }
    Quiet quiet;
    const auto problem = Trainer(*net, *set, nullptr, options).run(quiet);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    QCOMPARE(quiet.seen.size(), std::size_t(12));
}

// Training again into the same folder without resume (the studio's default folder, a repeated command)
// moves the earlier run's checkpoint, weights and metrics aside, byte for byte, instead of overwriting
// them; a folder with none of them starts as before.
void TestTraining::freshRunSetsThePreviousRunAside()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 16);
    QVERIFY(set);
    const TrainOptions options = toyOptions(dir);
    auto net = toyNet();
    Quiet first;
    QVERIFY(!Trainer(*net, *set, nullptr, options).run(first));
    QVERIFY(std::none_of(first.messages.begin(), first.messages.end(),
                         [](const std::string& m) { return m.find("moved to") != std::string::npos; }));
    const QStringList names{"toy_last.weights", "toy_last.state", "toy_final.weights", "metrics.csv"};
    std::map<QString, QByteArray> before;
    for (const QString& name : names)
        before[name] = test::readAll(dir.filePath("out/" + name));

    auto again = toyNet();
    again->initialize(5);
    Quiet second;
    second.stopAfter = 2;
    QVERIFY(!Trainer(*again, *set, nullptr, options).run(second));
    const QStringList aside = QDir(dir.filePath("out")).entryList({"previous-*"}, QDir::Dirs);
    QCOMPARE(aside.size(), 1);
    const auto moved = std::find_if(second.messages.begin(), second.messages.end(), [](const std::string& m) {
        return m.find("run's checkpoint, weights and metrics") != std::string::npos;
    });
    QVERIFY(moved != second.messages.end());
    QVERIFY2(moved->find(aside[0].toStdString()) != std::string::npos, moved->c_str());
    // The first run finished: nothing to continue, so no advice on how to.
    QVERIFY2(moved->starts_with("a fresh run: the previous (finished) run's") &&
                 moved->find("to continue that run") == std::string::npos,
             moved->c_str());
    for (const QString& name : names)
        QVERIFY2(test::readAll(dir.filePath("out/" + aside[0] + "/" + name)) == before[name],
                 qPrintable(name));
    QVERIFY(test::readAll(dir.filePath("out/toy_last.weights")) !=
            before["toy_last.weights"]);                                // the new run's
    QVERIFY(!QFileInfo::exists(dir.filePath("out/toy_final.weights"))); // stopped: no final weights yet

    // Started afresh again and stopped before its first iteration (Resume forgotten, noticed at once):
    // the run it set aside is put back, byte for byte, and nothing else is left behind.
    std::map<QString, QByteArray> secondRun;
    for (const QString name : {"toy_last.weights", "toy_last.state", "metrics.csv"})
        secondRun[name] = test::readAll(dir.filePath("out/" + name));
    auto third = toyNet();
    Quiet atOnce;
    atOnce.stopAfter = 0;
    QVERIFY(!Trainer(*third, *set, nullptr, options).run(atOnce));
    QVERIFY(atOnce.seen.empty());
    QCOMPARE(QDir(dir.filePath("out")).entryList({"previous-*"}, QDir::Dirs), aside);
    for (const auto& [name, bytes] : secondRun)
        QVERIFY2(test::readAll(dir.filePath("out/" + name)) == bytes, qPrintable(name));
    QVERIFY(std::any_of(atOnce.messages.begin(), atOnce.messages.end(), [](const std::string& m) {
        return m.starts_with("stopped in or before the first iteration: the previous run's files are back");
    }));
    // A new folder's run stopped before its first iteration: "nothing was written" holds (a header-only
    // metrics.csv was left).
    TrainOptions intoNew = options;
    intoNew.outDir = dir.filePath("new-out").toStdString();
    auto fresh = toyNet();
    Quiet beforeFirst;
    beforeFirst.stopAfter = 0;
    QVERIFY(!Trainer(*fresh, *set, nullptr, intoNew).run(beforeFirst));
    QVERIFY(std::find(beforeFirst.messages.begin(), beforeFirst.messages.end(),
                      "stopped before the first iteration: nothing was written") !=
            beforeFirst.messages.end());
    QCOMPARE(QDir(dir.filePath("new-out")).entryList(QDir::Files | QDir::Hidden),
             QStringList{".netwright-train.lock"}); // (every run folder keeps its lock file)
    // The studio's way: Pause before the first iteration (a checkpoint wanted), then Stop, in a run that
    // notes its data and cfg. An iteration-0 checkpoint and the notes were left under "nothing was
    // written", and the next fresh run set that stub aside as "the previous run".
    class PausedAtOnce : public Quiet {
    public:
        bool checkpointWanted() override { return true; }
    } paused;
    paused.stopAfter = 0;
    intoNew.outDir = dir.filePath("paused-out").toStdString();
    intoNew.data = dir.filePath("toy.data").toStdString();
    intoNew.cfgText = "[net]\n";
    auto pausedNet = toyNet();
    QVERIFY(!Trainer(*pausedNet, *set, nullptr, intoNew).run(paused));
    QVERIFY(std::ranges::find(paused.messages, "stopped before the first iteration: nothing was written") !=
            paused.messages.end());
    QCOMPARE(QDir(dir.filePath("paused-out")).entryList(QDir::Files | QDir::Hidden),
             QStringList{".netwright-train.lock"});
    // Stopped in its first iteration (Ctrl+C on reading "… were moved to …"): the same (it wrote a
    // checkpoint of that one iteration and left the earlier run aside).
    // Darknet's backup folder (weights, no state, no metrics.csv) and a checkpoint every iteration: what
    // the stopped run wrote goes too (its _last.state stayed, and a resume mixed the two runs).
    QVERIFY(QFile::remove(dir.filePath("out/toy_last.state")) &&
            QFile::remove(dir.filePath("out/metrics.csv")));
    TrainOptions everyIteration = options;
    everyIteration.checkpointEvery = 1;
    auto fifth = toyNet();
    Quiet inFirst;
    inFirst.stopAfter = 1;
    QVERIFY(!Trainer(*fifth, *set, nullptr, everyIteration).run(inFirst));
    QCOMPARE(inFirst.seen.size(), std::size_t(1));
    QCOMPARE(QDir(dir.filePath("out")).entryList({"previous-*"}, QDir::Dirs), aside);
    QCOMPARE(QDir(dir.filePath("out")).entryList(QDir::Files), QStringList{"toy_last.weights"});
    QVERIFY(test::readAll(dir.filePath("out/toy_last.weights")) == secondRun["toy_last.weights"]);
    test::writeFile(dir.filePath("out/toy_last.state"), secondRun["toy_last.state"]);
    test::writeFile(dir.filePath("out/metrics.csv"), secondRun["metrics.csv"]);
    // A fresh run that died before its first checkpoint (kill -9) leaves the last one set aside: a
    // --resume then says where it is.
    for (const QString name : {"toy_last.weights", "toy_last.state", "metrics.csv"})
        QVERIFY(QFile::remove(dir.filePath("out/" + name)));
    TrainOptions resume = options;
    resume.resume = true;
    auto fourth = toyNet();
    Quiet resumed;
    const auto problem = Trainer(*fourth, *set, nullptr, resume).run(resumed);
    QVERIFY(problem);
    QVERIFY2(problem->find("set the last checkpoint aside in " + dir.filePath("out").toStdString() + "/" +
                           aside[0].toStdString() + "/toy_last.state: move " + aside[0].toStdString() +
                           "'s files back") != std::string::npos,
             problem->c_str());
}

// The toy's steps policy halves the rate from iteration 8. A run resumed with twice the batch (or twice
// the ranks) keeps that schedule in iterations, as its end is; a fresh run from weights that trained
// before starts it from zero (their `seen` used to put it past the step at once).
void TestTraining::learningRateScheduleCountsIterations()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 40);
    QVERIFY(set);
    TrainOptions options = toyOptions(dir);
    const auto expected = [](int iteration) { return iteration < 8 ? 0.05f : 0.025f; };

    auto first = toyNet();
    first->setSeen(100000); // as trained weights carry
    Quiet start;
    start.stopAfter = 4;
    QVERIFY(!Trainer(*first, *set, nullptr, options).run(start));
    QCOMPARE(start.seen.front().learningRate, expected(1));
    QCOMPARE(first->seen(), std::uint64_t(4 * 8));
    // Said, since Darknet without -clear would go on from iteration 12500 (100000 images / batch 8).
    QVERIFY(std::find(start.messages.begin(), start.messages.end(),
                      "note: the starting weights have trained on 100000 images (iteration 12500 at this "
                      "batch); this run starts again from iteration 0, burn-in and the learning-rate steps "
                      "included (Darknet's -clear). To continue a run, resume it from its folder (--resume, "
                      "or Resume in the studio)") != start.messages.end());

    std::string cfg = kToyCfg;
    cfg.replace(cfg.find("batch=8"), 7, "batch=16"); // subdivisions=2: passes of 8, twice as many
    const NetworkSpec spec = test::specFromText(cfg, "toy.cfg");
    std::string error;
    auto resumed = Net::create(spec, spec.net.layerBatch(), error);
    QVERIFY2(resumed, error.c_str());
    options.resume = true;
    Quiet rest;
    const auto problem = Trainer(*resumed, *set, nullptr, options).run(rest);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    QCOMPARE(rest.seen.size(), std::size_t(8));
    for (const IterationStats& s : rest.seen)
        QVERIFY2(s.learningRate == expected(s.iteration),
                 qPrintable(QString("iteration %1: rate %2").arg(s.iteration).arg(s.learningRate)));
}

// --max-batches (the studio's Iterations) sets the schedule's length: poly reaches 0 at the run's end.
// It stayed on the cfg's max_batches, so iterations past it trained at a rate of 0.
void TestTraining::scheduleFollowsTheRunsLength()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 40);
    QVERIFY(set);
    const NetworkSpec spec =
        test::specFromText("[net]\nbatch=8\nwidth=6\nheight=6\nchannels=1\nlearning_rate=0.1\n"
                           "policy=poly\npower=1\nmax_batches=4\n\n[connected]\noutput=3\n"
                           "activation=linear\n\n[softmax]\n",
                           "poly.cfg");
    std::string error;
    auto net = Net::create(spec, spec.net.layerBatch(), error);
    QVERIFY2(net, error.c_str());
    net->initialize(4);
    TrainOptions options = toyOptions(dir);
    options.maxBatches = 8;
    Quiet quiet;
    const auto problem = Trainer(*net, *set, nullptr, options).run(quiet);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    QCOMPARE(quiet.seen.size(), std::size_t(8));
    for (const IterationStats& s : quiet.seen) // update k at batch_num k: 0.1 · (1 − k/8)
        QVERIFY2(std::fabs(s.learningRate - 0.1f * (1 - float(s.iteration) / 8)) < 1e-7f,
                 qPrintable(QString("iteration %1: rate %2").arg(s.iteration).arg(s.learningRate)));
}

// A stop asked for while the validation set is scored ends that pass after its batch and then the run,
// its checkpoint written: the whole pass stood between Stop (or quitting the studio) and the end.
void TestTraining::aStopEndsAValidationUnderWay()
{
    class StopsWhileValidating : public Quiet {
    public:
        void message(const std::string& text) override
        {
            Quiet::message(text);
            if (text.starts_with("evaluating at iteration 2"))
                stopAfter = 0; // (asked from now on)
        }
    };
    QTemporaryDir dir;
    const auto set = toySet(dir);
    QVERIFY(set);
    QVERIFY(set->size() > std::size_t(4 * 2)); // several batches of the net's 4 images
    TrainOptions options = toyOptions(dir);
    options.validEvery = 1;
    auto net = toyNet();
    StopsWhileValidating observer;
    const auto problem = Trainer(*net, *set, set.get(), options).run(observer);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    QCOMPARE(observer.seen.size(), std::size_t(2));
    QVERIFY(observer.seen[0].validTop1.has_value());
    QVERIFY(!observer.seen[1].validTop1.has_value());
    QVERIFY(std::find(observer.messages.begin(), observer.messages.end(),
                      "top-1 at iteration 2 left unfinished: a stop was asked") != observer.messages.end());
    TrainState state;
    QVERIFY(!loadCheckpoint(dir.filePath("out/toy_last.state").toStdString(), *toyNet(), state));
    QCOMPARE(state.iteration, 2);

    // The pass asks stopPending, never stopRequested, where the studio's Pause waits: a pause in a
    // validation held the run there without the checkpoint a pause writes.
    class CountsWhereAsked : public Quiet {
    public:
        void message(const std::string& text) override
        {
            Quiet::message(text);
            validating = validating || text.starts_with("evaluating at iteration");
        }
        void iteration(const IterationStats& s) override
        {
            Quiet::iteration(s);
            validating = false;
        }
        bool stopRequested() override
        {
            askedWhileValidating += validating;
            return false;
        }
        bool stopPending() override { return false; }
        bool validating = false;
        int askedWhileValidating = 0;
    };
    options.outDir = dir.filePath("counted").toStdString();
    CountsWhereAsked counting;
    QVERIFY(!Trainer(*toyNet(), *set, set.get(), options).run(counting));
    QCOMPARE(counting.seen.size(), std::size_t(12));
    QCOMPARE(counting.askedWhileValidating, 0);
}

// The weights of `options`' run straight through; then the same run into DIR/resumed, stopped after 5
// iterations, with `options` set to resume it. Empty when a run failed.
std::vector<float> straightThenStopped(const QTemporaryDir& dir, const TrainingSet& set,
                                       TrainOptions& options)
{
    auto straight = toyNet();
    Quiet all, firstPart;
    firstPart.stopAfter = 5;
    if (Trainer(*straight, set, nullptr, options).run(all))
        return {};
    options.outDir = dir.filePath("resumed").toStdString();
    if (Trainer(*toyNet(), set, nullptr, options).run(firstPart))
        return {};
    options.resume = true;
    return allWeights(*straight);
}

// A resume goes on with the seed the run started with (a resume without --seed went on with seed 1
// and drew other batches): the weights equal the uninterrupted run's.
void TestTraining::aResumeGoesOnWithTheRunsSeed()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 40);
    QVERIFY(set);
    TrainOptions options = toyOptions(dir.filePath("straight"));
    options.seed = 7;
    const std::vector<float> straight = straightThenStopped(dir, *set, options);
    QVERIFY(!straight.empty());
    options.seed = 1; // (the default: --seed not given again)
    auto resumed = toyNet();
    Quiet rest;
    const auto problem = Trainer(*resumed, *set, nullptr, options).run(rest);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    // (without a word of a --seed 1 it was not given)
    QVERIFY(std::find(rest.messages.begin(), rest.messages.end(),
                      "note: this run was started with --seed 7: it goes on with that seed") !=
            rest.messages.end());
    QVERIFY(allWeights(*resumed) == straight);
    // A --seed given to the resume is answered.
    options.outDir = dir.filePath("resumed-with-seed").toStdString();
    options.resume = false;
    options.seed = 7;
    Quiet again;
    again.stopAfter = 5;
    QVERIFY(!Trainer(*toyNet(), *set, nullptr, options).run(again));
    options.resume = true;
    options.seed = 4;
    Quiet told;
    QVERIFY(!Trainer(*toyNet(), *set, nullptr, options).run(told));
    QVERIFY(
        std::find(told.messages.begin(), told.messages.end(),
                  "note: this run was started with --seed 7: it goes on with that seed (--seed 4 is for a "
                  "fresh run)") != told.messages.end());
}

// A resume goes on at the run's --learning-rate (it went on at the cfg's, ten times higher, unsaid):
// the weights equal the uninterrupted run's; a rate given to the resume is the one used.
void TestTraining::aResumeGoesOnAtTheRunsLearningRate()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 40);
    QVERIFY(set);
    TrainOptions options = toyOptions(dir.filePath("straight"));
    options.learningRate = 0.001f;
    const std::vector<float> straight = straightThenStopped(dir, *set, options);
    QVERIFY(!straight.empty());
    options.learningRate = 0; // (not given again)
    auto resumed = toyNet();
    Quiet rest;
    const auto problem = Trainer(*resumed, *set, nullptr, options).run(rest);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    const float cfgRate = toyNet()->spec().net.learningRate;
    char said[160];
    std::snprintf(said, sizeof said,
                  "note: this run was trained with --learning-rate 0.001: it goes on at that rate (the cfg "
                  "says %g; give --learning-rate to change it)",
                  double(cfgRate));
    QVERIFY2(std::find(rest.messages.begin(), rest.messages.end(), said) != rest.messages.end(), said);
    QVERIFY(allWeights(*resumed) == straight);
    QVERIFY(!rest.seen.empty());
    QCOMPARE(rest.seen.front().learningRate, 0.001f); // (iteration 6: before the toy cfg's step at 8)
}

// A resume goes on to the run's --max-batches (it went on to the cfg's max_batches, or found nothing to
// train, and the schedule followed the new length): the weights equal the uninterrupted run's.
void TestTraining::aResumeGoesOnToTheRunsLength()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 40);
    QVERIFY(set);
    TrainOptions options = toyOptions(dir.filePath("straight"));
    options.maxBatches = 16; // (the toy cfg's max_batches is 12)
    const std::vector<float> straight = straightThenStopped(dir, *set, options);
    QVERIFY(!straight.empty());
    options.maxBatches = 0; // (not given again)
    auto resumed = toyNet();
    Quiet rest;
    const auto problem = Trainer(*resumed, *set, nullptr, options).run(rest);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    const std::string said =
        "note: this run was trained to --max-batches 16: it goes on to that iteration (the "
        "cfg says 12; give --max-batches to change it)";
    QVERIFY2(std::find(rest.messages.begin(), rest.messages.end(), said) != rest.messages.end(),
             said.c_str());
    QVERIFY(!rest.seen.empty());
    QCOMPARE(rest.seen.back().iteration, 16);
    QCOMPARE(rest.seen.back().maxBatches, 16);
    QVERIFY(allWeights(*resumed) == straight);
    // A state of version 4 (without the length) still loads: this one less its 4 bytes, checksum redone.
    QByteArray bytes = test::readAll(dir.filePath("resumed/toy_last.state"));
    QVERIFY(bytes.startsWith("NWSTATE5"));
    constexpr int kLengthAt = 8 + 4 + 8 + 8 + 8 + 4 + 4; // magic, iteration, seen, averages, seed, rate
    std::int32_t length = 0;
    std::memcpy(&length, bytes.constData() + kLengthAt, 4);
    QCOMPARE(length, 16);
    bytes.remove(kLengthAt, 4);
    bytes[7] = '4';
    bytes.chop(4);
    const std::uint32_t crc =
        std::uint32_t(crc32(0L, reinterpret_cast<const Bytef*>(bytes.constData()), uInt(bytes.size())));
    bytes.append(reinterpret_cast<const char*>(&crc), 4);
    test::writeFile(dir.filePath("v4.state"), bytes);
    TrainState old;
    const auto oldProblem = loadCheckpoint(dir.filePath("v4.state").toStdString(), *toyNet(), old);
    QVERIFY2(!oldProblem, oldProblem ? oldProblem->c_str() : "");
    QCOMPARE(old.iteration, 16);
    QCOMPARE(old.maxBatches, 0);
    // A run of the cfg's max_batches keeps no length: raising max_batches in the cfg and resuming trains
    // further, as in Darknet (the cfg's 12 was kept, and "nothing more to train" answered the raise).
    Quiet cfgLength;
    QVERIFY(!Trainer(*toyNet(), *set, nullptr, toyOptions(dir.filePath("cfg-length"))).run(cfgLength));
    const QByteArray cfgState = test::readAll(dir.filePath("cfg-length/toy_last.state"));
    QVERIFY(cfgState.size() > kLengthAt + 4);
    std::memcpy(&length, cfgState.constData() + kLengthAt, 4);
    QCOMPARE(length, 0);
    // Nor one given equal to the cfg's (the studio passes its fields as shown: "cfg's" as the values):
    // the checkpoint holds no length or rate of its own for a CLI resume to be held to.
    TrainOptions asShown = toyOptions(dir.filePath("as-shown"));
    asShown.maxBatches = 12;
    asShown.learningRate = toyNet()->spec().net.learningRate;
    Quiet shown;
    QVERIFY(!Trainer(*toyNet(), *set, nullptr, asShown).run(shown));
    const QByteArray shownState = test::readAll(dir.filePath("as-shown/toy_last.state"));
    float rate = -1;
    std::memcpy(&rate, shownState.constData() + kLengthAt - 4, 4);
    std::memcpy(&length, shownState.constData() + kLengthAt, 4);
    QCOMPARE(rate, 0.0f);
    QCOMPARE(length, 0);
}

// A resume of a cfg edited where it has no weights (its rates, its solver) says so and keeps the cfg of the
// iterations so far (_trained.cfg was overwritten unsaid: no record of what trained them).
void TestTraining::aResumeOfAnEditedCfgKeepsTheEarlierOne()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 40);
    QVERIFY(set);
    TrainOptions options = toyOptions(dir.filePath("straight"));
    options.cfgText = test::kToyCfg;
    QVERIFY(!straightThenStopped(dir, *set, options).empty());
    // (a comment or a blank line is no change: no note, no file)
    options.cfgText = std::string(test::kToyCfg) + "\n# a comment\n";
    Quiet commented;
    commented.stopAfter = 0;
    QVERIFY(!Trainer(*toyNet(), *set, nullptr, options).run(commented));
    QVERIFY(!QFileInfo::exists(dir.filePath("resumed/toy_trained-to-5.cfg")));
    test::writeFile(dir.filePath("resumed/toy_trained.cfg"), test::kToyCfg);
    options.cfgText = QByteArray(test::kToyCfg).replace("momentum=0.9", "momentum=0.95").toStdString();
    Quiet rest;
    const auto problem = Trainer(*toyNet(), *set, nullptr, options).run(rest);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    const std::string kept = dir.filePath("resumed/toy_trained-to-5.cfg").toStdString();
    const std::string said = "note: the cfg differs from the one this run trained to iteration 5 (kept as " +
                             kept + "): it goes on with the cfg as it is now";
    QVERIFY2(std::find(rest.messages.begin(), rest.messages.end(), said) != rest.messages.end(),
             said.c_str());
    QCOMPARE(test::readAll(QString::fromStdString(kept)), QByteArray(test::kToyCfg));
    QCOMPARE(test::readAll(dir.filePath("resumed/toy_trained.cfg")),
             QByteArray::fromStdString(options.cfgText));
}

// Images that can no longer be read mid-run (a network share gone) end the run with a checkpoint of the
// last whole iteration: the iterations since the last checkpoint were lost (up to --checkpoint-every − 1).
void TestTraining::dataThatVanishesKeepsTheIterationsDone()
{
    class Vanishing : public TrainingSet {
    public:
        explicit Vanishing(const TrainingSet& set) : set_(set) {}
        std::size_t size() const override { return set_.size(); }
        int width() const override { return set_.width(); }
        int height() const override { return set_.height(); }
        int channels() const override { return set_.channels(); }
        std::size_t truthFloats() const override { return set_.truthFloats(); }
        bool sample(std::size_t index, std::mt19937& random, int width, int height, float* image,
                    float* truth, std::string& warning) const override
        {
            if (gone) {
                warning = "image " + std::to_string(index) + ": gone";
                return false;
            }
            return set_.sample(index, random, width, height, image, truth, warning);
        }
        std::atomic<bool> gone{false};

    private:
        const TrainingSet& set_;
    };
    class GoneAfterThree : public Quiet {
    public:
        explicit GoneAfterThree(Vanishing& set) : set_(set) {}
        void iteration(const IterationStats& s) override
        {
            Quiet::iteration(s);
            if (s.iteration == after)
                set_.gone = true;
        }
        int after = 3;

    private:
        Vanishing& set_;
    };
    QTemporaryDir dir;
    auto set = toySet(dir, 40);
    QVERIFY(set);
    Vanishing vanishing(*set);
    TrainOptions options = toyOptions(dir); // a checkpoint every 100 iterations: none before the end
    // (the temporaries of a killed run's small files go too, as its checkpoints' do)
    QVERIFY(QDir().mkpath(dir.filePath("out")));
    for (const char* left :
         {"out/toy_data.txt.tmp-99-0", "out/toy_trained.cfg.tmp-99-1", "out/toy_5.weights.tmp-99-2"})
        test::writeFile(dir.filePath(left), "left by a killed run");
    auto net = toyNet();
    GoneAfterThree observer(vanishing);
    const auto problem = Trainer(*net, vanishing, nullptr, options).run(observer);
    QVERIFY(problem);
    QVERIFY2(problem->find("samples in a row could not be read") != std::string::npos, problem->c_str());
    const int done = observer.seen.back().iteration;
    QVERIFY(done >= 3);
    QVERIFY2(problem->ends_with("the last checkpoint (iteration " + std::to_string(done) + ") is kept in " +
                                options.outDir),
             problem->c_str());
    TrainState state;
    QVERIFY(!loadCheckpoint(dir.filePath("out/toy_last.state").toStdString(), *toyNet(), state));
    QCOMPARE(state.iteration, done);
    QCOMPARE(state.seed, std::optional<unsigned>(1));
    QVERIFY(!QFile::exists(dir.filePath("out/toy_data.txt.tmp-99-0")));
    QVERIFY(!QFile::exists(dir.filePath("out/toy_trained.cfg.tmp-99-1")));
    QVERIFY(!QFile::exists(dir.filePath("out/toy_5.weights.tmp-99-2"))); // (a backup's, weights-sized)
    // A fresh run there that fails in its first iteration brings that run back from previous-… (it
    // stayed hidden there, and a resume found nothing), as a stop in its first iteration does.
    const QByteArray checkpointBytes = test::readAll(dir.filePath("out/toy_last.state"));
    auto again = toyNet();
    Quiet failing;
    const auto failed = Trainer(*again, vanishing, nullptr, options).run(failing); // (still gone)
    QVERIFY(failed);
    QVERIFY2(failed->ends_with("; the previous run's files are back in " + options.outDir), failed->c_str());
    QCOMPARE(test::readAll(dir.filePath("out/toy_last.state")), checkpointBytes);
    QCOMPARE(QDir(dir.filePath("out")).entryList({"previous-*"}, QDir::Dirs).size(), 0);
    // One that fails after it trained (here in iteration 2) keeps its own checkpoint, which its message
    // names; the earlier run stays set aside (bringing it back overwrote that checkpoint).
    vanishing.gone = false;
    TrainOptions everyIteration = options;
    everyIteration.checkpointEvery = 1;
    auto later = toyNet();
    GoneAfterThree laterObserver(vanishing);
    laterObserver.after = 1;
    const auto laterFailure = Trainer(*later, vanishing, nullptr, everyIteration).run(laterObserver);
    QVERIFY(laterFailure);
    QVERIFY2(laterFailure->ends_with("the last checkpoint (iteration 1) is kept in " + options.outDir),
             laterFailure->c_str());
    TrainState laterState;
    QVERIFY(!loadCheckpoint(dir.filePath("out/toy_last.state").toStdString(), *toyNet(), laterState));
    QCOMPARE(laterState.iteration, 1);
    QCOMPARE(QDir(dir.filePath("out")).entryList({"previous-*"}, QDir::Dirs).size(), 1);
    // A run file that is a named pipe: a resume says so by name (it waited on the pipe for good).
    QFile::remove(dir.filePath("out/metrics.csv"));
    QVERIFY(mkfifo(dir.filePath("out/metrics.csv").toLocal8Bit().constData(), 0600) == 0);
    TrainOptions resuming = options;
    resuming.resume = true;
    auto resumed = toyNet();
    Quiet piped;
    const auto refused = Trainer(*resumed, *set, nullptr, resuming).run(piped);
    QVERIFY(refused);
    QVERIFY2(
        refused->find("metrics.csv is not a regular file (a named pipe or a device), where the run keeps a "
                      "file of its own") != std::string::npos,
        refused->c_str());
}

// The output folder deleted mid-run (rm -rf): the run made nothing again and its end was lost, and a
// second run started there took the lock and the two wrote into each other's files. Now the folder is
// made again and locked; taken by another run meanwhile, this run stops without writing there.
void TestTraining::aDeletedRunFolderIsMadeAgainOrLetGo()
{
    class DeletesTheFolder : public Quiet {
    public:
        DeletesTheFolder(QString folder, bool takenMeanwhile)
            : folder_(std::move(folder)), taken_(takenMeanwhile)
        {
        }
        void iteration(const IterationStats& s) override
        {
            Quiet::iteration(s);
            if (s.iteration != 3)
                return;
            QDir(folder_).removeRecursively();
            if (taken_) { // a second run, started into the same --out
                QDir().mkpath(folder_);
                std::string error;
                other.emplace(folder_.toStdString(), "training other", error);
            }
        }
        std::optional<RunFolderLock> other;

    private:
        QString folder_;
        bool taken_;
    };
    QTemporaryDir dir;
    auto set = toySet(dir, 40);
    QVERIFY(set);
    TrainOptions options = toyOptions(dir.filePath("made-again"));
    options.checkpointEvery = 2;
    options.cfgText = kToyCfg;
    DeletesTheFolder deleting(dir.filePath("made-again"), false);
    const auto problem = Trainer(*toyNet(), *set, nullptr, options).run(deleting);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    QVERIFY(
        std::find(deleting.messages.begin(), deleting.messages.end(),
                  "warning: " + options.outDir +
                      " was deleted during the run: made again; the earlier checkpoints and metrics.csv rows "
                      "went with it") != deleting.messages.end());
    TrainState state;
    QVERIFY(!loadCheckpoint(options.outDir + "/toy_last.state", *toyNet(), state));
    QCOMPARE(state.iteration, 12);
    QVERIFY(QFile::exists(dir.filePath("made-again/toy_final.weights")));
    QVERIFY(test::readAll(dir.filePath("made-again/metrics.csv")).startsWith("iteration,loss"));
    QCOMPARE(test::readAll(dir.filePath("made-again/toy_trained.cfg")), QByteArray(kToyCfg));

    options.outDir = dir.filePath("taken").toStdString();
    DeletesTheFolder taken(dir.filePath("taken"), true);
    const auto stopped = Trainer(*toyNet(), *set, nullptr, options).run(taken);
    QVERIFY(stopped);
    QVERIFY2(stopped->find("iteration 4: " + options.outDir +
                           " (or its lock file) was deleted during the run, and " + options.outDir +
                           " is in use by another training run (pid ") != std::string::npos &&
                 stopped->find("now: this run stops without writing there") != std::string::npos,
             stopped->c_str());
    QCOMPARE(QDir(dir.filePath("taken")).entryList(QDir::Files | QDir::Hidden),
             QStringList{".netwright-train.lock"}); // the other run's, alone
}

// Schedule keys that would hang (sgdr_mult below 1), divide by zero (step=0) or make every weight
// infinite (Adam's B1=1) are errors on their lines; steps out of order are warned; a steps list with a
// bad number has its own error, not a second one calling it missing.
void TestTraining::scheduleKeysAreChecked()
{
    const std::string head = "[net]\nbatch=1\nwidth=8\nheight=8\nchannels=1\nmax_batches=10\n";
    const std::string tail = "\n[connected]\noutput=2\n[softmax]\n";
    const auto said = [&](const std::string& keys) {
        return test::allText(test::specFromText(head + keys + tail, "s.cfg").diagnostics);
    };
    QVERIFY(said("policy=sgdr\nsgdr_cycle=4\nsgdr_mult=2\n").empty());
    const std::string mult = said("policy=sgdr\nsgdr_mult=0\n");
    QVERIFY2(mult.find("s.cfg:8: error: sgdr_mult must be at least 1") != std::string::npos, mult.c_str());
    QVERIFY(said("policy=sgdr\nsgdr_mult=1.5\n").find("s.cfg:8: error: bad number for 'sgdr_mult'") !=
            std::string::npos);
    QVERIFY(said("policy=step\nstep=0\n").find("s.cfg:8: error: step must be at least 1") !=
            std::string::npos);
    QVERIFY(said("policy=sigmoid\nstep=0\n").empty()); // (sigmoid's midpoint: any iteration)
    QVERIFY(said("adam=1\nB1=1\n").find("s.cfg:8: error: B1 must be at least 0 and below 1") !=
            std::string::npos);
    QVERIFY(said("adam=1\neps=0\n").find("s.cfg:8: error: eps must be above 0") != std::string::npos);
    QVERIFY(said("B1=1\n").empty()); // (read by Adam alone)
    QVERIFY(said("policy=steps\nsteps=8,4\nscales=.1,.1\n")
                .find("s.cfg:8: warning: steps are not in increasing order") != std::string::npos);
    const std::string bad = said("policy=steps\nsteps=4,2o\nscales=.1,.1\n");
    QVERIFY2(bad.find("s.cfg:8: error:") != std::string::npos && bad.find("needs both") == std::string::npos,
             bad.c_str());
}

// The state is the commit point of a checkpoint: a run killed after writing _last.weights but before
// the state gets, on resume, a _last.weights equal to the state again.
// The same cfg, seed and data give the same weights to the bit: the convolution's weight gradient was
// summed from chunks of images in whichever order threads finished them, and runs drifted apart from
// the 5th digit. Upsampled to 24×24 so a batch splits into several chunks for the two threads.
void TestTraining::twoRunsAreTheSameToTheBit()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 128);
    QVERIFY(set);
    const NetworkSpec spec = test::specFromText(
        "[net]\nbatch=64\nwidth=6\nheight=6\nchannels=1\nlearning_rate=0.05\nmomentum=0.9\nmax_batches=3\n\n"
        "[upsample]\nstride=4\n\n[convolutional]\nfilters=8\nsize=3\npad=1\nactivation=leaky\n\n"
        "[convolutional]\nbatch_normalize=1\nfilters=8\nsize=3\npad=1\nactivation=leaky\n\n"
        "[maxpool]\nsize=4\nstride=4\n\n[connected]\noutput=3\nactivation=linear\n\n[softmax]\n",
        "repeat.cfg");
    std::vector<std::vector<float>> weights;
    for (const char* out : {"first", "second"}) {
        std::string error;
        auto net = Net::create(spec, spec.net.layerBatch(), error);
        QVERIFY2(net, error.c_str());
        net->initialize(4);
        TrainOptions options = toyOptions(dir.filePath(out));
        options.name = "repeat";
        Quiet quiet;
        const auto problem = Trainer(*net, *set, nullptr, options).run(quiet);
        QVERIFY2(!problem, problem ? problem->c_str() : "");
        QCOMPARE(quiet.seen.size(), std::size_t(3));
        weights.push_back(allWeights(*net));
    }
    QVERIFY(weights[0] == weights[1]);
}

// A network without a loss layer "trained" with loss 0 and learnt nothing; one with too many outputs was
// told to change "the last layer", a [softmax] without output=: both now name the layer to change.
void TestTraining::aNetworkThatCannotLearnIsRefusedByName()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 16);
    QVERIFY(set);
    const auto refusal = [&](const std::string& layers) {
        const NetworkSpec spec = test::specFromText(
            "[net]\nbatch=8\nwidth=6\nheight=6\nchannels=1\nmax_batches=2\n\n" + layers, "design.cfg");
        std::string error;
        auto net = Net::create(spec, spec.net.layerBatch(), error);
        if (!net)
            return error;
        Quiet quiet;
        const auto problem = Trainer(*net, *set, nullptr, toyOptions(dir.filePath("out"))).run(quiet);
        return problem ? *problem : std::string("trained");
    };
    QCOMPARE(
        refusal("[convolutional]\nfilters=4\nsize=3\npad=1\n\n[connected]\noutput=3\n"),
        std::string("the network has no loss layer, so training has nothing to learn from: it ends in layer "
                    "1 [connected]; end a classifier with [softmax] (Darknet's classifiers do), a detector "
                    "with [yolo] heads"));
    QCOMPARE(
        refusal("[connected]\noutput=128\n\n[dropout]\n\n[softmax]\n"),
        std::string("the network ends with 128 outputs but the data has 3 classes: set output= of layer 0 "
                    "[connected] (design.cfg:9) to 3"));
    QCOMPARE(
        refusal(
            "[convolutional]\nfilters=10\nsize=1\n\n[avgpool]\n\n[softmax]\n\n[cost]\n"), // cifar_small's end
        std::string("the network ends with 10 outputs but the data has 3 classes: set filters= of layer 0 "
                    "[convolutional] (design.cfg:9) to 3"));
    QCOMPARE(refusal("[connected]\noutput=3\n\n[softmax]\n"), std::string("trained"));
}

void TestTraining::resumeBringsTheWeightsFileBackToTheState()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 16);
    QVERIFY(set);
    TrainOptions options = toyOptions(dir);
    auto net = toyNet();
    Quiet half;
    half.stopAfter = 4;
    QVERIFY(!Trainer(*net, *set, nullptr, options).run(half));
    const QString weights = dir.filePath("out/toy_last.weights");
    const QByteArray atCheckpoint = test::readAll(weights);
    auto other = toyNet();
    other->initialize(7);
    QVERIFY(!other->saveWeights(weights.toStdString())); // "a newer checkpoint's weights"
    QVERIFY(test::readAll(weights) != atCheckpoint);
    options.resume = true;
    options.maxBatches = 8; // resume and stop at once: only the state's weights are written back
    auto resumed = toyNet();
    Quiet rest;
    rest.stopAfter = 0;
    const auto problem = Trainer(*resumed, *set, nullptr, options).run(rest);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    QVERIFY(rest.seen.empty());
    QCOMPARE(test::readAll(weights), atCheckpoint);
}

// Two cfgs trained into one folder (Darknet's backup/): a fresh run of the second moves only the curve
// aside, and says so (it said the other run's checkpoint and weights were moved; they stay).
void TestTraining::freshRunOfAnotherCfgSaysWhatItMoved()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 16);
    QVERIFY(set);
    TrainOptions options = toyOptions(dir);
    auto net = toyNet();
    Quiet first;
    QVERIFY(!Trainer(*net, *set, nullptr, options).run(first));
    options.name = "other";
    auto other = toyNet();
    Quiet second;
    QVERIFY(!Trainer(*other, *set, nullptr, options).run(second));
    const QStringList aside = QDir(dir.filePath("out")).entryList({"previous-*"}, QDir::Dirs);
    QCOMPARE(aside.size(), 1);
    QCOMPARE(QDir(dir.filePath("out/" + aside[0])).entryList(QDir::Files), QStringList{"metrics.csv"});
    QVERIFY(QFileInfo::exists(dir.filePath("out/toy_last.state")));
    const std::string said = "a fresh run: metrics.csv in " + options.outDir +
                             " (the curve of an earlier run there, of another cfg or without its checkpoint) "
                             "was moved to " +
                             dir.filePath("out/" + aside[0]).toStdString();
    QVERIFY2(std::ranges::find(second.messages, said) != second.messages.end(),
             std::accumulate(second.messages.begin(), second.messages.end(), std::string(),
                             [](std::string all, const std::string& m) { return all + m + "\n"; })
                 .c_str());
}

// A stopped run resumed with fewer iterations than it has trained: nothing trains, and no file changes
// (it wrote _final.weights, and the studio then took the stopped run for a finished one).
void TestTraining::resumingPastTheEndChangesNoFile()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 16);
    QVERIFY(set);
    TrainOptions options = toyOptions(dir);
    options.maxBatches = 8;
    auto net = toyNet();
    Quiet half;
    half.stopAfter = 4;
    QVERIFY(!Trainer(*net, *set, nullptr, options).run(half));
    const QDir out(dir.filePath("out"));
    const auto snapshot = [&] {
        QStringList files;
        for (const QString& name : out.entryList(QDir::Files))
            files << name + " " +
                         QCryptographicHash::hash(test::readAll(out.filePath(name)), QCryptographicHash::Md5)
                             .toHex();
        return files;
    };
    const QStringList before = snapshot();
    QVERIFY2(before.filter("toy_last.state").size() == 1 && before.filter("_final").isEmpty(),
             qPrintable(before.join(", ")));
    options.resume = true;
    options.maxBatches = 3;
    auto resumed = toyNet();
    Quiet rest;
    const auto problem = Trainer(*resumed, *set, nullptr, options).run(rest);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    QVERIFY(rest.seen.empty());
    QVERIFY(std::ranges::find(rest.messages,
                              "the checkpoint is at iteration 4, already at max_batches=3: nothing "
                              "more to train, no file changed; raise --max-batches (or "
                              "max_batches in [net]) to go on") != rest.messages.end());
    QCOMPARE(snapshot(), before);
}

// Training's memory check counts the output-sized copies a pass keeps (batch norm's raw and normalised
// values, mish's input): it counted the deltas and solver state alone, so yolov4-tiny at 832 passed a
// 310 MB limit and peaked at 2.1 GB. Here 34 MB of outputs and deltas fit in 80 MB; with the three copies
// (134 MB) they do not.
void TestTraining::trainingCountsItsCopiesBeforeAllocating()
{
    const NetworkSpec spec = test::specFromText("[net]\nwidth=256\nheight=256\nchannels=1\n"
                                                "[convolutional]\nbatch_normalize=1\nfilters=16\nsize=3\n"
                                                "pad=1\nactivation=mish\n",
                                                "big.cfg");
    QVERIFY2(spec.ok(), test::allText(spec.diagnostics).c_str());
    qputenv("NETWRIGHT_MEMORY_LIMIT_MB", "80");
    std::string error;
    auto net = Net::create(spec, 8, error);
    const auto refused = net ? net->setTraining(true) : std::nullopt;
    qunsetenv("NETWRIGHT_MEMORY_LIMIT_MB");
    QVERIFY2(net, error.c_str());
    QVERIFY(refused);
    QVERIFY2(
        refused->find("training needs about") == 0 &&
            refused->find("(gradients, batch-norm and activation copies and solver state for training)") !=
                std::string::npos,
        refused->c_str());
    // Without batch norm and with leaky (its derivative from the output) the same net fits.
    const NetworkSpec lean =
        test::specFromText("[net]\nwidth=256\nheight=256\nchannels=1\n"
                           "[convolutional]\nfilters=16\nsize=3\npad=1\nactivation=leaky\n",
                           "lean.cfg");
    qputenv("NETWRIGHT_MEMORY_LIMIT_MB", "80");
    auto leanNet = Net::create(lean, 8, error);
    const auto leanRefused = leanNet ? leanNet->setTraining(true) : std::nullopt;
    qunsetenv("NETWRIGHT_MEMORY_LIMIT_MB");
    QVERIFY2(leanNet && !leanRefused, leanRefused ? leanRefused->c_str() : error.c_str());
}

void TestTraining::lossFallsOnFashionMnist()
{
    std::string error;
    auto data = loadDataFile(std::string(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.data", error);
    QVERIFY2(data, error.c_str());
    const NetworkSpec spec =
        buildNetworkSpec(cfg::Document::load(std::string(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg"));
    auto set = openClassificationSet(*data, "train", spec.net, 1, error);
    QVERIFY2(set, error.c_str());
    QCOMPARE(set->size(), std::size_t(60000));
    auto net = Net::create(spec, spec.net.layerBatch(), error);
    QVERIFY(net);
    QTemporaryDir dir;
    TrainOptions options;
    options.outDir = dir.path().toStdString();
    options.maxBatches = 40;
    Quiet observer;
    QVERIFY(!Trainer(*net, *set, nullptr, options).run(observer));
    double early = 0, late = 0;
    for (int i = 0; i < 5; ++i) {
        early += observer.seen[std::size_t(i)].loss;
        late += observer.seen[observer.seen.size() - 1 - std::size_t(i)].loss;
    }
    QVERIFY2(late < 0.6 * early, qPrintable(QString("loss %1 → %2").arg(early / 5).arg(late / 5)));
    QVERIFY(QFileInfo::exists(dir.filePath("net_final.weights")));
}

// `train | less` left open: stdout's pipe full, its reader not reading. Ctrl+C stops the run with its
// checkpoint (the write it was blocked in held the stop for good, and only a second one quit, without
// the iterations since the last checkpoint).
void TestTraining::aStopIsNotHeldByAStdoutNobodyReads()
{
    QTemporaryDir dir;
    writeToySet(dir.path(), 48);
    test::writeFile(dir.filePath("toy.data"), "classes=3\ntrain=toy-images.gz\ntrain_labels=toy-labels\n");
    test::writeFile(dir.filePath("toy.cfg"),
                    QByteArray(kToyCfg).replace("max_batches=12", "max_batches=1000000"));
    const QByteArray fifo = dir.filePath("stdout").toLocal8Bit();
    QVERIFY(mkfifo(fifo.constData(), 0600) == 0);
    // Trains into the pipe, held open and never read (stderr into it too with `stderrToo`), and sends
    // Ctrl+C once it is full: whether the run then ended by itself, its exit code and stderr.
    struct Stop {
        bool filled = false, ended = false;
        int exitCode = -1;
        QByteArray said;
    };
    const auto stopWithAFullPipe = [&](bool stderrToo) {
        Stop stop;
        const int reader = ::open(fifo.constData(), O_RDONLY | O_NONBLOCK);
        if (reader < 0)
            return stop;
        fcntl(reader, F_SETPIPE_SZ, 4096); // (full after a few dozen progress lines)
        QProcess process;
        process.setStandardOutputFile(dir.filePath("stdout"));
        if (stderrToo)
            process.setStandardErrorFile(dir.filePath("stdout"));
        process.start(NETWRIGHT_CLI, {"train", dir.filePath("toy.data"), dir.filePath("toy.cfg"), "--out",
                                      dir.filePath("out"), "--checkpoint-every", "1000000"});
        // Full: the pipe takes no more (the run then waits in its write).
        stop.filled = process.waitForStarted() && QTest::qWaitFor(
                                                      [&] {
                                                          int queued = 0;
                                                          return ioctl(reader, FIONREAD, &queued) == 0 &&
                                                                 queued >= 4000;
                                                      },
                                                      60000);
        QTest::qWait(500);
        ::kill(pid_t(process.processId()), SIGINT);
        stop.ended = process.waitForFinished(60000);
        if (!stop.ended) // (the test ends all the same)
            ::kill(pid_t(process.processId()), SIGKILL);
        process.waitForFinished(10000);
        ::close(reader);
        stop.exitCode = process.exitCode();
        if (!stderrToo)
            stop.said = process.readAllStandardError();
        return stop;
    };
    const Stop alone = stopWithAFullPipe(false);
    QVERIFY(alone.filled);
    QVERIFY2(alone.ended, "the stop waited for the reader");
    QCOMPARE(alone.exitCode, 128 + SIGINT);
    QVERIFY2(alone.said.contains("the standard output is not being read: its lines are dropped while the run "
                                 "stops") &&
                 alone.said.contains("checkpoint written"),
             alone.said.constData());
    QVERIFY(QFileInfo::exists(dir.filePath("out/toy_last.state")));
    // stderr into the same pipe (`train … 2>&1 | less`): the stop's own words would wait there too, the
    // signal masked in its handler; the run stops with its checkpoint all the same.
    QVERIFY(QDir(dir.filePath("out")).removeRecursively());
    const Stop merged = stopWithAFullPipe(true);
    QVERIFY(merged.filled);
    QVERIFY2(merged.ended, "the stop waited for the reader of stderr");
    QCOMPARE(merged.exitCode, 128 + SIGINT);
    QVERIFY(QFileInfo::exists(dir.filePath("out/toy_last.state")));
}

void TestTraining::trainCommandWritesMetricsAndWeights()
{
    QTemporaryDir dir;
    writeToySet(dir.path(), 48);
    QFile data(dir.filePath("toy.data"));
    QVERIFY(data.open(QIODevice::WriteOnly));
    data.write("classes=3\ntrain=toy-images.gz\ntrain_labels=toy-labels\nvalid=toy-images.gz\nvalid_labels="
               "toy-labels\n");
    data.close();
    QFile cfg(dir.filePath("toy.cfg"));
    QVERIFY(cfg.open(QIODevice::WriteOnly));
    cfg.write(kToyCfg);
    cfg.close();
    QProcess process;
    process.start(NETWRIGHT_CLI, {"train", data.fileName(), cfg.fileName(), "--out", dir.filePath("out/"),
                                  "--valid-every", "6"});
    QVERIFY(process.waitForFinished(120000));
    const QByteArray said = process.readAllStandardError();
    QVERIFY2(process.exitCode() == 0, said.constData());
    // The best weights are named as written (out/ as Darknet's backup=backup/: no "out//toy"), and no
    // empty line comes before a message when no progress bar is open (stdout is no terminal here).
    QVERIFY2(said.contains(": weights in " + dir.filePath("out/toy_best.weights").toUtf8()),
             said.constData());
    QVERIFY2(!said.contains("//") && !said.contains("\n\n") && !said.startsWith('\n'), said.constData());
    // The end names the result (the run ended on its progress line, naming no file).
    QVERIFY2(
        said.endsWith("finished at iteration 12: " + dir.filePath("out/toy_final.weights").toUtf8() + "\n"),
        said.constData());
    const QStringList rows =
        QString(test::readAll(dir.filePath("out/metrics.csv"))).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 13);
    QVERIFY(rows[6].split(',').at(6).toDouble() > 0); // valid_top1: validated at 6
    QVERIFY(rows[5].split(',').at(6).isEmpty());      // not at 5
    QVERIFY(rows[6].split(',').at(7).isEmpty());      // map50: a classifier has none
    QVERIFY(QFileInfo::exists(dir.filePath("out/toy_final.weights")));
    QVERIFY(QFileInfo::exists(dir.filePath("out/toy_last.state")));
    QCOMPARE(cv::imread(dir.filePath("out/chart.png").toStdString()).cols, 1000); // Darknet's chart.png

    // --valid-every asks for validation: a .data file without valid= is refused before any training.
    test::writeFile(dir.filePath("novalid.data"),
                    "classes=3\ntrain=toy-images.gz\ntrain_labels=toy-labels\n");
    const test::Run refused = test::cli({"train", dir.filePath("novalid.data"), cfg.fileName(), "--out",
                                         dir.filePath("refused"), "--valid-every", "6"});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains("novalid.data has no valid= list, which the validation asked for needs"),
             refused.err.constData());
    QVERIFY(!QFileInfo::exists(dir.filePath("refused/metrics.csv")));
    // A schedule whose rate becomes infinite (poly with power < 0, at max_batches): warned about, and the
    // run fails at that iteration instead of saving NaN weights as its final ones with exit status 0.
    test::writeFile(dir.filePath("poly.cfg"), QByteArray(kToyCfg).replace("policy=steps\nsteps=8\nscales=0.5",
                                                                          "policy=poly\npower=-1"));
    const test::Run exploding =
        test::cli({"train", data.fileName(), dir.filePath("poly.cfg"), "--out", dir.filePath("poly")});
    QCOMPARE(exploding.exitCode, 1);
    QVERIFY2(exploding.err.contains("power < 0 makes policy=poly's rate grow to infinity at max_batches") &&
                 exploding.err.contains("the learning rate became inf at iteration 12"),
             exploding.err.constData());
    QVERIFY(!QFileInfo::exists(dir.filePath("poly/poly_final.weights")));
    // A batch that subdivisions does not divide is refused before the data is read (the list here is
    // missing: its error came first, after the data loaded on a real set), on batch='s line, with the
    // batches that work.
    test::writeFile(dir.filePath("nolist.data"), "classes=3\ntrain=missing.list\nlabels=labels.txt\n");
    test::writeFile(dir.filePath("sub3.cfg"),
                    QByteArray(kToyCfg).replace("subdivisions=2", "subdivisions=3"));
    const test::Run uneven = test::cli({"train", dir.filePath("nolist.data"), dir.filePath("sub3.cfg")});
    QCOMPARE(uneven.exitCode, 1);
    QVERIFY2(
        uneven.err.contains("sub3.cfg:2: batch=8 in [net] is not a multiple of subdivisions=3: each pass "
                            "would take 2 images and leave the rest out; make batch a multiple of "
                            "subdivisions (batch=6 or 9)"),
        uneven.err.constData());
    // No length to train: said with the cfg's [net] line before the data is read (it had no file:line).
    test::writeFile(dir.filePath("endless.cfg"),
                    QByteArray(kToyCfg).replace("max_batches=", "#max_batches="));
    const test::Run endless = test::cli({"train", dir.filePath("nolist.data"), dir.filePath("endless.cfg")});
    QCOMPARE(endless.exitCode, 1);
    QVERIFY2(
        endless.err.contains("endless.cfg:1: max_batches is 0 or missing in [net], so there is nothing to "
                             "train"),
        endless.err.constData());

    process.start(NETWRIGHT_CLI, {"valid", data.fileName(), cfg.fileName(),
                                  dir.filePath("out/toy_final.weights"), "--json"});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 0);
    const QByteArray scores = process.readAllStandardOutput();
    QVERIFY(scores.contains("\"images\": 48"));
    QVERIFY2(!scores.contains("top5"), scores.constData()); // (of 3 classes: always 100 %)
    // Each class's recall and precision, and the confusion matrix: its diagonal is top-1's count, its
    // rows the classes' image counts, its columns what precision divides by.
    process.start(NETWRIGHT_CLI, {"valid", data.fileName(), cfg.fileName(),
                                  dir.filePath("out/toy_final.weights"), "--json", "--confusion"});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 0);
    const QByteArray perClassText = process.readAllStandardOutput();
    const QJsonObject perClass = QJsonDocument::fromJson(perClassText).object();
    const QJsonArray classes = perClass["classes"].toArray(), matrix = perClass["confusion"].toArray();
    // Indented, with each row of the matrix on a line of its own ("[14, 1, 1],").
    QCOMPARE(QString::fromUtf8(perClassText).count(QRegularExpression(R"(\n +\[\d+, \d+, \d+\],?(?=\n))")),
             3);
    QCOMPARE(classes.size(), 3);
    QCOMPARE(matrix.size(), 3);
    double right = 0, counted = 0;
    for (int t = 0; t < 3; ++t) {
        const QJsonArray row = matrix[t].toArray();
        double rowSum = 0, columnSum = 0;
        for (int c = 0; c < 3; ++c) {
            rowSum += row[c].toDouble();
            columnSum += matrix[c].toArray()[t].toDouble();
        }
        const QJsonObject figures = classes[t].toObject();
        QCOMPARE(figures["images"].toDouble(), rowSum);
        QCOMPARE(figures["recall"].toDouble(), row[t].toDouble() / rowSum);
        if (columnSum > 0)
            QCOMPARE(figures["precision"].toDouble(), row[t].toDouble() / columnSum);
        else
            QVERIFY(figures["precision"].isNull());
        right += row[t].toDouble();
        counted += rowSum;
    }
    QCOMPARE(counted, 48.0);
    QCOMPARE(right / counted, perClass["top1"].toDouble());
    const test::Run table = test::cli(
        {"valid", data.fileName(), cfg.fileName(), dir.filePath("out/toy_final.weights"), "--confusion"});
    QCOMPARE(table.exitCode, 0);
    const QList<QByteArray> lines = table.out.split('\n');
    QVERIFY2(lines.size() > 9 && lines[0].startsWith("48 images: top-1 ") &&
                 lines[1].startsWith("class                       images    recall  precision") &&
                 lines[2].startsWith("   0 class 0 ") &&
                 table.out.contains("confusion matrix (rows: the true"),
             table.out.constData());
    // Each column ends where its heading does (the figures stood one column right of theirs).
    for (const char* heading : {"images", "recall", "precision"}) {
        const qsizetype end = lines[1].indexOf(heading) + qsizetype(std::strlen(heading));
        QVERIFY2(lines[2].size() >= end && lines[2][end - 1] != ' ' &&
                     (lines[2].size() == end || lines[2][end] == ' '),
                 qPrintable(QString("%1 ends at %2:\n%3\n%4").arg(heading).arg(end).arg(lines[1], lines[2])));
    }
    // top= of the .data file, as Darknet's valid: top-2 of the 3 classes, its figure a fraction.
    test::writeFile(dir.filePath("top.data"), test::readAll(data.fileName()) + "top=2\n");
    process.start(NETWRIGHT_CLI, {"valid", dir.filePath("top.data"), cfg.fileName(),
                                  dir.filePath("out/toy_final.weights"), "--json"});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 0);
    const QJsonObject top = QJsonDocument::fromJson(process.readAllStandardOutput()).object();
    QVERIFY(top.contains("top2"));
    QVERIFY(top["top2"].toDouble() >= top["top1"].toDouble() && top["top2"].toDouble() <= 1);
    // A count past int's range (atoi's undefined behaviour) or with a sign is refused on its key.
    for (const char* bad : {"99999999999", "+2", "2x"}) {
        test::writeFile(dir.filePath("bad-top.data"), test::readAll(data.fileName()) + "top=" + bad + "\n");
        process.start(NETWRIGHT_CLI, {"valid", dir.filePath("bad-top.data"), cfg.fileName(),
                                      dir.filePath("out/toy_final.weights")});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 1);
        QVERIFY2(process.readAllStandardError().contains(QByteArray("top=") + bad + " is not a whole number"),
                 bad);
    }

    // A run into `out` well under way (three rows of metrics.csv), to be stopped.
    const auto underWay = [&](const QString& out) {
        return QTest::qWaitFor(
            [&] {
                return QFileInfo::exists(dir.filePath(out + "/metrics.csv")) &&
                       test::readAll(dir.filePath(out + "/metrics.csv")).count('\n') >= 3;
            },
            60000);
    };
    // Stopped (SIGTERM, as Ctrl+C's SIGINT): a checkpoint, and 128 + the signal, as a shell reports a
    // killed command (it was 0, so `train … && next` went on).
    process.start(NETWRIGHT_CLI, {"train", data.fileName(), cfg.fileName(), "--out", dir.filePath("stopped"),
                                  "--max-batches", "100000"});
    QVERIFY(underWay("stopped"));
    process.terminate();
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 128 + SIGTERM);
    const QByteArray stoppedSaid = process.readAllStandardError();
    QVERIFY(stoppedSaid.contains("checkpoint written"));
    // The stop is said at once (a large network's iteration takes seconds: a silent Ctrl+C invited the
    // second, which quits without a checkpoint).
    // (SIGTERM's words: a second stop signal, not a Ctrl+C, which a process killed by a script never
    // sees; no blank line before it off a terminal)
    QVERIFY2(stoppedSaid.contains("stopping after this iteration, with a checkpoint (a second stop signal "
                                  "quits at once, without it)") &&
                 !stoppedSaid.contains("\n\nstopping"),
             stoppedSaid.constData());
    QVERIFY(QFileInfo::exists(dir.filePath("stopped/toy_last.state")));
    // --progress json (a program following the run) gets the same status: it was 0, a stop read as a
    // finish; and a reader that went away stops that run too (it trained on unseen to the end).
    process.start(NETWRIGHT_CLI, {"train", data.fileName(), cfg.fileName(), "--out", dir.filePath("json"),
                                  "--max-batches", "100000", "--progress", "json"});
    QVERIFY(underWay("json"));
    ::kill(pid_t(process.processId()), SIGINT);
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 128 + SIGINT);
    QVERIFY(process.readAllStandardOutput().contains("{\"message\":\"stopped at iteration"));
    // One stop sent twice at once (`timeout` signals the command, then its process group): one stop, with
    // its checkpoint (the second, handled on another thread, quit at once without it).
    // (iterations of a fifth of a second or more: the second signal comes before the checkpoint)
    test::writeFile(
        dir.filePath("slow.cfg"),
        "[net]\nbatch=64\nwidth=6\nheight=6\nchannels=1\nlearning_rate=0.01\nmax_batches=1000\n\n"
        "[connected]\noutput=4096\nactivation=leaky\n\n[connected]\noutput=4096\nactivation=leaky\n\n"
        "[connected]\noutput=3\nactivation=linear\n\n[softmax]\n");
    process.start(NETWRIGHT_CLI, {"train", data.fileName(), dir.filePath("slow.cfg"), "--out",
                                  dir.filePath("twice"), "--max-batches", "100000"});
    QVERIFY(underWay("twice"));
    ::kill(pid_t(process.processId()), SIGINT);
    QByteArray twiceSaid;
    QTRY_VERIFY_WITH_TIMEOUT((twiceSaid += process.readAllStandardError()).contains("stopping after this"),
                             30000);
    ::kill(pid_t(process.processId()), SIGINT); // (the same sender, within a second)
    QVERIFY(process.waitForFinished(60000));
    twiceSaid += process.readAllStandardError();
    QCOMPARE(process.exitCode(), 128 + SIGINT);
    QVERIFY2(twiceSaid.contains("checkpoint written") && !twiceSaid.contains("quit at once"),
             twiceSaid.constData());
    QVERIFY(QFileInfo::exists(dir.filePath("twice/slow_last.state")));
    // A run into `out` whose stdout's reader goes away after one byte (`train … | head -c 1`).
    const auto piped = [&](const QString& out, const QString& options) {
        process.start("bash", {"-c",
                               "\"$0\" train \"$1\" \"$2\" --out \"$3\" --max-batches 100000 " + options +
                                   " | head -c 1 >/dev/null; exit ${PIPESTATUS[0]}",
                               NETWRIGHT_CLI, data.fileName(), cfg.fileName(), dir.filePath(out)});
        return process.waitForFinished(60000);
    };
    QVERIFY(piped("json-piped", "--progress json"));
    QCOMPARE(process.exitCode(), 128 + SIGPIPE);
    QVERIFY(QFileInfo::exists(dir.filePath("json-piped/toy_last.state")));
    // The terminal closed (SIGHUP), or stdout's reader went away (`train … | head -1`): the same stop
    // with a checkpoint (both ended the run by their default action, the iterations since the last
    // checkpoint lost).
    process.start(NETWRIGHT_CLI, {"train", data.fileName(), cfg.fileName(), "--out", dir.filePath("hangup"),
                                  "--max-batches", "100000"});
    QVERIFY(underWay("hangup"));
    ::kill(pid_t(process.processId()), SIGHUP);
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 128 + SIGHUP);
    QVERIFY(QFileInfo::exists(dir.filePath("hangup/toy_last.state")));
    // Started with SIGHUP ignored (nohup, or a shell's trap ""): it trains on through a hang-up.
    process.start("bash",
                  {"-c", "trap '' HUP; exec \"$0\" train \"$1\" \"$2\" --out \"$3\" --max-batches 100000",
                   NETWRIGHT_CLI, data.fileName(), cfg.fileName(), dir.filePath("nohup")});
    QVERIFY(underWay("nohup"));
    ::kill(pid_t(process.processId()), SIGHUP);
    QVERIFY(!process.waitForFinished(1000)); // still training a second later
    process.terminate();
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 128 + SIGTERM);
    QVERIFY(piped("piped", ""));
    QCOMPARE(process.exitCode(), 128 + SIGPIPE);
    QVERIFY(process.readAllStandardError().contains("the standard output cannot be written (its reader went "
                                                    "away): stopping"));
    QVERIFY(QFileInfo::exists(dir.filePath("piped/toy_last.state")));

    // An output folder that cannot be written is said before the data set is read (minutes for a large
    // set, then "cannot create"): here a file on its way; the .data's list does not exist either.
    test::writeFile(dir.filePath("a-file"), "x");
    test::writeFile(dir.filePath("later.data"), "classes=3\ntrain=nowhere.list\n");
    process.start(NETWRIGHT_CLI,
                  {"train", dir.filePath("later.data"), cfg.fileName(), "--out", dir.filePath("a-file/run")});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 1);
    QCOMPARE(process.readAllStandardError(),
             QByteArray("error: ") + dir.filePath("a-file/run").toUtf8() + ": " +
                 dir.filePath("a-file").toUtf8() +
                 " is a file, not a folder: choose another output folder (--out DIR)\n");
    process.start(NETWRIGHT_CLI, {"train", dir.filePath("none.data"), cfg.fileName()});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 1);
    QVERIFY(process.readAllStandardError().contains("none.data: no such file (expected a .data file)"));
    process.start(NETWRIGHT_CLI,
                  {"train", data.fileName(), cfg.fileName(), "--out", dir.filePath("fresh"), "--resume"});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 1);
    QVERIFY(process.readAllStandardError().contains("nothing to resume: " + dir.filePath("fresh").toUtf8() +
                                                    " does not exist"));
    QVERIFY(!QFileInfo::exists(dir.filePath("fresh"))); // (it was created, with a lock file, and left)
    // A recurrent network over time steps needs sequence data, which the image sets cannot give: refused
    // in words (it used to say the batch was wrong).
    test::writeFile(dir.filePath("steps.cfg"), QByteArray(kToyCfg)
                                                   .replace("[net]\n", "[net]\ntime_steps=2\n")
                                                   .replace("[softmax]", "[gru]\noutput=3\n\n[softmax]"));
    process.start(NETWRIGHT_CLI,
                  {"train", data.fileName(), dir.filePath("steps.cfg"), "--out", dir.filePath("steps")});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 1);
    const QByteArray stepsError = process.readAllStandardError();
    QVERIFY2(
        stepsError.contains("time_steps=2 in [net]: training on sequences (Darknet's text and sequence data) "
                            "is not supported"),
        stepsError.constData());
}

// backup= is an output: beside the .data when that folder exists, else in the working folder (Darknet's).
// It was looked for as an input, in the three folders above the .data too: a bk/ that happened to exist
// two folders up got the run, which set that folder's other run aside.
void TestTraining::backupIsBesideTheDataOrInTheWorkingFolder()
{
    QTemporaryDir dir;
    QVERIFY(QDir().mkpath(dir.filePath("a/b/c")) && QDir().mkpath(dir.filePath("a/bk")) &&
            QDir().mkpath(dir.filePath("cwd")));
    test::writeFile(dir.filePath("a/b/c/d.data"), "classes=2\ntrain=/usr/share/list.txt\nbackup=bk/\n");
    struct WorkingFolder {
        const QString before = QDir::currentPath();
        ~WorkingFolder() { QDir::setCurrent(before); }
    } workingFolder;
    QVERIFY(QDir::setCurrent(dir.filePath("cwd")));
    std::string error;
    const auto data = loadDataFile(dir.filePath("a/b/c/d.data").toStdString(), error);
    QVERIFY2(data, error.c_str());
    QCOMPARE(data->outputFolder("backup", "backup"), std::string("bk/"));
    QVERIFY(QDir().mkpath(dir.filePath("a/b/c/bk")));
    QCOMPARE(QDir::cleanPath(QString::fromStdString(data->outputFolder("backup", "backup"))),
             dir.filePath("a/b/c/bk"));
    DataFile absolute = *data;
    absolute.values["backup"] = dir.filePath("a/bk").toStdString();
    QCOMPARE(absolute.outputFolder("backup", "backup"), dir.filePath("a/bk").toStdString());
    absolute.values.erase("backup");
    QCOMPARE(absolute.outputFolder("backup", "backup"), std::string("backup"));
    // An AlexeyAB project: train=data/train.txt found from the folder above data/, backup= there too.
    QVERIFY(QDir().mkpath(dir.filePath("ab/data")) && QDir().mkpath(dir.filePath("ab/backup")));
    test::writeFile(dir.filePath("ab/data/train.txt"), "");
    test::writeFile(dir.filePath("ab/data/obj.data"), "classes=2\ntrain=data/train.txt\nbackup=backup/\n");
    const auto project = loadDataFile(dir.filePath("ab/data/obj.data").toStdString(), error);
    QVERIFY2(project, error.c_str());
    QCOMPARE(QDir::cleanPath(QString::fromStdString(project->outputFolder("backup", "backup"))),
             dir.filePath("ab/backup"));
    // A list found beside the .data while the working folder holds another of that name (Darknet's
    // choice): said, since the run silently trained on 40 images where Darknet reads 600.
    test::writeFile(dir.filePath("a/b/c/list.txt"), "a.png\n");
    test::writeFile(dir.filePath("cwd/list.txt"), "b.png\n");
    test::writeFile(dir.filePath("a/b/c/e.data"), "classes=2\ntrain=list.txt\nvalid=/usr/share/list.txt\n");
    const auto both = loadDataFile(dir.filePath("a/b/c/e.data").toStdString(), error);
    QVERIFY2(both, error.c_str());
    QCOMPARE(both->workingFolderNote("train"),
             dir.filePath("a/b/c/e.data").toStdString() +
                 ":2: train=list.txt is read beside the .data file (" +
                 dir.filePath("a/b/c/list.txt").toStdString() +
                 "); the working folder holds another list.txt, which Darknet would read: write the path of "
                 "the one you mean from the .data file's folder, or absolute");
    QCOMPARE(both->workingFolderNote("valid"), std::nullopt); // (absolute)
    // The bundled network's data, not installed (a Recommends left out): the package is named.
    DataFile fashion = *both;
    fashion.values["train"] = "/usr/share/datasets/fashion-mnist/not-there.gz";
    fashion.written.erase("train");
    QVERIFY(!fashion.existingFile("train", error));
    QVERIFY2(
        error.ends_with(": no such file (Debian's dataset-fashion-mnist package holds it: sudo apt install "
                        "dataset-fashion-mnist)"),
        error.c_str());
    // A quoted path is said to be one (it read "neither beside the .data file (…/\"/data/list.txt\")").
    fashion.values["train"] = "\"/data/list.txt\"";
    QVERIFY(!fashion.existingFile("train", error));
    QVERIFY2(error.ends_with(
                 ":2: train=\"/data/list.txt\": no such file: the quotes are read as part of the path, "
                 "as Darknet reads them: write it without quotes"),
             error.c_str());
    QVERIFY(QDir::setCurrent(dir.filePath("a/b/c"))); // the same file both ways: nothing to say
    QCOMPARE(both->workingFolderNote("train"), std::nullopt);
}

// chart.png from a hand-made metrics.csv: iterations 0..100 on 860 pixels from x = 70, the average loss
// 2.0 on a loss axis topped at 4 (max_chart_loss) halfway up the 480 pixels from y = 540, and mAP 75 % at
// iteration 50 three quarters up the same height; rows that do not read (a NaN loss, a cut line) are
// left out, not drawn at 0.
void TestTraining::chartIsDrawnFromMetrics()
{
    QTemporaryDir dir;
    QByteArray csv = "iteration,loss,avg_loss,lr,images_per_sec,elapsed_s,valid_top1,map50\n";
    for (int i = 0; i <= 100; i += 10)
        csv += QByteArray::number(i) + ",2,2,0.001,100," + QByteArray::number(i) + ",," +
               (i == 50 ? "0.75" : "") + "\n";
    csv += "101,nan,nan,0.001,100,101,,\n102,1";
    test::writeFile(dir.filePath("metrics.csv"), csv);
    const std::string png = dir.filePath("chart.png").toStdString();
    const auto problem = writeTrainingChart(dir.filePath("metrics.csv").toStdString(), png, "toy", 100, 4);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    const cv::Mat chart = cv::imread(png);
    QCOMPARE(chart.cols, TrainingChartLayout::kWidth);
    QCOMPARE(chart.rows, TrainingChartLayout::kHeight);
    const auto near = [&](int x, int y, const unsigned char(&bgr)[3]) {
        for (int dy = -1; dy <= 1; ++dy) {
            const cv::Vec3b p = chart.at<cv::Vec3b>(y + dy, x);
            if (std::abs(p[0] - bgr[0]) + std::abs(p[1] - bgr[1]) + std::abs(p[2] - bgr[2]) < 30)
                return true;
        }
        return false;
    };
    QVERIFY(near(70 + 860 / 4, 540 - 480 / 2, TrainingChartColors::kAverageLoss));     // iteration 25, loss 2
    QVERIFY(near(70 + 860 / 2, 540 - 480 * 3 / 4, TrainingChartColors::kValidation));  // iteration 50, 75 %
    QVERIFY(!near(70 + 860 / 4, 540 - 480 * 3 / 4, TrainingChartColors::kValidation)); // one point only
    // The curve reaches the right edge at loss 2: the NaN row (iteration 101) was not read as a loss of 0,
    // which would also have stretched the axis to 101 and bent the curve's end down to the bottom.
    QVERIFY(near(928, 540 - 480 / 2, TrainingChartColors::kAverageLoss));
    // A validation point on the right edge (iteration 100, 40 %) has its figure inside the plot: no ink
    // between the plot's edge and the right axis's labels (the figure ran over the edge).
    test::writeFile(dir.filePath("edge.csv"),
                    "iteration,loss,avg_loss,lr,images_per_sec,elapsed_s,valid_top1,map50\n"
                    "50,2,2,0.001,100,1,0.2,\n100,2,2,0.001,100,2,0.4,\n");
    QVERIFY(!writeTrainingChart(dir.filePath("edge.csv").toStdString(), png, "toy", 100, 4));
    const cv::Mat edge = cv::imread(png);
    const int labelRow = 540 - 480 * 4 / 10 - 14; // the figure's middle, 10 px above the point
    for (int x = TrainingChartLayout::kRight + 1; x < TrainingChartLayout::kRight + 7; ++x)
        for (int y = labelRow - 6; y <= labelRow + 6; ++y)
            QVERIFY2(edge.at<cv::Vec3b>(y, x) == cv::Vec3b(255, 255, 255),
                     qPrintable(QString("ink at %1,%2").arg(x).arg(y)));
    const auto missing = writeTrainingChart(dir.filePath("none.csv").toStdString(), png, "toy", 100);
    QVERIFY(missing && missing->find("none.csv: cannot read it") != std::string::npos);
}

void TestTraining::imageListsAsDarknetReadsThem()
{
    QTemporaryDir dir;
    // A list given as a pipe (a FIFO, <(...)) is read whole: the first 4 KB, read to tell a binary file,
    // are lines of the list too (a first version read them apart and lost them).
    {
        const QString fifo = dir.filePath("list.fifo");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        std::thread writer([&] {
            std::ofstream out(fifo.toStdString());
            for (int i = 0; i < 1000; ++i) // 16 KB
                out << "images/" << 100000 + i << ".png\n";
        });
        const ImageListFile listed = readImageListFile(fifo.toStdString(), false);
        writer.join();
        QVERIFY2(listed.opened, listed.error.c_str());
        QCOMPARE(listed.images.size(), std::size_t(1000));
        QCOMPARE(listed.images.front().written, std::string("images/100000.png"));
        QCOMPARE(listed.images.back().line, std::size_t(1000));
    }
    // Two classes told apart by the path, as Darknet's classifier data: .../cat/..., .../dog/...
    QDir(dir.path()).mkpath("images/cat");
    QDir(dir.path()).mkpath("images/dog");
    QString list;
    for (int i = 0; i < 6; ++i)
        for (const char* animal : {"cat", "dog"}) {
            const bool cat = QString(animal) == "cat";
            const cv::Mat image(14, 20, CV_8UC3,
                                cat ? cv::Scalar(40, 60, 200) : cv::Scalar(200, 60, 40)); // BGR
            const QString path = dir.filePath(QString("images/%1/%2.png").arg(animal).arg(i));
            QVERIFY(cv::imwrite(path.toStdString(), image));
            list += path + "\n";
        }
    test::writeFile(dir.filePath("images/cat/broken.png"), "not an image");
    QDir(dir.path()).mkpath("images/other");
    QVERIFY(cv::imwrite(dir.filePath("images/other/x.png").toStdString(), cv::Mat(4, 4, CV_8UC3)));
    list += dir.filePath("images/cat/broken.png") + "\n";  // unreadable: skipped while loading
    list += dir.filePath("images/cat/missing.png") + "\n"; // does not exist: left out up front
    list += dir.filePath("images/other/x.png") + "\n";     // no label in the path: skipped
    QFile listFile(dir.filePath("train.list")), labels(dir.filePath("labels.txt")),
        data(dir.filePath("pets.data"));
    QVERIFY(listFile.open(QIODevice::WriteOnly) && labels.open(QIODevice::WriteOnly) &&
            data.open(QIODevice::WriteOnly));
    listFile.write(list.toUtf8());
    labels.write("cat\ndog\n");
    data.write("classes=2\ntrain=train.list\nvalid=train.list\nlabels=labels.txt\n");
    listFile.close();
    labels.close();
    data.close();

    std::string error;
    auto file = loadDataFile(data.fileName().toStdString(), error);
    QVERIFY2(file, error.c_str());
    NetConfig net;
    net.width = net.height = 8;
    net.channels = 3;
    net.hue = 0.1f;
    net.saturation = net.exposure = 1.5f;
    std::vector<std::string> warnings;
    auto train = openClassificationSet(*file, "train", net, 7, error, &warnings);
    QVERIFY2(train, error.c_str());
    QCOMPARE(train->size(), std::size_t(13));
    QCOMPARE(warnings.size(), std::size_t(2));
    QCOMPARE(warnings[0], dir.filePath("train.list").toStdString() +
                              ":14: " + dir.filePath("images/cat/missing.png").toStdString() +
                              " does not exist: left out");
    QVERIFY(warnings[1].find("train.list:15:") != std::string::npos);
    QVERIFY(warnings[1].find("contains 0 of the labels") != std::string::npos);
    QCOMPARE(train->label(0), 0);
    QCOMPARE(train->label(1), 1);
    std::vector<float> a(8 * 8 * 3), b(8 * 8 * 3);
    QVERIFY(train->image(0, a.data(), error));
    QVERIFY(a[0] > a[2 * 64]); // red cat: R plane brighter than B
    QVERIFY(train->image(0, b.data(), error));
    QVERIFY(a != b); // augmentation: two draws differ
    for (float v : a)
        QVERIFY(v >= 0 && v <= 1);
    QVERIFY(!train->image(12, a.data(), error)); // the file that is not an image
    QVERIFY2(error.find("broken.png: cannot read the image") != std::string::npos, error.c_str());
    {
        // Training over the list: the missing image is skipped (another takes its place), named in one
        // warning (not again each epoch: it comes up in each of the 3 iterations) and counted at the end.
        std::string netError;
        auto small = Net::create(test::specFromText("[net]\nbatch=13\nwidth=8\nheight=8\nchannels=3\n"
                                                    "max_batches=3\n[connected]\noutput=2\n"
                                                    "activation=linear\n[softmax]\n"),
                                 13, netError);
        QVERIFY2(small, netError.c_str());
        TrainOptions options;
        options.name = "pets";
        options.outDir = dir.filePath("run").toStdString();
        Quiet quiet;
        const auto problem = Trainer(*small, *train, nullptr, options).run(quiet);
        QVERIFY2(!problem, problem ? problem->c_str() : "");
        QCOMPARE(std::count_if(quiet.messages.begin(), quiet.messages.end(),
                               [](const std::string& m) {
                                   return m.starts_with("warning: ") &&
                                          m.find("broken.png") != std::string::npos;
                               }),
                 1L);
        QVERIFY(
            std::find(quiet.messages.begin(), quiet.messages.end(),
                      "3 samples of 1 unreadable image skipped in this run (named in the warnings above)") !=
            quiet.messages.end());
    }
    auto valid = openClassificationSet(*file, "valid", net, 7, error);
    QVERIFY(valid->image(0, a.data(), error) && valid->image(0, b.data(), error));
    QVERIFY(a == b); // validation images are not augmented

    QFile broken(dir.filePath("broken.data"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("classes=3\ntrain=train.list\nlabels=labels.txt\n");
    broken.close();
    file = loadDataFile(broken.fileName().toStdString(), error);
    QVERIFY(!openClassificationSet(*file, "train", net, 7, error));
    QCOMPARE(error, dir.filePath("labels.txt").toStdString() + ": 2 labels but classes=3 in " +
                        broken.fileName().toStdString() +
                        " (line 1): one label per line for each class, or classes= set to the labels' count");
    // A blank line among the labels: Darknet counts it as a class, so it is named rather than dropped
    // (train dropped it while classify kept it: names one off); trailing blank lines and spaces are fine.
    // A misspelt classes= is named with its line (it read as none at all).
    test::writeFile(dir.filePath("typo.data"), "train=train.list\nclases=2\n");
    QVERIFY(!loadDataFile(dir.filePath("typo.data").toStdString(), error));
    QCOMPARE(error, dir.filePath("typo.data").toStdString() +
                        ": classes= is missing or not a positive number (line 2 says clases=: did you mean "
                        "classes?)");
    // Lines that end in a lone CR (an old Mac file), in a .data file, a list and a names file: named as
    // such (they read as one line: "no train= entry", one path of every image, "1 names" of three).
    const std::string loneCr = ": its lines end in a lone CR (an old Mac file): convert them to LF";
    test::writeFile(dir.filePath("mac.data"), "classes=2\rtrain=train.list\rnames=labels.txt\r");
    QVERIFY(!loadDataFile(dir.filePath("mac.data").toStdString(), error));
    QVERIFY2(error.starts_with(dir.filePath("mac.data").toStdString() + loneCr), error.c_str());
    test::writeFile(
        dir.filePath("mac.list"),
        (dir.filePath("images/cat/a.png") + "\r" + dir.filePath("images/cat/b.png") + "\r").toUtf8());
    const ImageListFile macList = readImageListFile(dir.filePath("mac.list").toStdString(), true);
    QVERIFY(!macList.opened);
    QVERIFY2(macList.error.starts_with(dir.filePath("mac.list").toStdString() + loneCr),
             macList.error.c_str());
    test::writeFile(dir.filePath("mac.names"), "cat\rdog\rbird\r");
    QVERIFY(!loadNames(dir.filePath("mac.names").toStdString(), error, "a names file"));
    QVERIFY2(error.starts_with(dir.filePath("mac.names").toStdString() + loneCr), error.c_str());
    test::writeFile(dir.filePath("windows.names"), "cat\r\ndog\r\r\n"); // (CRLF is fine, CR CR LF too)
    QVERIFY2(loadNames(dir.filePath("windows.names").toStdString(), error, "a names file"), error.c_str());
    test::writeFile(dir.filePath("mixed.names"), "cat\r\ndog\rbird\r\n"); // (a CR mid-line: said so)
    QVERIFY(!loadNames(dir.filePath("mixed.names").toStdString(), error, "a names file"));
    QVERIFY2(error.starts_with(dir.filePath("mixed.names").toStdString() +
                               ": a CR (carriage return) in the "
                               "middle of a line: remove the CRs"),
             error.c_str());
    // An empty value is said on its line ("no train= entry" of a file that has one).
    test::writeFile(dir.filePath("empty.data"), "classes=2\ntrain=\n");
    const auto emptyTrain = loadDataFile(dir.filePath("empty.data").toStdString(), error);
    QVERIFY2(emptyTrain, error.c_str());
    QVERIFY(!emptyTrain->existingFile("train", error));
    QCOMPARE(error, dir.filePath("empty.data").toStdString() + ":2: train= is empty");
    QVERIFY(!emptyTrain->existingFile("valid", error));
    QCOMPARE(error, dir.filePath("empty.data").toStdString() + ": no valid= entry");
    test::writeFile(dir.filePath("typo.data"), "classes=0\n");
    QVERIFY(!loadDataFile(dir.filePath("typo.data").toStdString(), error));
    QCOMPARE(error, dir.filePath("typo.data").toStdString() +
                        ":1: classes=0 is not a whole number from 1 to 2147483647");
    test::writeFile(dir.filePath("typo.data"), "classes=99999999999\n"); // (positive, but no int)
    QVERIFY(!loadDataFile(dir.filePath("typo.data").toStdString(), error));
    QCOMPARE(error, dir.filePath("typo.data").toStdString() +
                        ":1: classes=99999999999 is not a whole number from 1 to 2147483647");
    test::writeFile(dir.filePath("blank.data"), "classes=2\ntrain=train.list\nlabels=blank.txt\n");
    test::writeFile(dir.filePath("blank.txt"), "cat\n\ndog\n");
    file = loadDataFile(dir.filePath("blank.data").toStdString(), error);
    QVERIFY(!openClassificationSet(*file, "train", net, 7, error));
    QVERIFY2(error == dir.filePath("blank.txt").toStdString() +
                          ":2: a blank line among the class names: Darknet counts it as a class without a "
                          "name, and every class after it moves by one; remove the line",
             error.c_str());
    test::writeFile(dir.filePath("blank.txt"), "cat \r\ndog\r\n\r\n\n");
    QVERIFY2(openClassificationSet(*file, "train", net, 7, error), error.c_str());
    const auto trimmed = loadNames(dir.filePath("blank.txt").toStdString(), error);
    QVERIFY(trimmed && *trimmed == std::vector<std::string>({"cat", "dog"}));

    // One class (a binary classifier): a path without the label is a negative with all-zero truth, as
    // Darknet's fill_truth allows for k = 1; nothing is skipped.
    QFile single(dir.filePath("cat.data")), catLabel(dir.filePath("cat.txt"));
    QVERIFY(single.open(QIODevice::WriteOnly) && catLabel.open(QIODevice::WriteOnly));
    single.write("classes=1\ntrain=train.list\nlabels=cat.txt\n");
    catLabel.write("cat\n");
    single.close();
    catLabel.close();
    file = loadDataFile(single.fileName().toStdString(), error);
    QVERIFY2(file, error.c_str());
    warnings.clear();
    auto cats = openClassificationSet(*file, "train", net, 7, error, &warnings);
    QVERIFY2(cats, error.c_str());
    QCOMPARE(cats->size(), std::size_t(14));
    QCOMPARE(warnings.size(), std::size_t(1)); // the missing image only
    QVERIFY(warnings[0].find("missing.png does not exist") != std::string::npos);
    {
        // valid= naming the training list: its warnings are said once, not again for validation.
        QFile both(dir.filePath("both.data"));
        QVERIFY(both.open(QIODevice::WriteOnly));
        both.write("classes=1\ntrain=train.list\nvalid=train.list\nlabels=cat.txt\n");
        both.close();
        const auto bothFile = loadDataFile(both.fileName().toStdString(), error);
        QVERIFY2(bothFile, error.c_str());
        const NetworkSpec classifier =
            test::specFromText("[net]\nwidth=8\nheight=8\nchannels=3\n[connected]\noutput=1\n[logistic]\n");
        std::vector<std::string> once;
        const auto sets = openTrainingData(*bothFile, classifier, 7, error, once);
        QVERIFY2(sets && sets->valid, error.c_str());
        // The missing image once, and that the accuracy is measured on the training images.
        QCOMPARE(once.size(), std::size_t(2));
        QVERIFY(once[0].find("missing.png does not exist") != std::string::npos);
        QVERIFY2(once[1].find("valid= is the training list (train=train.list): accuracy is measured on "
                              "images the network learns from") != std::string::npos,
                 once[1].c_str());
        // …however valid= spells it.
        QVERIFY(both.open(QIODevice::WriteOnly));
        both.write("classes=1\ntrain=train.list\nvalid=" + dir.filePath("train.list").toUtf8() +
                   "\nlabels=cat.txt\n");
        both.close();
        const auto spelled = loadDataFile(both.fileName().toStdString(), error);
        QVERIFY2(spelled, error.c_str());
        once.clear();
        QVERIFY2(openTrainingData(*spelled, classifier, 7, error, once), error.c_str());
        QCOMPARE(once.size(), std::size_t(2));
    }
    QCOMPARE(cats->label(0), 0);  // images/cat/0.png
    QCOMPARE(cats->label(1), -1); // images/dog/0.png
    std::mt19937 random(2);
    float truth = 5;
    QVERIFY(cats->sample(1, random, 8, 8, a.data(), &truth, error));
    QCOMPARE(truth, 5.0f); // untouched: the loader's buffer starts at zero
    QVERIFY(cats->sample(0, random, 8, 8, a.data(), &truth, error));
    QCOMPARE(truth, 1.0f);
    // …but a label no path contains (a typo, another case) is refused, not trained as all negatives.
    QFile birdLabel(dir.filePath("cat.txt"));
    QVERIFY(birdLabel.open(QIODevice::WriteOnly));
    birdLabel.write("Cat\n");
    birdLabel.close();
    QVERIFY(!openClassificationSet(*file, "train", net, 7, error));
    QVERIFY2(error.find("no image path contains the label 'Cat'") != std::string::npos, error.c_str());
}

// A list's relative paths are found beside the list from any working folder; a label inside another
// ("cat" in "bobcat") is named in the warning, and a class left without images is said once; a
// channels= the loader cannot give is refused up front (it failed as "samples could not be read").
void TestTraining::classifierListsSayWhatTheyLeaveOut()
{
    QTemporaryDir dir;
    QDir(dir.path()).mkpath("imgs/cat");
    QDir(dir.path()).mkpath("imgs/bobcat");
    QString list;
    for (int i = 0; i < 3; ++i)
        for (const char* animal : {"cat", "bobcat"}) {
            const QString relative = QString("imgs/%1/%2.png").arg(animal).arg(i);
            QVERIFY(cv::imwrite(dir.filePath(relative).toStdString(),
                                cv::Mat(8, 8, CV_8UC3, cv::Scalar(9, 9, 9))));
            list += relative + "\r\n";
        }
    test::writeFile(dir.filePath("train.list"), list.toUtf8());
    test::writeFile(dir.filePath("labels.txt"), "cat\nbobcat\n");
    test::writeFile(dir.filePath("pets.data"), "classes=2\ntrain=train.list\nlabels=labels.txt\n");
    std::string error;
    auto file = loadDataFile(dir.filePath("pets.data").toStdString(), error);
    QVERIFY2(file, error.c_str());
    NetConfig net;
    net.width = net.height = 8;
    net.channels = 3;
    std::vector<std::string> warnings;
    auto set = openClassificationSet(*file, "train", net, 1, error, &warnings); // (from the test's folder)
    QVERIFY2(set, error.c_str());
    QCOMPARE(set->size(), std::size_t(3));
    std::vector<float> pixels(8 * 8 * 3);
    QVERIFY2(set->image(0, pixels.data(), error), error.c_str()); // imgs/cat/0.png, beside the list
    QCOMPARE(warnings.size(), std::size_t(4));
    // The lost class first (a set without it trains and scores as if whole), then the lines skipped.
    QCOMPARE(warnings[0],
             dir.filePath("labels.txt").toStdString() + ": 1 of 2 classes has no image in " +
                 dir.filePath("train.list").toStdString() +
                 ": 'bobcat' (line 2); nothing of them is learnt (train=) or scored (valid=) from "
                 "this list");
    QCOMPARE(warnings[1], dir.filePath("train.list").toStdString() +
                              ":2: imgs/bobcat/0.png contains 2 of the labels ('cat' and 'bobcat'; a label "
                              "that is part of another, or of a folder name, matches both) (exactly one is "
                              "needed); skipped");
    // Every image left is a cat: training refuses (it learnt nothing and scored "valid top-1 100.00%").
    const NetworkSpec classifier = test::specFromText(
        "[net]\nwidth=8\nheight=8\nchannels=3\n\n[connected]\noutput=2\n\n[softmax]\n", "pets.cfg");
    std::vector<std::string> trainWarnings;
    QVERIFY(!openTrainingData(*file, classifier, 1, error, trainWarnings));
    QCOMPARE(error,
             "train.list: every training image is of class 0 ('cat'), of 2: a classifier learns nothing "
             "from one class (and would score 100 % on a list alike); the warnings above name the "
             "classes without images (and the lines skipped, if any)");

    // Thirteen lines skipped: ten named, the rest counted in one line; a label found only when
    // case is ignored (Darknet matches as written) says so.
    QVERIFY(
        cv::imwrite(dir.filePath("imgs/Cat.png").toStdString(), cv::Mat(8, 8, CV_8UC3, cv::Scalar(9, 9, 9))));
    test::writeFile(dir.filePath("train.list"),
                    (QString("imgs/Cat.png\n") + list + list + list + list).toUtf8());
    warnings.clear();
    QVERIFY2(openClassificationSet(*file, "train", net, 1, error, &warnings), error.c_str());
    QCOMPARE(warnings.size(), std::size_t(12)); // the class without images, 10 lines, the rest
    QCOMPARE(warnings[1],
             dir.filePath("train.list").toStdString() +
                 ":1: imgs/Cat.png contains 0 of the labels ('cat' only when case is ignored: labels "
                 "match as written, as Darknet's do) (exactly one is needed); skipped");
    QCOMPARE(warnings[11], dir.filePath("train.list").toStdString() +
                               ": and 3 more lines skipped alike (none or several of the labels in their "
                               "paths); 13 of 25 in all");

    // A label written with a space before it (" cat") matches no path: the space is named.
    test::writeFile(dir.filePath("labels.txt"), " cat\nbobcat\n");
    test::writeFile(dir.filePath("train.list"), list.toUtf8());
    warnings.clear();
    QVERIFY2(openClassificationSet(*file, "train", net, 1, error, &warnings), error.c_str());
    QCOMPARE(warnings.size(), std::size_t(4)); // ' cat' without images, its three lines
    QCOMPARE(warnings[0], dir.filePath("labels.txt").toStdString() + ": 1 of 2 classes has no image in " +
                              dir.filePath("train.list").toStdString() +
                              ": ' cat' (line 1, a space before it); nothing of them is learnt (train=) or "
                              "scored (valid=) from this list");
    QCOMPARE(warnings[1], dir.filePath("train.list").toStdString() +
                              ":1: imgs/cat/0.png contains 0 of the labels ('cat' only without the space "
                              "before it on line 1 of " +
                              dir.filePath("labels.txt").toStdString() +
                              ": labels match as written, spaces too, as Darknet's do) (exactly one is "
                              "needed); skipped");
    test::writeFile(dir.filePath("labels.txt"), "cat\nbobcat\n");

    // A list written on Windows names its separator as the reason its images are missing.
    test::writeFile(dir.filePath("windows.list"),
                    "imgs\\cat\\0.png\r\nimgs/cat/1.png\r\nimgs\\cat\\2.png\r\n");
    const ImageListFile windows = readImageListFile(dir.filePath("windows.list").toStdString(), true);
    QCOMPARE(windows.missing, std::size_t(2));
    QVERIFY2(
        windows.missingText.ends_with("; 2 of the missing paths are written with '\\', Windows' separator: "
                                      "write '/' (Darknet on Linux reads '\\' as part of a name too)"),
        windows.missingText.c_str());

    // A label given twice: named with its lines (each path with it was said to contain 2 of the labels).
    test::writeFile(dir.filePath("labels.txt"), "cat\nbobcat\ncat\n");
    test::writeFile(dir.filePath("pets.data"), "classes=3\ntrain=train.list\nlabels=labels.txt\n");
    file = loadDataFile(dir.filePath("pets.data").toStdString(), error);
    QVERIFY2(file, error.c_str());
    QVERIFY(!openClassificationSet(*file, "train", net, 1, error));
    QCOMPARE(error, dir.filePath("labels.txt").toStdString() +
                        ":3: the label 'cat' is line 1's too: each class needs a name of its own (an image's "
                        "class is the label its path contains)");

    net.channels = 4;
    QVERIFY(!openClassificationSet(*file, "train", net, 1, error));
    QCOMPARE(error, std::string("image lists need channels=1 (grey) or 3 (colour) in [net], not 4"));
}

// Darknet's top_k ranks equal scores by class index: an untrained network giving every class the same
// score is right only for class 0 (every image counted right before); a NaN output is wrong.
void TestTraining::accuracyCountsTiesAndNanAsDarknet()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 30); // 3 classes
    QVERIFY(set);
    std::string error;
    auto net = Net::create(test::specFromText("[net]\nbatch=4\nwidth=6\nheight=6\nchannels=1\n"
                                              "[connected]\noutput=3\nactivation=linear\n[softmax]\n"),
                           4, error);
    QVERIFY2(net, error.c_str());
    for (const WeightArray& array : net->weightArrays())
        std::fill(array.data->begin(), array.data->end(), 0.0f); // every class 1/3
    std::size_t classZero = 0;
    for (std::size_t i = 0; i < set->size(); ++i)
        classZero += set->label(i) == 0;
    QVERIFY(classZero > 0 && classZero < set->size());
    Accuracy accuracy = evaluate(*net, *set, {}, 2);
    QCOMPARE(accuracy.images, set->size());
    QCOMPARE(accuracy.top1, double(classZero) / double(set->size()));
    std::size_t firstTwo = 0;
    for (std::size_t i = 0; i < set->size(); ++i)
        firstTwo += set->label(i) <= 1;
    QCOMPARE(accuracy.topK, double(firstTwo) / double(set->size()));
    // Every image taken for class 0: its column holds each class's count, and the other classes are
    // neither found nor ever chosen.
    const ConfusionMatrix& m = accuracy.confusion;
    QCOMPARE(m.classes(), 3);
    QCOMPARE(m.images(), set->size());
    std::size_t of[3] = {};
    for (std::size_t i = 0; i < set->size(); ++i)
        ++of[set->label(i)];
    for (int t = 0; t < 3; ++t) {
        QCOMPARE(m.imagesOf(t), of[t]);
        QCOMPARE(m.count(t, 0), of[t]);
        QCOMPARE(m.count(t, 1) + m.count(t, 2), std::size_t(0));
    }
    QCOMPARE(m.recall(0).value_or(-1), 1.0);
    QCOMPARE(m.recall(1).value_or(-1), 0.0);
    QCOMPARE(m.precision(0).value_or(-1), double(classZero) / double(set->size()));
    QVERIFY(!m.precision(1) && !m.precision(2));
    const auto confused = m.mostConfused(5);
    QCOMPARE(confused.size(), std::size_t(2));
    const int bigger = of[1] >= of[2] ? 1 : 2;
    QCOMPARE(confused[0].truth, bigger);
    QCOMPARE(confused[0].chosen, 0);
    QCOMPARE(confused[0].count, of[bigger]);
    QCOMPARE(confused[1].count, of[3 - bigger]);

    (*net->weightArrays()[0].data)[0] = std::numeric_limits<float>::quiet_NaN(); // NaN through the softmax
    accuracy = evaluate(*net, *set);
    QCOMPARE(accuracy.top1, 0.0);
    QCOMPARE(accuracy.topK, 0.0);
    QCOMPARE(accuracy.confusion.undecided(), set->size()); // no class chosen: none in the matrix
    QCOMPARE(accuracy.confusion.count(0, 0), std::size_t(0));
    QCOMPARE(accuracy.confusion.recall(0).value_or(-1), 0.0);
}

// A binary classifier (one output, a one-class set whose negatives are −1): its matrix has the class and
// "not" it, every image counted (the negatives were dropped: precision 1 for a network that says yes to
// everything), and its diagonal is top-1.
void TestTraining::binaryClassifierConfusionCountsItsNegatives()
{
    class OneClass : public ClassificationDataset {
    public:
        std::size_t size() const override { return 10; }
        int width() const override { return 2; }
        int height() const override { return 2; }
        int channels() const override { return 1; }
        int classes() const override { return 1; }
        int label(std::size_t i) const override { return i % 3 == 0 ? 0 : -1; } // 4 positives
        bool image(std::size_t, float* out, std::string&) const override
        {
            std::fill(out, out + 4, 0.5f);
            return true;
        }
    } set;
    std::string error;
    auto net = Net::create(test::specFromText("[net]\nbatch=3\nwidth=2\nheight=2\nchannels=1\n"
                                              "[connected]\noutput=1\nactivation=linear\n[logistic]\n"),
                           3, error);
    QVERIFY2(net, error.c_str());
    for (const WeightArray& array : net->weightArrays())
        std::fill(array.data->begin(), array.data->end(), 0.0f); // ½ for every image: "yes"
    const Accuracy accuracy = evaluate(*net, set);
    const ConfusionMatrix& m = accuracy.confusion;
    QCOMPARE(m.classes(), 2);
    QCOMPARE(m.images(), accuracy.images);
    QCOMPARE(m.imagesOf(0), std::size_t(4));
    QCOMPARE(m.imagesOf(1), std::size_t(6));
    QCOMPARE(m.count(1, 0), std::size_t(6));
    QCOMPARE(m.precision(0).value_or(-1), 0.4);
    QCOMPARE(double(m.count(0, 0) + m.count(1, 1)) / 10, accuracy.top1);
    QCOMPARE(confusionClassNames({"cat"}, 2), std::vector<std::string>({"cat", "not cat"}));
    QCOMPARE(confusionClassNames({"a"}, 3), std::vector<std::string>({"a", "class 1", "class 2"}));
}

// Over 1024 classes only each class's figures are kept (ImageNet-22k's cells would take 3.8 GB): recall
// and precision still, the cells off the diagonal not.
void TestTraining::largeConfusionKeepsEachClassesFigures()
{
    ConfusionMatrix m(ConfusionMatrix::kLargestWithCells + 1);
    QVERIFY(!m.hasCells());
    m.add(5, 5, 3);
    m.add(5, 7);
    m.addUndecided(5);
    QCOMPARE(m.count(5, 5), std::size_t(3));
    QCOMPARE(m.count(5, 7), std::size_t(0));
    QCOMPARE(m.imagesOf(5), std::size_t(5));
    QCOMPARE(m.recall(5).value_or(-1), 0.6);
    QCOMPARE(m.precision(7).value_or(-1), 0.0);
    QVERIFY(m.mostConfused(5).empty() && !m.mostOftenTakenFor(5));
    ConfusionMatrix small(3);
    small.add(0, 2, 2);
    small.add(0, 1);
    QCOMPARE(small.mostOftenTakenFor(0).value_or(-1), 2);
}

// valid's class column: a long name is cut at a character with "…" in its last column (it pushed the
// row's figures out of line), by terminal columns (a CJK character takes two).
void TestTraining::classNamesFitTheirColumns()
{
    QCOMPARE(fittedToColumns("Coat", 6), std::string("Coat  "));
    QCOMPARE(fittedToColumns("Coat with a very long name", 10), std::string("Coat with…"));
    QCOMPARE(fittedToColumns("\u56db\u89d2\u5f62\u56db", 6),
             std::string("\u56db\u89d2… ")); // 4 + 1, padded to 6
    QCOMPARE(terminalColumns(fittedToColumns("Stern \u00e4 und noch mehr", 8)), 8);
}

// The class a classifier's scores choose, as top-1 counts it: the first of equal highest scores, a
// single score as a binary classifier's class 0 from ½ up; none with a NaN.
void TestTraining::chosenClassIsTopOne()
{
    const float scores[] = {0.1f, 0.4f, 0.4f, 0.1f};
    QCOMPARE(chosenClass(scores, 4).value_or(-1), 1);
    QCOMPARE(chosenClass(scores, 1).value_or(-1), 1); // 0.1 < ½: class 1
    const float half = 0.5f;
    QCOMPARE(chosenClass(&half, 1).value_or(-1), 0);
    const float nan[] = {0.2f, std::numeric_limits<float>::quiet_NaN()};
    QVERIFY(!chosenClass(nan, 2));
    QVERIFY(!chosenClass(scores, 0));
    // Cells outside the classes are ignored, not written past the matrix.
    ConfusionMatrix m(2);
    m.add(2, 0);
    m.add(0, -1);
    m.add(1, 0);
    QCOMPARE(m.images(), std::size_t(1));
    QCOMPARE(m.precision(0).value_or(-1), 0.0);
    QCOMPARE(m.recall(1).value_or(-1), 0.0);
    QVERIFY(!m.recall(0));
}

// A validation set whose images are not the network's size is refused before training (its images
// were written past the input buffer: a crash in the last validation) and by valid.
void TestTraining::validationImagesOfAnotherSizeAreRefused()
{
    QTemporaryDir dir;
    auto train = toySet(dir, 12); // 6×6
    QVERIFY(train);
    writeIdx(dir.filePath("big-images"), 0x803, {4, 12, 12}, std::vector<unsigned char>(4 * 144, 7), false);
    writeIdx(dir.filePath("big-labels"), 0x801, {4}, {0, 1, 2, 0}, false);
    std::string error;
    auto valid = loadIdxDataset(dir.filePath("big-images").toStdString(),
                                dir.filePath("big-labels").toStdString(), 3, error);
    QVERIFY2(valid, error.c_str());
    auto net = Net::create(test::specFromText("[net]\nbatch=4\nwidth=6\nheight=6\nchannels=1\nmax_batches=2\n"
                                              "[connected]\noutput=3\nactivation=linear\n[softmax]\n"),
                           4, error);
    QVERIFY2(net, error.c_str());
    Quiet quiet;
    const auto problem = Trainer(*net, *train, valid.get(), toyOptions(dir)).run(quiet);
    QVERIFY(problem);
    QCOMPARE(*problem, std::string("the validation set: the images are 12x12x1 but the network's input is "
                                   "6x6x1: change width/height/channels in [net]"));
    QVERIFY(quiet.seen.empty());
}

void TestTraining::angleRotatesTrainingImages()
{
    // A uniform grey 16×16 image as a 16×16 net sees it: unrotated, every pixel is grey; turned by up
    // to ±60°, the centre stays grey and the corners fall outside the image (black).
    QTemporaryDir dir;
    const cv::Mat grey(16, 16, CV_8UC1, cv::Scalar(128));
    Augmentation augmentation;
    augmentation.enabled = true;
    augmentation.flip = false;
    auto plain = oneImageSet(dir, grey, 1, augmentation);
    QVERIFY(plain);
    augmentation.angle = 60;
    auto turned = oneImageSet(dir, grey, 1, augmentation);
    QVERIFY(turned);
    std::string error;
    std::vector<float> pixels(256);
    QVERIFY(plain->image(0, pixels.data(), error));
    for (float v : pixels)
        QVERIFY(std::fabs(v - 128 / 255.0f) < 1e-3f);
    int blackCorners = 0;
    for (int sample = 0; sample < 8; ++sample) {
        QVERIFY(turned->image(0, pixels.data(), error));
        QVERIFY(std::fabs(pixels[8 * 16 + 8] - 128 / 255.0f) < 1e-3f); // the centre
        blackCorners += pixels[0] < 0.05f;
    }
    QVERIFY2(blackCorners >= 2, qPrintable(QString::number(blackCorners))); // most turns uncover a corner
}

// aspect=.75 (pjreddie's classifier cfgs) stretches the width by rand_scale(.75), as much as 1.333; it
// was taken as 1 (only values over 1 counted). Vertical stripes of 2 pixels, scaled wider, change.
void TestTraining::aspectBelowOneStretchesTheWidth()
{
    QTemporaryDir dir;
    cv::Mat stripes(16, 16, CV_8UC1);
    for (int x = 0; x < 16; ++x)
        stripes.col(x).setTo(x / 2 % 2 ? 255 : 0);
    Augmentation augmentation;
    augmentation.enabled = true;
    augmentation.flip = false;
    augmentation.aspect = 0.75f;
    auto set = oneImageSet(dir, stripes, 1, augmentation);
    QVERIFY(set);
    std::string error;
    std::vector<float> pixels(256);
    int asIs = 0, stretched = 0;
    for (int sample = 0; sample < 24; ++sample) {
        QVERIFY(set->image(0, pixels.data(), error));
        bool same = true;
        for (int x = 0; x < 16; ++x)
            same = same && std::fabs(pixels[std::size_t(x)] - (x / 2 % 2 ? 1.0f : 0.0f)) < 1e-3f;
        (same ? asIs : stretched) += 1;
    }
    QVERIFY2(asIs > 0 && stretched > 0,
             qPrintable(QString("%1 as is, %2 stretched").arg(asIs).arg(stretched)));
}

// Darknet's distort_image scales value without a clamp and clamps only the RGB result: (128, 64, 64)
// made 2.5× as bright is (255, 160, 160), not (255, 128, 128). Each sample keeps R = min(1, 2·G).
void TestTraining::exposureLiftsTheOtherChannelsAsDarknets()
{
    QTemporaryDir dir;
    Augmentation augmentation;
    augmentation.enabled = true;
    augmentation.flip = false;
    augmentation.exposure = 2.5f;
    auto set = oneImageSet(dir, cv::Mat(16, 16, CV_8UC3, cv::Scalar(64, 64, 128)), 3, augmentation); // BGR
    QVERIFY(set);
    std::string error;
    std::vector<float> pixels(3 * 256);
    float brightestGreen = 0;
    for (int sample = 0; sample < 24; ++sample) {
        QVERIFY(set->image(0, pixels.data(), error));
        const float r = pixels[0], g = pixels[256], b = pixels[512];
        QVERIFY2(std::fabs(g - b) < 1e-4f && std::fabs(r - std::min(1.0f, 2 * g)) < 1e-2f,
                 qPrintable(QString("%1 %2 %3").arg(r).arg(g).arg(b)));
        brightestGreen = std::max(brightestGreen, g);
    }
    QVERIFY2(brightestGreen > 0.55f, qPrintable(QString::number(brightestGreen)));
}

// A failure inside an iteration (the GPU running out of memory, say) ends the run with a message naming
// the iteration and the checkpoint that stays on disk, whole, and resumable.
void TestTraining::failureMidRunEndsInWordsWithTheCheckpointKept()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 16);
    QVERIFY(set);
    TrainOptions options = toyOptions(dir);
    options.checkpointEvery = 2;
    auto net = toyNet();
    FailsAt fails(4);
    const auto problem = Trainer(*net, *set, nullptr, options).run(fails);
    QVERIFY(problem);
    QCOMPARE(*problem,
             "training stopped in iteration 4: out of GPU memory in allocating GPU memory; the last "
             "checkpoint (iteration 2) is kept in " +
                 options.outDir);
    TrainState state;
    QVERIFY(!loadCheckpoint(options.outDir + "/toy_last.state", *net, state));
    QCOMPARE(state.iteration, 2);
    options.resume = true;
    Quiet quiet;
    QVERIFY(!Trainer(*net, *set, nullptr, options).run(quiet));
    QCOMPARE(quiet.seen.front().iteration, 3);
}

// metrics.csv when its folder cannot take a row for a while (a full disk; here the folder is missing,
// which fails as root too): the rows wait, one warning says so, and all are written once there is room.
void TestTraining::metricsRowsWaitOutASpellWithoutRoom()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("later/metrics.csv").toStdString();
    MetricsLog log(path);
    const auto first = log.append("1,2.5\n");
    QVERIFY(first);
    QVERIFY2(first->starts_with("warning: cannot write " + path +
                                " (No such file or directory): its rows are kept"),
             first->c_str());
    QCOMPARE(log.append("2,2.4\n"), std::optional<std::string>()); // said once
    QCOMPARE(log.waitingRows(), 2);
    QVERIFY(QDir(dir.path()).mkdir("later"));
    QCOMPARE(log.append("3,2.3\n"),
             std::optional<std::string>(path + ": the 3 rows that waited are written"));
    QCOMPARE(log.waitingRows(), 0);
    QCOMPARE(log.append("4,2.2\n"), std::optional<std::string>());
    QCOMPARE(test::readAll(QString::fromStdString(path)), QByteArray("1,2.5\n2,2.4\n3,2.3\n4,2.2\n"));
    // Before a checkpoint the rows that wait are tried at once (the checkpoint's row must be in the file).
    QVERIFY(QDir(dir.path()).rename("later", "moved"));
    QVERIFY(log.append("5,2.1\n"));                      // a new spell: said again
    QCOMPARE(log.flush(), std::optional<std::string>()); // still no room: said once already
    QVERIFY(QDir(dir.path()).rename("moved", "later"));
    QCOMPARE(log.flush(), std::optional<std::string>(path + ": the row that waited is written"));
    QCOMPARE(log.waitingRows(), 0);
}

// A checkpoint refused for a while (a full disk; here a folder in the state file's place, which fails as
// root too) is a warning that names what is kept; the run goes on, and the next checkpoint is written.
void TestTraining::aCheckpointThatCannotBeWrittenIsTriedAgain()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 16);
    QVERIFY(set);
    TrainOptions options = toyOptions(dir);
    options.checkpointEvery = 2;
    options.maxBatches = 6;
    Blocking observer(dir.filePath("out/toy_last.state"), 1, 3);
    auto net = toyNet();
    QCOMPARE(Trainer(*net, *set, nullptr, options).run(observer), std::optional<std::string>());
    const auto warning =
        std::find_if(observer.messages.begin(), observer.messages.end(), [](const std::string& m) {
            return m.starts_with("warning: the checkpoint at iteration 2 could not be written: ");
        });
    QVERIFY(warning != observer.messages.end());
    // (its _last.weights was written: named with its iteration, not left to pass for a checkpoint)
    QVERIFY2(warning->ends_with("/out/toy_last.weights holds the weights of iteration 2 (without the state a "
                                "resume needs); no checkpoint was written in this run; training goes on and "
                                "tries again at iteration 4"),
             warning->c_str());
    TrainState state;
    QVERIFY(!loadCheckpoint(options.outDir + "/toy_last.state", *net, state));
    QCOMPARE(state.iteration, 6);
    // Refused at the last iteration (a disk full at the end): the run ends with the error, but the final
    // weights, smaller than a checkpoint, are still written (they were not tried).
    options.outDir = dir.filePath("end").toStdString();
    Blocking atTheEnd(dir.filePath("end/toy_last.state"), 6);
    const auto ended = Trainer(*toyNet(), *set, nullptr, options).run(atTheEnd);
    QVERIFY(ended);
    QVERIFY2(ended->ends_with("; the final weights are in " + options.outDir + "/toy_final.weights"),
             ended->c_str());
    QVERIFY(QFileInfo(dir.filePath("end/toy_final.weights")).size() > 0);
}

// _best.weights refused (a full disk; here a folder in its place) is a warning, as a checkpoint is: the
// run went on to its end (it ended at the first better validation, losing what was learnt since).
void TestTraining::bestWeightsThatCannotBeWrittenAreAWarning()
{
    QTemporaryDir dir;
    auto set = toySet(dir, 16);
    QVERIFY(set);
    TrainOptions options = toyOptions(dir);
    options.maxBatches = 8;
    options.validEvery = 1;
    Blocking observer(dir.filePath("out/toy_best.weights"), 1); // after the first best, to the end
    auto net = toyNet();
    QCOMPARE(Trainer(*net, *set, set.get(), options).run(observer), std::optional<std::string>());
    QCOMPARE(observer.seen.back().iteration, 8);
    const long refused =
        std::count_if(observer.messages.begin(), observer.messages.end(), [](const std::string& m) {
            return m.starts_with("warning: iteration ") &&
                   m.find(": the best weights so far (") != std::string::npos &&
                   m.ends_with("; training goes on");
        });
    QVERIFY2(refused >= 1, "no later validation beat the first: the test needs one");
    TrainState state;
    QVERIFY(!loadCheckpoint(options.outDir + "/toy_last.state", *net, state));
    QCOMPARE(state.iteration, 8);
}

QTEST_GUILESS_MAIN(TestTraining)
#include "test_training.moc"
