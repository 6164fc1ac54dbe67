#include "train/evaluation_runner.h"

#include <QElapsedTimer>

namespace nw::ui {

EvaluationRunner::~EvaluationRunner()
{
    if (thread_) {
        cancelled_->store(true);
        thread_->wait();
        delete thread_; // (its deleteLater would need an event loop that may be gone: a leak at exit)
    }
}

bool EvaluationRunner::start(const nw::EvaluationRequest& request)
{
    if (running_)
        return false;
    if (thread_) { // the last one, between emitting its result and ending
        thread_->wait();
        delete thread_;
    }
    running_ = true;
    cancelled_ = std::make_shared<std::atomic<bool>>(false);
    thread_ = QThread::create([this, request, cancelled = cancelled_] {
        QElapsedTimer sinceProgress;
        sinceProgress.start();
        std::string error;
        std::optional<nw::Evaluation> evaluation = nw::evaluateWeights(
            request, error,
            [&](std::size_t done, std::size_t total) {
                if (sinceProgress.elapsed() < 100 &&
                    done < total) // (a tiny net: thousands of batches a second)
                    return;
                sinceProgress.restart();
                QMetaObject::invokeMethod(this, [this, done, total] { emit progress(done, total); });
            },
            cancelled.get());
        auto result = evaluation ? std::make_shared<const nw::Evaluation>(std::move(*evaluation)) : nullptr;
        QMetaObject::invokeMethod(this, [this, result, text = QString::fromStdString(error)] {
            running_ = false;
            emit finished(result, result ? QString() : text);
        });
    });
    // (the thread object goes once it has ended; thread_ turns null with it)
    connect(thread_, &QThread::finished, thread_, &QObject::deleteLater);
    thread_->start();
    return true;
}

void EvaluationRunner::cancel()
{
    if (cancelled_)
        cancelled_->store(true);
}

} // namespace nw::ui
