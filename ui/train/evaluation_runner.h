#pragma once
// Runs core's evaluateWeights (train/evaluation.h) on a thread of its own for the Train panel's
// Evaluate: progress and the result come back as signals on the GUI thread; cancel() ends it between
// batches, and destroying the runner cancels and waits (closing the studio mid-evaluation is quick).
#include "train/evaluation.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QThread>
#include <atomic>
#include <memory>

namespace nw::ui {

class EvaluationRunner : public QObject {
    Q_OBJECT
public:
    explicit EvaluationRunner(QObject* parent = nullptr) : QObject(parent) {}
    ~EvaluationRunner() override;

    // False when one is running already.
    bool start(const nw::EvaluationRequest& request);
    void cancel();
    bool isRunning() const { return running_; }

signals:
    void progress(qulonglong done, qulonglong total);
    // `evaluation` null: `error` says why ("cancelled" after cancel()).
    void finished(std::shared_ptr<const nw::Evaluation> evaluation, const QString& error);

private:
    bool running_ = false;     // until finished is emitted
    QPointer<QThread> thread_; // the newest one (an ended one deletes itself)
    std::shared_ptr<std::atomic<bool>> cancelled_;
};

} // namespace nw::ui
