#pragma once
// Runs core's Trainer on a worker QThread. Progress reaches the GUI as queued signals, throttled to
// ~20 per second so the event loop stays responsive however fast iterations are; pause and stop are
// requested from the GUI thread and honoured between iterations (stop writes a checkpoint).
#include "train/run_history.h"
#include "train/trainer.h"

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>
#include <condition_variable>
#include <mutex>

namespace nw::ui {

struct TrainRequest {
    QString cfgPath, dataPath, outDir, weightsPath;
    // The cfg as the editor shows it (unsaved edits included); empty: read cfgPath from disk.
    QString cfgText;
    int maxBatches = 0;      // 0: the cfg's
    double learningRate = 0; // 0: the cfg's
    int validEvery = 0;
    bool resume = false;
    int device = -1; // -1: the CPU; N: the GPU cuda:N
    // Two or more GPUs: data-parallel over NCCL, one process per GPU (netwright-cli train --gpus),
    // followed through its progress lines (child_training.h).
    QList<int> gpus;
    // Train in a child netwright-cli even on one device (what --gpus does; tests use it on the CPU).
    bool childProcess = false;
    QString cliPath; // empty: netwright-cli next to the studio's executable
    // How long the child processes get to stop (finish the iteration, write the checkpoint) before
    // they are killed.
    int stopGraceSeconds = 120;
};

class TrainWorker : public QObject {
    Q_OBJECT
public:
    explicit TrainWorker(QObject* parent = nullptr);

    // Thread-safe: called from the GUI thread while run() works. prepareRun() clears the last run's
    // pause and stop before the GUI queues run(), so a Stop pressed before the worker starts holds.
    void prepareRun();
    void requestPause(bool paused);
    void requestStop();

public slots:
    void run(const nw::ui::TrainRequest& request);

signals:
    void started(int maxBatches, int batch);
    // One or more iterations finished (the latest, plus every validation point).
    void progress(const nw::IterationStats& stats);
    // The iterations the throttle held back since the last progress, sent just before it: the curves
    // draw every iteration, as metrics.csv has them (a loss spike between two signals went unseen).
    void heldBack(const std::vector<nw::MetricsRow>& rows);
    // The data set's class names (from its .data file), once per run before the first validation.
    void classNames(const QStringList& names);
    void message(const QString& text);
    // The run has stopped between iterations for a requested pause (after `iteration`).
    void pausedAt(int iteration);
    // Empty error: finished or stopped normally.
    void finished(const QString& error);

private:
    void runUnguarded(const TrainRequest& request);
    // The run in netwright-cli processes (request.gpus, request.childProcess).
    void runInChild(const TrainRequest& request, const NetworkSpec& spec);
    friend class WorkerObserver;
    bool stopRequested();
    // Both guarded by mutex_, which the waiter in stopRequested() holds while it checks them.
    bool stop_ = false;
    bool paused_ = false;
    std::mutex mutex_;
    std::condition_variable resumed_;
};

} // namespace nw::ui

Q_DECLARE_METATYPE(nw::IterationStats)
Q_DECLARE_METATYPE(std::vector<nw::MetricsRow>)
Q_DECLARE_METATYPE(nw::ui::TrainRequest)
