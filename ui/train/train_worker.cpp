#include "train/train_worker.h"

#include "cfg/document.h"
#include "data/training_data.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <optional>

namespace nw::ui {

class WorkerObserver final : public TrainObserver {
public:
    explicit WorkerObserver(TrainWorker& worker) : worker_(worker) { sinceEmit_.start(); }

    void iteration(const IterationStats& stats) override
    {
        // Throttle: at most one progress signal per 50 ms, but never drop a validation point or the end.
        if (stats.validTop1 || stats.map50 || stats.iteration == stats.maxBatches ||
            sinceEmit_.elapsed() >= 50) {
            emit worker_.progress(stats);
            sinceEmit_.restart();
            pending_.reset();
        } else {
            pending_ = stats;
        }
        lastIteration_ = stats.iteration;
    }
    void message(const std::string& text) override { emit worker_.message(QString::fromStdString(text)); }
    bool stopRequested() override
    {
        std::unique_lock lock(worker_.mutex_);
        if (worker_.paused_ && !worker_.stop_) {
            // The panel shows where the run waits: the iteration the throttle held back, then a note.
            if (pending_) {
                emit worker_.progress(*pending_);
                pending_.reset();
            }
            emit worker_.pausedAt(lastIteration_);
            worker_.resumed_.wait(lock, [this] { return !worker_.paused_ || worker_.stop_; });
        }
        return worker_.stop_;
    }

private:
    TrainWorker& worker_;
    QElapsedTimer sinceEmit_;
    std::optional<IterationStats> pending_; // the newest iteration not yet emitted
    int lastIteration_ = 0;
};

TrainWorker::TrainWorker(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<nw::IterationStats>();
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
    auto net = Net::create(spec, std::max(1, spec.net.layerBatch()), error);
    if (!net) {
        emit finished(QString::fromStdString(error));
        return;
    }
    std::vector<std::string> warnings;
    auto sets = openTrainingData(*data, *net, 1, error, warnings);
    for (const std::string& warning : warnings)
        emit message(QString::fromStdString("warning: " + warning));
    if (!sets) {
        emit finished(QString::fromStdString(error));
        return;
    }
    emit message(QString::fromStdString("training on " + sets->describe()));
    if (!request.weightsPath.isEmpty()) {
        std::vector<std::string> weightWarnings; // NaN or infinite values, named by layer
        if (auto problem = net->loadWeights(request.weightsPath.toStdString(), &weightWarnings)) {
            emit finished(QString::fromStdString(*problem));
            return;
        }
        for (const std::string& warning : weightWarnings)
            emit message(QString::fromStdString("warning: " + warning));
    }
    TrainOptions options;
    options.outDir = request.outDir.toStdString();
    options.name = QFileInfo(request.cfgPath).completeBaseName().toStdString();
    options.maxBatches = request.maxBatches;
    options.learningRate = float(request.learningRate);
    options.validEvery = request.validEvery;
    options.resume = request.resume;
    options.gpu = request.device;
    emit started(request.maxBatches > 0 ? request.maxBatches : spec.net.maxBatches, spec.net.batch);
    WorkerObserver observer(*this);
    options.mapEvery = request.validEvery;
    options.letterbox = spec.net.letterBox;
    Trainer trainer(*net, *sets->train, sets->valid.get(), options, sets->detectionValid.get());
    try {
        const auto problem = trainer.run(observer);
        emit finished(problem ? QString::fromStdString(*problem) : QString());
    } catch (const std::bad_alloc&) {
        emit finished(
            tr("out of memory: lower batch (or raise subdivisions) in [net]; the last checkpoint is kept"));
    } catch (const std::exception& e) {
        emit finished(tr("training stopped: %1; the last checkpoint is kept").arg(e.what()));
    }
}

} // namespace nw::ui
