#pragma once
// The Train panel: data set, output folder and iteration overrides; Train, Pause/Resume, Stop; a
// progress bar with epoch and ETA; live QCustomPlot curves (loss, average loss, validation top-1);
// a log. Training runs in a TrainWorker on its own QThread.
#include "train/trainer.h"

#include <QWidget>

class QCheckBox;
class QCustomPlot;
class QLabel;
class QMouseEvent;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QDoubleSpinBox;
class QThread;

namespace nw::ui {

class TrainWorker;

class TrainPanel : public QWidget {
    Q_OBJECT
public:
    explicit TrainPanel(QWidget* parent = nullptr);
    ~TrainPanel() override;

    // The network to train; also picks <name>.data beside it and a default output folder.
    void setNetwork(const QString& cfgPath);
    bool isTraining() const { return training_; }

    // For tests and scripting.
    QLineEdit* dataEdit() const { return data_; }
    QLineEdit* outputEdit() const { return output_; }
    QSpinBox* maxBatchesSpin() const { return maxBatches_; }
    QPushButton* trainButton() const { return train_; }
    QPushButton* pauseButton() const { return pause_; }
    QPushButton* stopButton() const { return stop_; }
    QCustomPlot* plot() const { return plot_; }
    QCustomPlot* ratePlot() const { return rates_; }
    QProgressBar* progressBar() const { return progress_; }
    QPlainTextEdit* log() const { return log_; }

signals:
    void trainingChanged(bool training);

private:
    void start();
    void togglePause();
    void stop();
    void onStarted(int maxBatches, int batch);
    void onProgress(const nw::IterationStats& stats);
    void onFinished(const QString& error);
    void appendLog(const QString& text);
    void setTraining(bool training);
    void loadPreviousCurve(const QString& metricsCsv);
    void exportPng();
    void showReadout(QMouseEvent* event);

    QString cfgPath_;
    QLineEdit* data_ = nullptr;
    QLineEdit* output_ = nullptr;
    QSpinBox* maxBatches_ = nullptr;
    QSpinBox* validEvery_ = nullptr;
    QDoubleSpinBox* learningRate_ = nullptr;
    QCheckBox* resume_ = nullptr;
    QCheckBox* logScale_ = nullptr;
    QPushButton* train_ = nullptr;
    QPushButton* pause_ = nullptr;
    QPushButton* stop_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QCustomPlot* rates_ = nullptr; // learning rate and images/s
    QPlainTextEdit* log_ = nullptr;
    QThread* thread_ = nullptr;
    TrainWorker* worker_ = nullptr;
    bool training_ = false;
    bool paused_ = false;
    int lastLoggedIteration_ = 0;
};

} // namespace nw::ui
