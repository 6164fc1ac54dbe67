#include "train/train_worker.h"

#include "cfg/document.h"
#include "data/training_data.h"
#include "layers/detection_heads.h"

#include "train/child_training.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QTemporaryDir>
#include <optional>
#include <utility>

namespace nw::ui {

class WorkerObserver final : public TrainObserver {
public:
    explicit WorkerObserver(TrainWorker& worker) : worker_(worker) { sinceEmit_.start(); }

    void iteration(const IterationStats& stats) override
    {
        // Throttle: at most one progress signal per 50 ms, but never drop a validation point or the end.
        // The iteration held before this one is a point of the curves only, sent with the next signal.
        if (pending_)
            heldBack_.push_back(curvePoint(*std::exchange(pending_, std::nullopt)));
        if (stats.validTop1 || stats.map50 || stats.iteration == stats.maxBatches ||
            sinceEmit_.elapsed() >= 50) {
            emitHeldBack();
            emit worker_.progress(stats);
            sinceEmit_.restart();
        } else {
            pending_ = stats;
        }
        lastIteration_ = stats.iteration;
    }
    void message(const std::string& text) override
    {
        flush(); // the iteration held back comes first ("evaluating at iteration N" follows N − 1)
        emit worker_.message(QString::fromStdString(text));
    }
    // The iteration the throttle held back, shown now (a pause, the end).
    void flush()
    {
        if (pending_) {
            emitHeldBack();
            emit worker_.progress(*pending_);
            pending_.reset();
        }
    }
    bool checkpointWanted() override
    {
        std::lock_guard lock(worker_.mutex_);
        return worker_.paused_ && !worker_.stop_;
    }
    bool stopPending() override
    {
        std::lock_guard lock(worker_.mutex_);
        return worker_.stop_;
    }
    bool stopRequested() override
    {
        std::unique_lock lock(worker_.mutex_);
        if (worker_.paused_ && !worker_.stop_) {
            flush(); // the panel shows where the run waits: the iteration held back, then a note
            emit worker_.pausedAt(lastIteration_);
            worker_.resumed_.wait(lock, [this] { return !worker_.paused_ || worker_.stop_; });
        }
        return worker_.stop_;
    }

private:
    static MetricsRow curvePoint(const IterationStats& stats)
    {
        MetricsRow row;
        row.iteration = stats.iteration;
        row.loss = stats.loss;
        row.averageLoss = stats.averageLoss;
        row.learningRate = stats.learningRate;
        row.imagesPerSecond = stats.imagesPerSecond;
        return row; // (validation points are never held back)
    }
    void emitHeldBack()
    {
        if (!heldBack_.empty())
            emit worker_.heldBack(std::exchange(heldBack_, {}));
    }

