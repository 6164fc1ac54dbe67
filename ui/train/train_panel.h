#pragma once
// The Train panel: data set, optional starting weights, output folder and iteration overrides; Train,
// Pause/Resume, Stop; a progress bar with epoch and ETA; live QCustomPlot curves (loss, average loss,
// validation top-1 or mAP@0.5, and for detectors each head's IoU, objectness and class score); a log.
// Training runs in a TrainWorker on its own QThread; the curves are a TrainingCurves.
#include "train/evaluation.h"
#include "train/trainer.h"
#include "train/training_curves.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

class QCheckBox;
class QTimer;
class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QToolButton;
class QSpinBox;
class QDoubleSpinBox;
class QThread;
class QTabWidget;

namespace nw::ui {

class TrainWorker;
class CompareMenu;
class TrainingCurves;
class ClassResultsView;
class EvaluationRunner;

class TrainPanel : public QWidget {
    Q_OBJECT
public:
    explicit TrainPanel(QWidget* parent = nullptr);
    ~TrainPanel() override;

    // The network to train; also picks <name>.data beside it and a default output folder.
    void setNetwork(const QString& cfgPath);
    // The same network saved under a (new) name: keeps the data, weights, curves and log (a new
    // network's first save also gets its own run folder and the .data beside it).
    void renameNetwork(const QString& cfgPath);
    // Where Train reads the network: the editor's text (unsaved edits included) instead of the file.
    void setCfgTextSource(std::function<QString()> source) { cfgText_ = std::move(source); }
    // The editor's text as it stands, without committing a value being typed (what an earlier run's
    // network is compared with while the user types in a field).
    // (bytes: a cfg's Latin-1 comment does not survive a QString)
    void setCfgTextPeek(std::function<std::string()> peek) { cfgTextPeek_ = std::move(peek); }
    // Why the editor's network cannot be trained as it is shown (text in Source that is no cfg), or
    // empty; asked before a run starts.
    void setEditorCheck(std::function<QString()> check) { editorCheck_ = std::move(check); }
    // Asked last before a run starts (the question about unsaved edits): false, and Train does nothing.
    void setStartQuestion(std::function<bool()> question) { startQuestion_ = std::move(question); }
    bool isTraining() const { return training_; }
    bool hasTrainedAnIteration() const { return training_ && firstIteration_ >= 0; } // (this run)
    // Whether the network has detection heads: its validation curve is then mAP@0.5, not top-1.
    void setDetector(bool detector);
    // What of the network the data check depends on (classes, max=, input size, errors), in words: the
    // data set is read again when it changes.
    void setDataNeeds(const QString& needs);
    // The cfg's max_batches: before a run the progress bar shows "0 / N" of the run Train would start.
    void setPlannedIterations(int cfgMaxBatches);

    // For tests and scripting.
    QLineEdit* dataEdit() const { return data_; }
    QLineEdit* outputEdit() const { return output_; }
    QLineEdit* weightsEdit() const { return weights_; }
    QSpinBox* maxBatchesSpin() const { return maxBatches_; }
    QCheckBox* resumeBox() const { return resume_; }
    QComboBox* deviceBox() const { return device_; }
    QPushButton* trainButton() const { return train_; }
    CompareMenu* compareMenu() const { return compareMenu_; }
    QPushButton* pauseButton() const { return pause_; }
    QPushButton* stopButton() const { return stop_; }
    QCustomPlot* plot() const { return curves_->plot(); }
    TrainingCurves* curves() const { return curves_; }
    ClassResultsView* classResults() const { return classResults_; }
    QTabWidget* views() const { return views_; } // Curves, Per class
    QCustomPlot* ratePlot() const { return curves_->ratePlot(); }
    QCustomPlot* headPlot() const { return curves_->headPlot(); }
    QPushButton* shapesButton() const { return shapes_; }
    // Where the one-click shapes data set is generated (default: the user's data folder, 2,000 images).
    void setShapesFolder(const QString& folder, int count = 2000)
    {
        shapesFolder_ = folder;
        shapesCount_ = count;
    }
    QProgressBar* progressBar() const { return progress_; }
    // How many progress signals this panel took (the worker throttles them; the curves get every point).
    int progressSignals() const { return progressSignals_; }
    const QString& cfgPath() const { return cfgPath_; }
    QLabel* statusLabel() const { return status_; }
    // What the chosen data set holds, or what is wrong with it: read in the background before Train.
    QLabel* dataCheckLabel() const { return dataCheckLabel_; }
    QPlainTextEdit* log() const { return log_; }

signals:
    // The worker has stopped between iterations for a pause (the progress shown is final).
    void pausedAt(int iteration);
    void trainingChanged(bool training);
    // Pause (true) or Resume (false) was clicked.
    void pauseChanged(bool paused);

private:
    void clearCurves();
    void start();
    // Train refused before anything of the last run is cleared: the status line and the log say `why`;
    // `field` (the one to mend) takes the focus.
    void refuseStart(const QString& why, QWidget* field = nullptr);
    void togglePause();
    void stop();
    void onStarted(int maxBatches, int batch);
    void onProgress(const nw::IterationStats& stats);
    void onFinished(const QString& error);
    // Evaluate: the candidates (the run's newest weights first), one scored in the background.
    QStringList weightsToEvaluate() const;
    void evaluateWeights(const QString& weights);
    void onEvaluated(std::shared_ptr<const nw::Evaluation> evaluation, const QString& error);
    void appendLog(const QString& text);
    void setTraining(bool training);
    // A run of this network found in the output folder: its curves and where it stands; a stopped one
    // (a checkpoint newer than any final weights) ticks Resume.
    void showEarlierClassResults(const QString& base, int iteration);
    void showEarlierRun();
    void exportPng();
    void useShapesDataSet();
    // Reads the chosen data set off the GUI thread (data_check.h) and shows what it holds.
    void checkData();