    TrainWorker& worker_;
    QElapsedTimer sinceEmit_;
    std::vector<MetricsRow> heldBack_;      // iterations before pending_ not yet sent
    std::optional<IterationStats> pending_; // the newest iteration not yet emitted
    int lastIteration_ = 0;
};

TrainWorker::TrainWorker(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<nw::IterationStats>();
    qRegisterMetaType<std::vector<nw::MetricsRow>>();
    qRegisterMetaType<nw::ui::TrainRequest>();
}

void TrainWorker::requestPause(bool paused)
{
    {
        std::lock_guard lock(mutex_);
        paused_ = paused;
    }
    resumed_.notify_all();
}

void TrainWorker::prepareRun()
{
    std::lock_guard lock(mutex_);
    stop_ = false;
    paused_ = false;
}

void TrainWorker::requestStop()
{
    {
        // Set under the mutex: a waiter between checking stop_ and sleeping would miss the notify.
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    resumed_.notify_all();
}

bool TrainWorker::stopRequested()
{
    std::lock_guard lock(mutex_);
    return stop_;
}

void TrainWorker::run(const TrainRequest& request)
{
    try {
        runUnguarded(request);
    } catch (const std::bad_alloc&) {
        emit finished(
            tr("out of memory while building the network or loading the data: lower batch in [net]"));
    } catch (const std::exception& e) {
        emit finished(tr("cannot start training: %1").arg(QString::fromUtf8(e.what())));
    }
}

void TrainWorker::runUnguarded(const TrainRequest& request)
{
    if (stopRequested()) { // stopped before the worker got here
        emit finished(QString());
        return;
    }
    std::string error;
    auto data = loadDataFile(request.dataPath.toStdString(), error);
    if (!data) {
        emit finished(QString::fromStdString(error));
        return;
    }
    const NetworkSpec spec =
        buildNetworkSpec(request.cfgText.isEmpty() ? cfg::Document::load(request.cfgPath.toStdString())
                                                   : cfg::Document::parse(request.cfgText.toStdString(),
                                                                          request.cfgPath.toStdString()));
    for (const Diagnostic& d : spec.diagnostics)
        if (d.isError()) {
            emit finished(QString::fromStdString(d.format()));
            return;
        }
    if (auto problem = batchProblem(spec.net)) { // before the data set is read
        emit finished(QString::fromStdString(*problem));
        return;
    }
    // For the Per class page, in-process or not (a names file that cannot be read: the classes numbered).
    std::string namesError;
    if (const auto names = classNamesOf(*data, maxTruthBoxes(spec.layers) > 0, namesError)) {
        QStringList list;
        for (const std::string& name : *names)
            list << QString::fromStdString(name);
        emit classNames(list);
    }
    if (request.gpus.size() > 1 || request.childProcess) {
        runInChild(request, spec);
        return;
    }
    auto net = Net::create(spec, std::max(1, spec.net.layerBatch()), error);
    if (!net) {
        emit finished(QString::fromStdString(error));
        return;
    }
    // A Stop (or the window closing) while the data loads ends the run here, before any file is written.
    const auto stoppedWhileLoading = [this] {
        if (!stopRequested())
            return false;
        emit finished(QString());
        return true;
    };
    if (stoppedWhileLoading())
        return;
    std::vector<std::string> warnings;
    auto sets = openTrainingData(*data, *net, 1, error, warnings);
    for (const std::string& warning : warnings)
        emit message(QString::fromStdString("warning: " + warning));
    if (!sets) {
        emit finished(QString::fromStdString(error));
        return;
    }
    if (stoppedWhileLoading())
        return;
    emit message(QString::fromStdString("training on " + sets->describe()));
    if (!request.weightsPath.trimmed().isEmpty() && request.resume) // (as the CLI's note: said, not silent)
        emit message(QString("note: Resume continues from the checkpoint in %1; the starting weights %2 are "
                             "not read")
                         .arg(request.outDir, request.weightsPath.trimmed()));
    if (!request.weightsPath.isEmpty() && !request.resume) { // a resumed run starts from its checkpoint
        std::vector<std::string> weightWarnings;             // NaN or infinite values, named by layer
        if (auto problem = net->loadWeights(request.weightsPath.toStdString(), &weightWarnings,
                                            {.allowPrefix = true})) { // a backbone (yolov4.conv.137)
            emit finished(QString::fromStdString(*problem));
            return;
        }
        for (const std::string& warning : weightWarnings)
            emit message(QString::fromStdString("warning: " + warning));
    }
    TrainOptions options;
    options.outDir = request.outDir.toStdString();
    options.name = QFileInfo(request.cfgPath).completeBaseName().toStdString();
    options.data = QDir::cleanPath(QFileInfo(request.dataPath.trimmed()).absoluteFilePath()).toStdString();
    if (!request.cfgText.isEmpty())
        options.cfgText = request.cfgText.toStdString();
    else if (QFile cfgFile(request.cfgPath); cfgFile.open(QIODevice::ReadOnly))
        options.cfgText = cfgFile.readAll().toStdString();
    // The fields as shown, always: "cfg's max_batches" and "cfg's rate" are the cfg's values, given (a
    // resume went on with the earlier run's --max-batches and rate while the panel showed the cfg's).
    options.maxBatches = request.maxBatches > 0 ? request.maxBatches : spec.net.maxBatches;
    options.learningRate = float(request.learningRate > 0 ? request.learningRate : spec.net.learningRate);
    options.validEvery = request.validEvery;
    options.resume = request.resume;
    options.gpu = request.device;
    emit started(request.maxBatches > 0 ? request.maxBatches : spec.net.maxBatches, spec.net.batch);
    WorkerObserver observer(*this);
    options.mapEvery = request.validEvery;
    options.letterbox = spec.net.letterBox;
    Trainer trainer(*net, *sets->train, sets->valid.get(), options, sets->detectionValid.get());
    QString outcome;
    try {
        const auto problem = trainer.run(observer);
        outcome = problem ? QString::fromStdString(*problem) : QString();
    } catch (const std::bad_alloc&) {
        outcome =
            tr("out of memory: lower batch (or raise subdivisions) in [net]; the last checkpoint is kept");
    } catch (const std::exception& e) {
        outcome = tr("training stopped: %1; the last checkpoint is kept").arg(e.what());
        if (request.device >= 0) // CUDA keeps some faults for the rest of the process
            outcome += tr(" (if the GPU keeps failing, restart the studio)");
    }
    observer.flush(); // the last iteration the throttle held back, so the plot and the count end where the
                      // run did
    emit finished(outcome);
}

namespace {

// The GUI's Pause and Stop, read without waiting (the child keeps running while polled).
class WorkerControl final : public ChildControl {
public:
    WorkerControl(std::mutex& mutex, const bool& stop, const bool& paused, int graceMs)
        : mutex_(mutex), stop_(stop), paused_(paused), graceMs_(graceMs)
    {
    }
    int stopGraceMs() const override { return graceMs_; }
    bool stopWanted() override
    {
        std::lock_guard lock(mutex_);
        return stop_;
    }
    bool pauseWanted() override
    {
        std::lock_guard lock(mutex_);
        return paused_;
    }

private:
    std::mutex& mutex_;
    const bool& stop_;
    const bool& paused_;
    int graceMs_;
};

} // namespace

void TrainWorker::runInChild(const TrainRequest& request, const NetworkSpec& spec)
{
    // The cfg the editor shows, unsaved edits included: the child reads files and names its weights
    // after the cfg, so edits go to a file of the same name in a folder of the run's own.
    QString cfg = request.cfgPath;
    QTemporaryDir edited;
    QFile onDisk(request.cfgPath);
    if (!request.cfgText.isEmpty() &&
        (!onDisk.open(QIODevice::ReadOnly) || onDisk.readAll() != request.cfgText.toUtf8())) {
        cfg = edited.filePath(QFileInfo(request.cfgPath).fileName());
        QSaveFile file(cfg);
        if (!edited.isValid() || !file.open(QIODevice::WriteOnly) ||
            file.write(request.cfgText.toUtf8()) < 0 || !file.commit()) {
            emit finished(tr("cannot write the edited network for the training processes (%1): %2")
                              .arg(cfg, edited.isValid() ? file.errorString() : edited.errorString()));
            return;
        }
    }
    QStringList arguments{"train", "--progress", "json", "--out", request.outDir};
    // (the fields as shown, as in-process: the cfg's values when they say "cfg's")
    if (const int length = request.maxBatches > 0 ? request.maxBatches : spec.net.maxBatches; length > 0)
        arguments << "--max-batches" << QString::number(length);
    if (const double rate = request.learningRate > 0 ? request.learningRate : spec.net.learningRate; rate > 0)
        arguments << "--learning-rate" << QString::number(rate, 'g', 9);
    // As in-process: accuracy for classifiers, mAP for detectors, and a valid= list that cannot be scored
    // is a warning (the run trains without validation) rather than an error.
    if (request.validEvery > 0)
        arguments << "--valid-every" << QString::number(request.validEvery) << "--map-every"
                  << QString::number(request.validEvery) << "--valid-optional";
    if (request.resume)
        arguments << "--resume";
    if (request.gpus.size() > 1) {
        QStringList gpus;
        for (int gpu : request.gpus)
            gpus << QString::number(gpu);
        arguments << "--gpus" << gpus.join(',');
    } else if (request.device >= 0) {
        arguments << "--device" << QString("cuda:%1").arg(request.device);
    }
    arguments << "--" << request.dataPath << cfg;
    if (!request.weightsPath.isEmpty())
        arguments << request.weightsPath;
    const QString program = request.cliPath.isEmpty()
                                ? QDir(QCoreApplication::applicationDirPath()).filePath("netwright-cli")
                                : request.cliPath;
    emit message(request.gpus.size() > 1
                     ? tr("training on %1 GPUs (%1 ranks over NCCL), one netwright-cli process each")
                           .arg(request.gpus.size())
                     : tr("training in a netwright-cli process"));
    emit started(request.maxBatches > 0 ? request.maxBatches : spec.net.maxBatches, spec.net.batch);
    WorkerObserver observer(*this);
    WorkerControl control(mutex_, stop_, paused_, request.stopGraceSeconds * 1000);
    const auto problem = runChildTraining(program, arguments, observer, control, [&](int iteration) {
        observer.flush();
        emit pausedAt(iteration);
    });
    observer.flush();
    emit finished(problem ? QString::fromStdString(*problem) : QString());
}

} // namespace nw::ui