    QString cfgPath_;
    // The network and .data of the run being started: remembered together once it trains.
    std::pair<QString, QString> startingData_;
    QString autoOutput_;           // the output folder last set for the user; another choice stays
    QTimer* earlierRun_ = nullptr; // showEarlierRun once the data or folder stops changing
    int earlierIteration_ = 0;     // the iteration of the run found in the output folder (0: none)
    int progressSignals_ = 0;
    int resumedFrom_ = 0;    // the checkpoint's iteration of the run under way, when it resumed one
    int cfgMaxBatches_ = -1; // (-1: not told yet)
    void showPlannedIterations();
    QString compareError_, statusBeforeCompareError_; // a refused comparison's message, what it replaced
    QString lastValidation_; // "validation top-1 70.20 % at iteration 200", for the status at the end
    QLineEdit* data_ = nullptr;
    QLineEdit* output_ = nullptr;
    QLineEdit* weights_ = nullptr; // optional starting weights
    QSpinBox* maxBatches_ = nullptr;
    QSpinBox* validEvery_ = nullptr;
    QDoubleSpinBox* learningRate_ = nullptr;
    QCheckBox* resume_ = nullptr;
    QComboBox* device_ = nullptr; // CPU, each GPU (data: -1, or the CUDA index), all GPUs (the list)
    QCheckBox* logScale_ = nullptr;
    CompareMenu* compareMenu_ = nullptr;
    QPushButton* train_ = nullptr;
    QPushButton* pause_ = nullptr;
    QPushButton* stop_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    QWidget* settings_ = nullptr;  // the run's settings, folded away while it trains (room for curves)
    QLabel* runSummary_ = nullptr; // what the running run uses, in one line, while they are folded
    TrainingCurves* curves_ = nullptr;
    ClassResultsView* classResults_ = nullptr;
    EvaluationRunner* evaluation_ = nullptr;
    QString evaluatedWeights_;
    int evaluationGeneration_ = 0; // moves on at each evaluation, network and run
    int evaluationStarted_ = -1;   // the generation the running evaluation belongs to
    QTabWidget* views_ = nullptr;
    QPushButton* shapes_ = nullptr;
    QToolButton* settingsButton_ = nullptr; // folds and unfolds settings_
    void showSettings(bool show);           // settings_, or the run's summary line in their place
    QString shapesFolder_;
    QString runResultsFolder_; // the output folder of the run whose live validation Per class shows
    int shapesCount_ = 2000;
    QPointer<QThread> shapesThread_; // generating the shapes set; waited for on destruction
    QTimer* dataCheck_ = nullptr;    // checkData once the data path stops changing
    QPointer<QThread> checkThread_;  // reading the data set; cancelled and waited for on destruction
    std::shared_ptr<std::atomic<bool>> checkCancelled_; // set: the read in checkThread_ is abandoned
    int checkGeneration_ = 0;                           // a result of an older request is dropped
    QString dataNeeds_;
    QLabel* dataCheckLabel_ = nullptr;
    QPlainTextEdit* log_ = nullptr;
    QThread* thread_ = nullptr;
    TrainWorker* worker_ = nullptr;
    bool training_ = false;
    bool evaluating_ = false; // a validation pass is under way (a stop waits for it)
    bool paused_ = false;
    bool makingShapes_ = false; // Train waits for the data set it will be pointed at
    bool detector_ = false;     // validation is mAP@0.5 (named so before the run's first point)
    QString pendingCurve_;      // a resumed run's metrics.csv, drawn once the run has trimmed it
    QString stopNote_;          // how a stopped run ended when it kept no checkpoint of its own
    QString nothingToTrain_;    // a run resumed at its end: what to do instead
    QString pendingRename_;     // a Save As during a run: the name it takes when the run ends
    int networksOpened_ = 0;    // setNetwork's calls: what a background task finished for is still open
    QString networkRefusal_;    // Train refused for the network's errors: said until the network changes
    // The ETA from this run's own pace: paused time left out, also for a child process (SIGSTOP).
    QElapsedTimer runClock_, pauseClock_;
    qint64 pausedMs_ = 0;
    int firstIteration_ = -1;
    std::function<QString()> cfgText_;
    std::function<std::string()> cfgTextPeek_;
    std::function<QString()> editorCheck_;
    std::function<bool()> startQuestion_;
    bool stopRequested_ = false; // the user pressed Stop (the run ends without an error)
    std::vector<QWidget*> pathButtons_;
    int lastLoggedIteration_ = 0;
};

} // namespace nw::ui
