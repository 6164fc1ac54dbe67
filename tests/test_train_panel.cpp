// The Train panel (offscreen): training a small network from the panel — iterations arrive and the plot
// grows, pause holds, resume continues, stop writes a checkpoint that loads — while progress reaches
// the GUI thread at most 20 times a second and its event loop keeps running.
#include "detect/detect_panel.h"
#include "device/device_box.h"
#include "editor/document_model.h"
#include "table/layer_table_model.h"
#include "test_support.h"
#include "train/checkpoint.h"
#include "train/child_training.h"
#include "train/class_results_view.h"
#include "train/compare_menu.h"
#include "train/run_folder_lock.h"
#include "train/run_folders.h"
#include "train/run_history.h"
#include "train/train_panel.h"
#include "train/train_worker.h"
#include "train/training_curves.h"
#include "window/main_window.h"

#include "backend/gpu_devices.h"
#include "data/make_shapes.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>
#include <QWheelEvent>
#include <qcustomplot.h>
#include <tuple>

using namespace nw;

class TestTrainPanel : public QObject {
    Q_OBJECT
private slots:
    void curvesWriteFiguresTheSameInEveryLocale();
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); } // QSettings away from the user's
    void trainPauseResumeStopFromThePanel();
    void badDataIsReportedAndThePanelRecovers();
    void theOutputFolderIsCheckedBeforeTheRun();
    void aFineTuningRateIsKept();
    void theDataSetIsReadBeforeTrain();
    void theDataFileOfADarknetProjectIsFound();
    void theDataANetworkTrainedOnIsRemembered();
    void validationCurveIsNamedForTheOpenedNetwork();
    void resumeDrawsTheCheckpointsCurveAndZoomHolds();
    void saveAsAfterAStopStartsTheNewNamesRun();
    void evaluateScoresWeightsOnTheValidationSet();
    void resumingAFinishedRunSaysThereIsNothingToTrain();
    void aStoppedRunKeepsItsScheduleAndALowerOneChangesNothing();
    void saveAsMovesTheRunFolderUnlessChosen();
    void tabFollowsTheRows();
    void detectTakesTheDataNamesAndTheTrainedWeights();
    void detectorOnTheShapesDataSet();
    void perClassPageShowsTheConfusionMatrix();
    void trainsWhatTheEditorShows();
    void deviceChoiceAndAGpuThatFailsStopsInWords();
    void childProcessRunTrainsAsInProcess();
    void aResumeTrainsToTheLengthShown();
    void aCheckpointWrittenSinceIsOfferedAtTrain();
    void childProcessRunPausesAndStops();
    void childProcessRunTrainsPastAnUnusableValidList();
    void childProcessProblemsEndInWords();
    void allGpusEntryStartsOneRankPerGpu();
    void progressLinesParse();
    void fitsADockedWidth();
    void panelsFitTheirDocksOnASmallScreen();
    void mainPartsShowAt1280x720();
    void aRefusalScrollsIntoView();
    void earlierRunsAreComparedBesideTheRun();
    void plotsFollowADarkPalette();
};

void TestTrainPanel::trainPauseResumeStopFromThePanel()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 600);
    QFile cfg(dir.filePath("toy.cfg"));
    QVERIFY(cfg.open(QIODevice::WriteOnly));
    cfg.write(QByteArray(test::kToyCfg).replace("max_batches=12", "max_batches=100000"));
    cfg.close();

    ui::MainWindow window;
    window.show();
    QVERIFY(window.openFile(cfg.fileName()));
    ui::TrainPanel* panel = window.trainPanel();
    QCOMPARE(panel->dataEdit()->text(), dir.filePath("toy.data")); // found beside the cfg
    panel->outputEdit()->setText(dir.filePath("run"));

    // The event loop's longest gap while training, measured by a 10 ms timer.
    qint64 worstGap = 0;
    QElapsedTimer sinceTick;
    sinceTick.start();
    QTimer ticker;
    QObject::connect(&ticker, &QTimer::timeout, [&] { worstGap = std::max(worstGap, sinceTick.restart()); });
    ticker.start(10);

    QSignalSpy changed(panel, &ui::TrainPanel::trainingChanged);
    QSignalSpy paused(panel, &ui::TrainPanel::pausedAt);
    QElapsedTimer running;
    running.start();
    QApplication::setActiveWindow(&window);
    panel->trainButton()->setFocus();
    QTRY_VERIFY(panel->trainButton()->hasFocus());
    panel->trainButton()->click();
    QVERIFY(panel->isTraining());
    QVERIFY(!panel->trainButton()->isEnabled());
    // The keyboard goes from Train to Pause beside it (it went down to the curves' tabs, and the dock
    // scrolled there: Pause and Stop out of view).
    QVERIFY(panel->pauseButton()->hasFocus());
    QVERIFY(!panel->weightsEdit()->isEnabled()); // what the run uses stays as it started
    // The settings fold away for the curves, one line saying what the run uses in their place.
    auto* runSummary = panel->findChild<QLabel*>("runSummary");
    QVERIFY(runSummary && runSummary->isVisible() && !panel->dataEdit()->isVisible());
    QCOMPARE(runSummary->text(), QString("Data %1 · random initialisation · CPU · into %2")
                                     .arg(dir.filePath("toy.data"), dir.filePath("run")));
    QTRY_VERIFY_WITH_TIMEOUT(panel->plot()->graph(1)->dataCount() >= 3, 20000);
    QVERIFY(panel->progressBar()->value() > 0);
    QVERIFY(panel->ratePlot()->graph(0)->dataCount() >= 3);        // learning rate
    const auto first = panel->ratePlot()->graph(0)->data()->at(0); // steps=8 scales=0.5 in the toy cfg
    QCOMPARE(float(first->value), first->key < 8 ? 0.05f : 0.025f);
    // Both plots have a legend, above the axes where it covers no points.
    for (QCustomPlot* plot : {panel->plot(), panel->ratePlot()}) {
        QVERIFY(plot->legend->visible());
        QCOMPARE(plot->plotLayout()->element(0, 0), static_cast<QCPLayoutElement*>(plot->legend));
        QCOMPARE(plot->plotLayout()->element(1, 0), static_cast<QCPLayoutElement*>(plot->axisRect()));
    }
    // The learning-rate axis runs from 0 to just above the largest rate shown (0.05, or 0.025 when the
    // first point shown is past the step at 8), so a constant rate is not drawn at 0 of a ±2 axis.
    bool found = false;
    const double largest = panel->ratePlot()->graph(0)->getValueRange(found).upper;
    QVERIFY(found && (largest == double(0.05f) || largest == double(0.025f)));
    const QCPRange rateAxis = panel->ratePlot()->yAxis->range();
    QVERIFY2(rateAxis.lower == 0 && rateAxis.upper > largest && rateAxis.upper < 1.2 * largest,
             qPrintable(QString("learning-rate axis %1..%2, largest rate %3")
                            .arg(rateAxis.lower)
                            .arg(rateAxis.upper)
                            .arg(largest)));

    panel->pauseButton()->click();
    QVERIFY(paused.wait(20000)); // the iteration in flight has finished; the worker waits
    const int pausedAt = paused.first().first().toInt();
    QCOMPARE(panel->progressBar()->value(), pausedAt); // the throttled last iteration was flushed
    QCOMPARE(panel->statusLabel()->text(), QString("Paused after iteration %1.").arg(pausedAt));
    // Every iteration so far is drawn, one point each, as metrics.csv holds them (the throttle dropped
    // those between its signals: 7 points for 231 rows, a loss spike between two signals never shown).
    const std::vector<MetricsRow> rows = readMetrics(dir.filePath("run/metrics.csv").toStdString());
    QCOMPARE(int(rows.size()), pausedAt);
    QCOMPARE(panel->plot()->graph(0)->dataCount(), pausedAt);
    for (int i = 0; i < pausedAt; ++i)
        QCOMPARE(int(panel->plot()->graph(0)->data()->at(i)->key), i + 1);
    // A paused run is on disk (left paused overnight, a crash or a power cut lost it all).
    const auto pauseCheckpoint = readCheckpointHeader(dir.filePath("run/toy_last.state").toStdString());
    QVERIFY(pauseCheckpoint);
    QCOMPARE(pauseCheckpoint->iteration, pausedAt);
    QTest::qWait(400);
    QCOMPARE(panel->progressBar()->value(), pausedAt);
    QCOMPARE(panel->pauseButton()->text(), QString("Resume"));
    // While a run is on (paused too), the network it writes for stays open: Open Recent is off, and
    // opening another is refused in words (the run would report the other network's folder).
    QMenu* recent = window.findChild<QMenu*>("recentMenu");
    QVERIFY(recent && !recent->isEnabled());
    QVERIFY(!window.openFile(cfg.fileName()));
    QVERIFY(window.statusBar()->currentMessage().startsWith("Training is running"));

    panel->pauseButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(panel->progressBar()->value() > pausedAt, 20000);

    panel->stopButton()->setFocus();
    panel->stopButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isTraining(), 20000);
    // The keyboard goes back to Train, without passing down the chain (the dock scrolled after it).
    QVERIFY(panel->trainButton()->hasFocus());
    // The settings are back, and under the Data field what the set holds: the read that fell in the
    // run (Train came within its 400 ms) had left it blank.
    QTRY_VERIFY_WITH_TIMEOUT(panel->findChild<QLabel*>("trainDataCheck")->text().startsWith("Data: "), 30000);
    QCOMPARE(changed.count(), 2); // on, off
    QVERIFY(recent->isEnabled()); // (it lists the opened cfg)
    ticker.stop();
    // The worker throttles progress to one signal per 50 ms (plus the pause flush, the end and every
    // validation point, which is never dropped: a fast machine validates every 100 iterations several
    // times in a run this short), so the GUI thread is never flooded: a count, not a timing, so a loaded
    // machine cannot fail it.
    const qint64 ranMs = running.elapsed();
    const int validations = panel->plot()->graph(2)->dataCount();
    const int signalsTaken = panel->progressSignals(); // (not inside QVERIFY2: it evaluates them twice)
    QVERIFY2(signalsTaken <= ranMs / 50 + 4 + validations,
             qPrintable(QString("%1 progress signals (%2 validations) in %3 ms")
                            .arg(signalsTaken)
                            .arg(validations)
                            .arg(ranMs)));
    // Training never runs on the GUI thread: the 10 ms timer kept firing. The bound is loose (a
    // loaded 2-core machine or a sanitizer build stretches gaps); training here would block for
    // the whole run.
    QVERIFY2(worstGap <= 1000, qPrintable(QString("the event loop was blocked for %1 ms").arg(worstGap)));

    const QString state = dir.filePath("run/toy_last.state");
    QVERIFY(QFileInfo::exists(state));
    QVERIFY(QFileInfo::exists(dir.filePath("run/toy_last.weights")));
    std::string error;
    const NetworkSpec spec = buildNetworkSpec(cfg::Document::load(cfg.fileName().toStdString()));
    auto net = Net::create(spec, spec.net.layerBatch(), error);
    TrainState loaded;
    QVERIFY(!loadCheckpoint(state.toStdString(), *net, loaded));
    QVERIFY(loaded.iteration >= pausedAt);
    QCOMPARE(
        panel->statusLabel()->text(),
        QString("Stopped at iteration %1 / 100000; checkpoint in %2. Train resumes it (untick \"Resume from "
                "the last checkpoint\" to start over).")
            .arg(panel->progressBar()->value())
            .arg(dir.filePath("run")));
    QVERIFY(panel->resumeBox()->isChecked()); // Train after Stop carries on (it set the run aside)
    const int stoppedAt = panel->progressBar()->value();
    // Iterations set below where it stopped: said at once (it kept saying "Train resumes it").
    panel->maxBatchesSpin()->setValue(1);
    QTRY_VERIFY_WITH_TIMEOUT(panel->statusLabel()->text().contains("already past Iterations (1)"), 5000);
    panel->maxBatchesSpin()->setValue(0);
    QTRY_VERIFY_WITH_TIMEOUT(panel->statusLabel()->text().contains("Train resumes it"), 5000);
    QVERIFY(panel->weightsEdit()->isEnabled());
    // Still folded after the run (unfolded, the curves were below the fold at 1280×720): the summary
    // stays, Settings unfolds them.
    QVERIFY(!panel->dataEdit()->isVisible() && runSummary->isVisible());
    auto* settings = panel->findChild<QToolButton*>("settingsButton");
    QVERIFY(settings && settings->isEnabled() && !settings->isChecked());
    settings->click();
    QVERIFY(panel->dataEdit()->isVisible() && !runSummary->isVisible());

    // A fresh run refused before its first iteration shows none of the last run's progress or curves.
    panel->resumeBox()->setChecked(false);
    panel->dataEdit()->setText(dir.filePath("missing.data"));
    for (int i = 0; i < 200; ++i) // a long log read from its top: the new run's lines are followed
        panel->log()->appendPlainText("an earlier line");
    panel->log()->verticalScrollBar()->setValue(0);
    panel->trainButton()->click();
    QVERIFY(panel->log()->verticalScrollBar()->maximum() > 0);
    QCOMPARE(panel->log()->verticalScrollBar()->value(), panel->log()->verticalScrollBar()->maximum());
    QTRY_VERIFY_WITH_TIMEOUT(panel->statusLabel()->text().startsWith("Stopped with an error"), 20000);
    QVERIFY2(panel->statusLabel()->text().contains("missing.data"), qPrintable(panel->statusLabel()->text()));
    QCOMPARE(panel->progressBar()->value(), 0);
    QCOMPARE(panel->plot()->graph(1)->dataCount(), 0);

    // Another network starts clean: no .data beside it, no curves, no log of this run.
    QTemporaryDir other;
    QFile otherCfg(other.filePath("other.cfg"));
    QVERIFY(otherCfg.open(QIODevice::WriteOnly));
    otherCfg.write(test::kToyCfg);
    otherCfg.close();
    QVERIFY(window.openFile(otherCfg.fileName()));
    QCOMPARE(panel->dataEdit()->text(), QString());
    QCOMPARE(panel->progressBar()->value(), 0);
    QCOMPARE(panel->plot()->graph(1)->dataCount(), 0);
    QCOMPARE(panel->ratePlot()->graph(0)->dataCount(), 0);
    QCOMPARE(panel->plot()->yAxis->range().upper, 1.0); // (the last run's loss range stayed)
    QVERIFY(panel->log()->toPlainText().isEmpty());
    QVERIFY(!panel->resumeBox()->isChecked());

    // Opened again (the next day, or after a crash): the stopped run is found in the folder it trained
    // into, with its curve up to the checkpoint, and Train resumes it.
    QVERIFY(window.openFile(cfg.fileName()));
    QCOMPARE(panel->outputEdit()->text(), dir.filePath("run"));
    QVERIFY(panel->resumeBox()->isChecked());
    QVERIFY2(
        panel->statusLabel()->text().startsWith(QString("A run stopped at iteration %1 (").arg(stoppedAt)),
        qPrintable(panel->statusLabel()->text()));
    QVERIFY(panel->plot()->graph(1)->dataCount() > 0);
    QCOMPARE(int(panel->plot()->graph(1)->data()->at(panel->plot()->graph(1)->dataCount() - 1)->key),
             stoppedAt);
    QCOMPARE(panel->ratePlot()->graph(0)->dataCount(), panel->plot()->graph(1)->dataCount()); // rates too
    QCOMPARE(panel->progressBar()->value(), stoppedAt); // the bar stands where the run stopped
    // Other data chosen: that run trained on toy.data, so Train starts afresh unless Resume is ticked.
    const QString toyData = panel->dataEdit()->text();
    panel->dataEdit()->setText(dir.filePath("other.data"));
    QTRY_VERIFY_WITH_TIMEOUT(panel->statusLabel()->text().contains("not on the chosen data"), 5000);
    QVERIFY(!panel->resumeBox()->isChecked());
    panel->dataEdit()->setText(toyData);
    QTRY_VERIFY_WITH_TIMEOUT(panel->resumeBox()->isChecked(), 5000);
    // Another network of this name (another project's toy.cfg, whose default folder is this one's) or
    // this one edited since: the run's toy_trained.cfg differs, so Train starts afresh (it went on with
    // the other network's checkpoint and overwrote it).
    const QByteArray original = test::readAll(cfg.fileName());
    test::writeFile(cfg.fileName(), QByteArray(original).replace("filters=4", "filters=6"));
    QVERIFY(window.openFile(cfg.fileName()));
    QVERIFY(!panel->resumeBox()->isChecked());
    QVERIFY2(panel->statusLabel()->text().contains("trained another network of this name, or another version "
                                                   "of this one (" +
                                                   dir.filePath("run/toy_trained.cfg") +
                                                   "): Train starts a new run"),
             qPrintable(panel->statusLabel()->text()));
    // Its schedule raised (max_batches, steps: Darknet's users train further so) is still this network:
    // Train resumes it (it was "another version", and the iterations were set aside).
    QByteArray longer = original;
    QVERIFY(longer.contains("max_batches=100000") && longer.contains("steps=8"));
    longer.replace("max_batches=100000", "max_batches=200000").replace("steps=8", "steps=30");
    longer += "\n# a comment (no change either)\n";
    test::writeFile(cfg.fileName(), longer);
    QVERIFY(window.openFile(cfg.fileName()));
    QVERIFY2(panel->resumeBox()->isChecked(), qPrintable(panel->statusLabel()->text()));
    test::writeFile(cfg.fileName(), original);
    QVERIFY(window.openFile(cfg.fileName()));
    QVERIFY(panel->resumeBox()->isChecked());
}

// The Output folder as meant (a pasted space made a folder " " in the working folder, "~/runs" one named
// "~", a relative path landed in a desktop launch's working folder) and checked as the CLI checks --out
// before the data set loads and before the last run's curves are cleared (it failed after both with
// "cannot create : Invalid argument").
void TestTrainPanel::theOutputFolderIsCheckedBeforeTheRun()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 16);
    test::writeFile(dir.filePath("toy.cfg"), test::kToyCfg);
    test::writeFile(dir.filePath("a-file"), "not a folder");
    ui::TrainPanel panel;
    panel.setNetwork(dir.filePath("toy.cfg"));
    panel.setPlannedIterations(0); // a cfg without max_batches: Iterations must say
    panel.outputEdit()->setText(dir.filePath("run"));
    panel.trainButton()->click();
    QVERIFY(!panel.isTraining());
    QCOMPARE(panel.statusLabel()->text(),
             QString("Not started: [net] has no max_batches (the run's length): set "
                     "Iterations, or max_batches in [net]."));
    panel.maxBatchesSpin()->setValue(2);
    const auto refused = [&](const QString& output) {
        panel.outputEdit()->setText(output);
        panel.trainButton()->click();
        return panel.isTraining() ? QString("started") : panel.statusLabel()->text();
    };
    QCOMPARE(refused("  "),
             QString("Not started: the Output folder is empty: choose the folder its weights and "
                     "checkpoints go to."));
    QCOMPARE(refused(dir.filePath("a-file")),
             QString("Not started: %1 is a file, not a folder: choose another Output folder.")
                 .arg(dir.filePath("a-file")));
    QCOMPARE(refused(" run "), QString("started")); // beside the cfg, spaces dropped
    QCOMPARE(panel.outputEdit()->text(), dir.filePath("run"));
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 60000);
    QVERIFY(QFileInfo::exists(dir.filePath("run/toy_final.weights")));
    QCOMPARE(ui::resolvedRunFolder("~/runs/x/", dir.filePath("toy.cfg")), QDir::homePath() + "/runs/x");
    // The run there is found as the folder is typed (it was looked for under " run " itself, so a stopped
    // run went unnoticed and Train set it aside).
    panel.outputEdit()->setText("elsewhere");
    panel.outputEdit()->setText(" run ");
    QTRY_VERIFY2(panel.statusLabel()->text().startsWith("The last run here finished at iteration 2"),
                 qPrintable(panel.statusLabel()->text()));
}

// Learning rate had five decimals: 0.000004 typed became 0, read as "cfg's rate" (and 0.000006 became
// 0.00001). Rates are kept as typed, in either form, and shown so.
void TestTrainPanel::aFineTuningRateIsKept()
{
    ui::TrainPanel panel;
    auto* rate = panel.findChild<QDoubleSpinBox*>("learningRate");
    QVERIFY(rate);
    QCOMPARE(rate->text(), QString("cfg's rate"));
    rate->stepBy(1); // up from the cfg's rate: a rate one would try, not 1e-12
    QCOMPARE(rate->value(), 0.001);
    rate->stepBy(1);
    QCOMPARE(rate->value(), 0.0011);
    for (const auto& [typed, value, shown] : {std::tuple{"0.000004", 4e-6, "4e-06"},
                                              {"6e-7", 6e-7, "6e-07"},
                                              {"0.001", 1e-3, "0.001"},
                                              {"12.5", 12.5, "12.5"}}) {
        rate->findChild<QLineEdit*>()->selectAll();
        QTest::keyClicks(rate, typed);
        QTest::keyClick(rate, Qt::Key_Enter);
        QCOMPARE(rate->value(), value);
        QCOMPARE(rate->text(), QString(shown));
    }
    rate->findChild<QLineEdit*>()->selectAll();
    QTest::keyClicks(rate, "abc"); // refused as typed
    QCOMPARE(rate->value(), 12.5);
}

// Evaluate scores the run's weights on the validation set without training: a classifier's top-1 equals
// the run's own last validation of the same weights, a detector's mAP what `netwright-cli map` gives; a
// missing choice is said, and a long evaluation can be cancelled.
void TestTrainPanel::evaluateScoresWeightsOnTheValidationSet()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 48);
    test::writeFile(dir.filePath("toy.cfg"), test::kToyCfg);
    ui::TrainPanel panel;
    panel.setNetwork(dir.filePath("toy.cfg"));
    panel.outputEdit()->setText(dir.filePath("run"));
    QToolButton* evaluate = panel.classResults()->evaluateButton();
    evaluate->click(); // nothing trained yet
    QVERIFY2(panel.statusLabel()->text().startsWith("No weights to evaluate"),
             qPrintable(panel.statusLabel()->text()));
    panel.maxBatchesSpin()->setValue(4);
    panel.findChild<QSpinBox*>("validEvery")->setValue(4);
    panel.trainButton()->click();
    QVERIFY(!evaluate->isEnabled()); // (the cores are the run's)
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 60000);
    QVERIFY(evaluate->isEnabled());
    const double lastValidation = panel.plot()->graph(2)->data()->at(0)->value;
    panel.views()->setCurrentIndex(0);
    evaluate->click();
    QCOMPARE(panel.views()->currentWidget(), static_cast<QWidget*>(panel.classResults()));
    QTRY_COMPARE_WITH_TIMEOUT(evaluate->text(), QString("Evaluate"), 30000);
    const QString headline = panel.classResults()->headline()->text();
    QVERIFY2(headline == QString("toy_final.weights on the validation set: 48 images, top-1 %1 %")
                             .arg(lastValidation, 0, 'f', 2),
             qPrintable(headline));
    QVERIFY(panel.statusLabel()->text().startsWith("Evaluated " + dir.filePath("run/toy_final.weights")));

    // The bundled detector on a fresh shapes set: mAP as `map` computes it.
    ShapesOptions options;
    options.count = 60;
    QVERIFY(!makeShapes(dir.filePath("shapes").toStdString(), options));
    const QString cfg = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    const QString weights = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights";
    const test::Run map = test::cli({"map", dir.filePath("shapes/shapes.data"), cfg, weights, "--json"});
    QCOMPARE(map.exitCode, 0);
    const double expected = QJsonDocument::fromJson(map.out).object()["map50"].toDouble();
    ui::TrainPanel detector;
    detector.setNetwork(cfg);
    detector.dataEdit()->setText(dir.filePath("shapes/shapes.data"));
    detector.weightsEdit()->setText(weights);
    detector.outputEdit()->setText(dir.filePath("none"));
    detector.classResults()->evaluateButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(detector.classResults()->evaluateButton()->text(), QString("Evaluate"), 60000);
    const QString detected = detector.classResults()->headline()->text();
    QVERIFY2(detected.startsWith(QString("shapes-tiny.weights on the validation set: mAP@0.5 %1 % over ")
                                     .arg(expected * 100, 0, 'f', 2)),
             qPrintable(detected + " / map: " + QString::number(expected)));
    // With map's other figures (the page gave mAP@0.5 alone).
    const QJsonObject mapped = QJsonDocument::fromJson(map.out).object();
    QVERIFY2(detected.endsWith(QString("; mAP@0.5:0.95 %1 %; at confidence 0.25: precision %2, recall %3")
                                   .arg(mapped["map50_95"].toDouble() * 100, 0, 'f', 2)
                                   .arg(mapped["precision"].toDouble(), 0, 'f', 2)
                                   .arg(mapped["recall"].toDouble(), 0, 'f', 2)),
             qPrintable(detected + " / map: " + QString::fromUtf8(map.out.left(300))));
    QCOMPARE(detector.classResults()->classTable()->rowCount(), 5);

    // Cancelled: 10,000 Fashion-MNIST images take longer than the click that follows.
    if (!QFileInfo::exists("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"))
        QSKIP("the cancel check needs dataset-fashion-mnist (scripts/setup.sh installs it)");
    ui::TrainPanel fashion;
    fashion.setNetwork(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg");
    QVERIFY(!QDir(dir.filePath("fm")).exists());
    fashion.outputEdit()->setText(dir.filePath("fm"));
    const test::Run init = test::cli({"init", QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg",
                                      dir.filePath("fm-random.weights")});
    QCOMPARE(init.exitCode, 0);
    fashion.weightsEdit()->setText(dir.filePath("fm-random.weights"));
    fashion.classResults()->evaluateButton()->click();
    QCOMPARE(fashion.classResults()->evaluateButton()->text(), QString("Cancel"));
    fashion.classResults()->evaluateButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(fashion.classResults()->evaluateButton()->text(), QString("Evaluate"), 30000);
    QCOMPARE(fashion.classResults()->headline()->text(),
             QString("Evaluation of fm-random.weights cancelled."));
    // Another network opened mid-evaluation: what the evaluation sends later is not shown on its page.
    fashion.classResults()->evaluateButton()->click();
    QCOMPARE(fashion.classResults()->evaluateButton()->text(), QString("Cancel"));
    fashion.setNetwork(dir.filePath("toy.cfg"));
    QTRY_COMPARE_WITH_TIMEOUT(fashion.classResults()->evaluateButton()->text(), QString("Evaluate"), 30000);
    QTest::qWait(50);
    // ("No validation yet", or a note on a run of toy.cfg found in its folder: never the evaluation's)
    QVERIFY2(!fashion.classResults()->headline()->text().contains("fm-random"),
             qPrintable(fashion.classResults()->headline()->text()));
    QVERIFY(!fashion.statusLabel()->text().contains("fm-random"));
}

// Save As after a Stop: the checkpoint Resume pointed at is the old name's, which a run of the new name
// cannot continue (Train failed with "cannot open the training state"): Resume is unticked in words,
// Train starts the new name's run, and the old run's checkpoint stays where it was.
void TestTrainPanel::saveAsAfterAStopStartsTheNewNamesRun()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 64);
    test::writeFile(dir.filePath("toy.cfg"),
                    QByteArray(test::kToyCfg).replace("max_batches=12", "max_batches=100000"));
    ui::TrainPanel panel;
    panel.setNetwork(dir.filePath("toy.cfg"));
    panel.outputEdit()->setText(dir.filePath("run"));
    panel.trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(panel.progressBar()->value() >= 2, 20000);
    // Saved as during the run: the run keeps its name; the new one takes over when it stops (Resume
    // stayed ticked for the new name, whose checkpoint did not exist).
    panel.renameNetwork(dir.filePath("variant.cfg"));
    QCOMPARE(panel.cfgPath(), dir.filePath("toy.cfg"));
    panel.stopButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 20000);
    QCOMPARE(panel.cfgPath(), dir.filePath("variant.cfg"));
    // The bar stays where the run stopped when Iterations changes (it went back to 0).
    const int stoppedAt = panel.progressBar()->value();
    QVERIFY(stoppedAt >= 2);
    panel.maxBatchesSpin()->setValue(500);
    QCOMPARE(panel.progressBar()->value(), stoppedAt);
    panel.maxBatchesSpin()->setValue(0);
    const QByteArray checkpoint = test::readAll(dir.filePath("run/toy_last.state"));
    QVERIFY(!checkpoint.isEmpty());
    QVERIFY(!panel.resumeBox()->isChecked());
    QVERIFY2(panel.statusLabel()->text().startsWith("Saved as variant.cfg: its runs are named variant_…, so "
                                                    "Train starts a new one. The stopped run of toy keeps"),
             qPrintable(panel.statusLabel()->text()));
    test::writeFile(dir.filePath("variant.cfg"), test::kToyCfg);
    panel.maxBatchesSpin()->setValue(2);
    panel.trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 20000);
    QVERIFY2(panel.statusLabel()->text().startsWith("Finished"), qPrintable(panel.log()->toPlainText()));
    QVERIFY(QFileInfo::exists(dir.filePath("run/variant_final.weights")));
    QCOMPARE(test::readAll(dir.filePath("run/toy_last.state")), checkpoint);
    // A rename back to a name whose checkpoint is there keeps Resume as it is.
    panel.resumeBox()->setChecked(true);
    panel.renameNetwork(dir.filePath("toy.cfg"));
    QVERIFY(panel.resumeBox()->isChecked());
    { // A run training there now (the CLI, another window) is not offered as a stopped one to resume.
        std::string error;
        RunFolderLock held(dir.filePath("run").toStdString(), "another run", error);
        QVERIFY2(held.locked(), error.c_str());
        ui::TrainPanel other;
        other.setNetwork(dir.filePath("toy.cfg"));
        other.outputEdit()->setText(dir.filePath("run"));
        QTRY_VERIFY2(
            other.statusLabel()->text().startsWith("A run is training in " + dir.filePath("run") + " now"),
            qPrintable(other.statusLabel()->text()));
        QVERIFY(!other.resumeBox()->isChecked());
    }
}

// A resumed run draws the earlier run only up to its checkpoint: rows after it (a run that failed
// after checkpointing) were drawn and zigzagged with the new ones. Pause → Stop leaves the Pause
// button as it was; a zoom holds while the run goes on, and a double-click follows it again.
void TestTrainPanel::resumeDrawsTheCheckpointsCurveAndZoomHolds()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 600);
    test::writeFile(dir.filePath("toy.cfg"),
                    QByteArray(test::kToyCfg).replace("max_batches=12", "max_batches=100000"));
    ui::TrainPanel panel;
    panel.setNetwork(dir.filePath("toy.cfg"));
    panel.outputEdit()->setText(dir.filePath("run"));
    panel.trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(panel.plot()->graph(0)->dataCount() >= 3, 20000);
    QSignalSpy paused(&panel, &ui::TrainPanel::pausedAt);
    panel.pauseButton()->click();
    QVERIFY(paused.wait(20000));
    panel.stopButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 20000);
    QCOMPARE(panel.pauseButton()->text(), QString("Pause"));
    const auto image = [&](const QIcon& icon) { return icon.pixmap(16).toImage(); };
    QVERIFY(image(panel.style()->standardIcon(QStyle::SP_MediaPause)) !=
            image(panel.style()->standardIcon(QStyle::SP_MediaPlay))); // (the comparison can tell)
    QCOMPARE(image(panel.pauseButton()->icon()), image(panel.style()->standardIcon(QStyle::SP_MediaPause)));
    const int checkpoint = panel.progressBar()->value();
    // What a run killed after its checkpoint leaves: rows past it.
    QFile metrics(dir.filePath("run/metrics.csv"));
    QVERIFY(metrics.open(QIODevice::Append));
    for (int i = checkpoint + 1; i <= checkpoint + 5; ++i)
        metrics.write(QString("%1,999,999,0.05,100,1,,\n").arg(i).toUtf8());
    metrics.close();

    for (QCheckBox* box : panel.findChildren<QCheckBox*>())
        if (box->text().startsWith("Resume"))
            box->setChecked(true);
    panel.weightsEdit()->setText(dir.filePath("elsewhere.weights")); // not read: said (it was silent)
    panel.trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(panel.progressBar()->value() >= checkpoint + 8, 30000);
    QVERIFY2(panel.log()->toPlainText().contains("note: Resume continues from the checkpoint in " +
                                                 dir.filePath("run") + "; the starting weights " +
                                                 dir.filePath("elsewhere.weights") + " are not read"),
             qPrintable(panel.log()->toPlainText()));
    const auto loss = panel.plot()->graph(0)->data();
    for (auto point = loss->constBegin(); point != loss->constEnd(); ++point)
        QVERIFY2(point->value < 999, qPrintable(QString("a trimmed row at %1").arg(point->key)));
    QCOMPARE(loss->at(0)->key, 1.0);       // the earlier run is drawn
    for (int i = 1; i < loss->size(); ++i) // once: every iteration after the one before
        QVERIFY(loss->at(i)->key > loss->at(i - 1)->key);

    // A plain click moves nothing and the axes go on following the run.
    const int clickedAt = panel.progressBar()->value();
    QTest::mouseClick(panel.plot(), Qt::LeftButton, {}, QPoint(100, 100));
    QTRY_VERIFY_WITH_TIMEOUT(panel.plot()->xAxis->range().upper >= double(clickedAt + 3), 20000);
    // A drag stops the axes following; a double-click follows again.
    QTest::mousePress(panel.plot(), Qt::LeftButton, {}, QPoint(100, 100));
    QMouseEvent drag(QEvent::MouseMove, QPointF(130, 100), panel.plot()->mapToGlobal(QPointF(130, 100)),
                     Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(panel.plot(), &drag);
    QTest::mouseRelease(panel.plot(), Qt::LeftButton, {}, QPoint(130, 100));
    panel.plot()->xAxis->setRange(1, 3); // (where the drag is taken to have gone)
    const int at = panel.progressBar()->value();
    QTRY_VERIFY_WITH_TIMEOUT(panel.progressBar()->value() >= at + 3, 20000);
    QCOMPARE(panel.plot()->xAxis->range().upper, 3.0);
    QTest::mouseDClick(panel.plot(), Qt::LeftButton, {}, QPoint(100, 100));
    QTRY_VERIFY_WITH_TIMEOUT(panel.plot()->xAxis->range().upper >= double(at + 3), 20000);
    panel.stopButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 20000);

    // Resumed and stopped before its first iteration: the earlier curve is drawn whole, its last
    // iteration inside the x axis (the axis followed the progress bar, at 0, and showed 0..10). The
    // bar and the status stand at the checkpoint, as the log (they said "after iteration 0" and
    // "before the first iteration").
    const int last = panel.progressBar()->value();
    QVERIFY(last > 10);
    QSignalSpy pausedAgain(&panel, &ui::TrainPanel::pausedAt);
    panel.trainButton()->click();
    panel.pauseButton()->click(); // (held before its first iteration once started)
    QVERIFY(pausedAgain.wait(20000));
    QCOMPARE(panel.progressBar()->value(), last);
    QCOMPARE(panel.statusLabel()->text(), QString("Paused after iteration %1.").arg(last));
    panel.stopButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 20000);
    QCOMPARE(panel.progressBar()->value(), last);
    QVERIFY2(panel.statusLabel()->text().startsWith(QString("Stopped at iteration %1 /").arg(last)),
             qPrintable(panel.statusLabel()->text()));
    bool found = false;
    QCOMPARE(panel.plot()->graph(0)->getKeyRange(found).upper, double(last));
    QVERIFY(panel.plot()->xAxis->range().upper >= double(last));
    QTest::mouseDClick(panel.plot(), Qt::LeftButton, {}, QPoint(100, 100));
    // A little room past the last point, so a validation point there is drawn whole.
    QCOMPARE(panel.plot()->xAxis->range().upper, 1.02 * double(last));
}

// Resume ticked on a run that already reached its iterations: nothing is trained, and the panel says
// so and what to do (it showed "0 / 12 iterations" beside "Finished. Weights and checkpoint in …").
void TestTrainPanel::resumingAFinishedRunSaysThereIsNothingToTrain()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 600);
    test::writeFile(dir.filePath("toy.cfg"), QByteArray(test::kToyCfg)); // max_batches=12
    ui::TrainPanel panel;
    panel.setNetwork(dir.filePath("toy.cfg"));
    panel.outputEdit()->setText(dir.filePath("run"));
    panel.trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 60000);
    // The status at the end gives the run's last validation figure, the one drawn last.
    const double top1 = panel.plot()->graph(2)->data()->at(panel.plot()->graph(2)->dataCount() - 1)->value;
    QCOMPARE(panel.statusLabel()->text(),
             QString("Finished: validation top-1 %1 % at iteration 12. Weights and "
                     "checkpoint in %2")
                 .arg(top1, 0, 'f', 2)
                 .arg(dir.filePath("run")));
    // The last iteration's validation was announced before it ran (a long one looked like a hang).
    const QString log = panel.log()->toPlainText();
    const auto announced = log.indexOf("evaluating at iteration 12: top-1 on 600 validation images");
    QVERIFY2(announced >= 0, qPrintable(log));
    QVERIFY(announced < log.indexOf("Iteration 12 / 12"));
    for (QCheckBox* box : panel.findChildren<QCheckBox*>())
        if (box->text().startsWith("Resume")) {
            QVERIFY(!box->isChecked()); // (a finished run has nothing to resume)
            box->setChecked(true);
        }
    panel.trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 60000);
    QCOMPARE(panel.statusLabel()->text(),
             QString("Nothing to train: the checkpoint is already at iteration 12 of 12. Raise Iterations "
                     "to go on, or untick Resume to start afresh."));
    QCOMPARE(panel.progressBar()->maximum(), 12);
    QCOMPARE(panel.progressBar()->value(), 12);
    // Killed between its last checkpoint and its final weights: a resume writes them from the checkpoint
    // (it said "nothing to train" and they never came).
    const QByteArray last = test::readAll(dir.filePath("run/toy_last.weights"));
    QVERIFY(QFile::remove(dir.filePath("run/toy_final.weights")));
    panel.trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 60000);
    QCOMPARE(test::readAll(dir.filePath("run/toy_final.weights")), last);
    QVERIFY2(panel.log()->toPlainText().contains("without its final weights: " + dir.filePath("run/toy") +
                                                 "_final.weights written from it"),
             qPrintable(panel.log()->toPlainText()));
}

// A stopped run's schedule comes back with its network (Iterations 50000 returned as the cfg's max_batches,
// and a run already past it had nothing to train); Train with Iterations below the checkpoint changes no
// file (it wrote _final.weights, and the stopped run then read as finished and was set aside).
void TestTrainPanel::aStoppedRunKeepsItsScheduleAndALowerOneChangesNothing()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 64);
    test::writeFile(dir.filePath("toy.cfg"),
                    QByteArray(test::kToyCfg).replace("max_batches=12", "max_batches=100000"));
    const QString state = dir.filePath("run/toy_last.state");
    QByteArray checkpoint;
    {
        ui::TrainPanel panel;
        panel.setNetwork(dir.filePath("toy.cfg"));
        panel.outputEdit()->setText(dir.filePath("run"));
        panel.maxBatchesSpin()->setValue(50000);
        panel.findChild<QSpinBox*>("validEvery")->setValue(0);
        panel.trainButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(panel.progressBar()->value() >= 2, 20000);
        panel.stopButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 20000);
        checkpoint = test::readAll(state);
        QVERIFY(!checkpoint.isEmpty());
        const QStringList files = QDir(dir.filePath("run")).entryList(QDir::Files);
        QVERIFY(panel.resumeBox()->isChecked());
        panel.maxBatchesSpin()->setValue(1);
        panel.trainButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 20000);
        QVERIFY2(panel.statusLabel()->text().startsWith(
                     "Nothing to train: the checkpoint is already at iteration"),
                 qPrintable(panel.statusLabel()->text()));
        QCOMPARE(QDir(dir.filePath("run")).entryList(QDir::Files), files);
        QCOMPARE(test::readAll(state), checkpoint);
    }
    ui::TrainPanel reopened;
    reopened.setNetwork(dir.filePath("toy.cfg"));
    QCOMPARE(reopened.outputEdit()->text(), dir.filePath("run"));
    QCOMPARE(reopened.maxBatchesSpin()->value(), 1);
    QCOMPARE(reopened.findChild<QSpinBox*>("validEvery")->value(), 0);
    QVERIFY(reopened.resumeBox()->isChecked());
    QVERIFY2(
        reopened.statusLabel()->text().contains("already past Iterations (1): raise Iterations to resume it"),
        qPrintable(reopened.statusLabel()->text()));
    // Another network has its own schedule: the cfg's.
    test::writeFile(dir.filePath("other.cfg"), test::kToyCfg);
    reopened.setNetwork(dir.filePath("other.cfg"));
    QCOMPARE(reopened.maxBatchesSpin()->value(), 0);
    QCOMPARE(reopened.findChild<QSpinBox*>("validEvery")->value(), 100);
}

// Tab goes through the settings as they read, top to bottom and left to right (Shapes data set and the
// browse buttons came after the rows below them).
void TestTrainPanel::tabFollowsTheRows()
{
    ui::TrainPanel panel;
    QStringList order;
    QWidget* widget = panel.trainButton();
    for (int step = 0; step < 20; ++step) {
        const auto* button = qobject_cast<QAbstractButton*>(widget);
        const auto* box = qobject_cast<QAbstractSpinBox*>(widget);
        order << (button                           ? button->text()
                  : box                            ? box->accessibleName()
                  : widget->objectName().isEmpty() ? QString(widget->metaObject()->className())
                                                   : widget->objectName());
        do
            widget = widget->nextInFocusChain();
        while (!(widget->focusPolicy() & Qt::TabFocus) ||
               qobject_cast<QAbstractSpinBox*>(widget->parentWidget())); // (a spin box's own line edit)
    }
    QCOMPARE(order, QStringList({"Train",
                                 "Pause",
                                 "Stop",
                                 "Settings",
                                 "trainData",
                                 "…",
                                 "Shapes data set",
                                 "trainWeights",
                                 "…",
                                 "trainOutput",
                                 "…",
                                 "Iterations",
                                 "Validate every",
                                 "Learning rate",
                                 "Resume from the last checkpoint",
                                 "QComboBox",
                                 "qt_tabwidget_tabbar",
                                 "Log scale",
                                 "Compare",
                                 "Export"}));
    // A wheel over a field not clicked into scrolls the panel, its value kept (scrolling the dock over
    // "Validate every" changed 100 to 105); once focused, the wheel steps it.
    QSpinBox* iterations = panel.maxBatchesSpin();
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    iterations->setValue(100);
    const auto wheel = [&] {
        QWheelEvent event(QPointF(5, 5), iterations->mapToGlobal(QPointF(5, 5)), QPoint(), QPoint(0, 120),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(iterations, &event);
    };
    wheel();
    QCOMPARE(iterations->value(), 100);
    iterations->setFocus();
    QTRY_VERIFY(iterations->hasFocus());
    wheel();
    QVERIFY(iterations->value() > 100);
}

// Save As gives the copy its own run folder unless one was chosen by hand (the copy trained into the
// original's runs/<name>/ and set that network's files aside).
void TestTrainPanel::saveAsMovesTheRunFolderUnlessChosen()
{
    QTemporaryDir dir;
    test::writeFile(dir.filePath("abc.cfg"), test::kToyCfg);
    ui::TrainPanel panel;
    panel.setNetwork(dir.filePath("abc.cfg"));
    QVERIFY2(panel.outputEdit()->text().endsWith("/runs/abc"), qPrintable(panel.outputEdit()->text()));
    panel.renameNetwork(dir.filePath("abc2.cfg"));
    QVERIFY2(panel.outputEdit()->text().endsWith("/runs/abc2"), qPrintable(panel.outputEdit()->text()));
    panel.outputEdit()->setText(dir.filePath("mine"));
    panel.renameNetwork(dir.filePath("abc3.cfg"));
    QCOMPARE(panel.outputEdit()->text(), dir.filePath("mine"));
}

// A network without weights or names beside it (a Darknet project's cfg): Detect takes the names of the
// .data file chosen in Training, and the weights of the run that just ended; what the user chose in
// Detect is never replaced.
void TestTrainPanel::detectTakesTheDataNamesAndTheTrainedWeights()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 48);
    // (names not called after the cfg: only the .data file leads to them)
    test::writeFile(dir.filePath("toy.data"),
                    test::readAll(dir.filePath("toy.data")) + "names=classes.names\n");
    test::writeFile(dir.filePath("classes.names"), "left\nright\nmiddle\n");
    test::writeFile(dir.filePath("toy.cfg"), QByteArray(test::kToyCfg)); // max_batches=12
    ui::MainWindow window;
    QVERIFY(window.openFile(dir.filePath("toy.cfg")));
    ui::TrainPanel* panel = window.trainPanel();
    ui::DetectPanel* detect = window.findChild<ui::DetectPanel*>();
    QVERIFY(detect && detect->weightsPath().isEmpty());
    QCOMPARE(panel->dataEdit()->text(), dir.filePath("toy.data")); // (found beside the cfg)
    QCOMPARE(detect->namesPath(), dir.filePath("classes.names"));
    panel->outputEdit()->setText(dir.filePath("run"));
    panel->trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isTraining(), 60000);
    QCOMPARE(detect->weightsPath(), dir.filePath("run/toy_final.weights"));
    // The next run's weights replace a suggestion.
    panel->outputEdit()->setText(dir.filePath("run1"));
    panel->trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isTraining(), 60000);
    QCOMPARE(detect->weightsPath(), dir.filePath("run1/toy_final.weights"));

    // Chosen in Detect: kept when the next run ends.
    const QString chosen = dir.filePath("chosen.weights");
    QVERIFY(QFile::copy(dir.filePath("run/toy_final.weights"), chosen));
    detect->setWeights(chosen);
    panel->outputEdit()->setText(dir.filePath("run2"));
    panel->trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isTraining(), 60000);
    QCOMPARE(detect->weightsPath(), chosen);

    // A network trained before (by the CLI, into the .data's backup= folder): opened, Detect takes
    // that run's weights.
    test::writeFile(dir.filePath("fresh.cfg"), QByteArray(test::kToyCfg));
    test::writeFile(dir.filePath("fresh.data"), test::readAll(dir.filePath("toy.data")) +
                                                    "backup=" + dir.filePath("backup").toUtf8() + "\n");
    QVERIFY(QDir().mkpath(dir.filePath("backup")));
    QVERIFY(QFile::copy(dir.filePath("run/toy_final.weights"), dir.filePath("backup/fresh_final.weights")));
    ui::MainWindow again;
    QVERIFY(again.openFile(dir.filePath("fresh.cfg")));
    QCOMPARE(again.trainPanel()->outputEdit()->text(), dir.filePath("backup"));
    QCOMPARE(again.findChild<ui::DetectPanel*>()->weightsPath(), dir.filePath("backup/fresh_final.weights"));

    // Weights beside the cfg (a bundled network's) are a default, not a choice: the run trained here
    // replaces them (the Detect panel kept the bundled shapes-tiny.weights after a run).
    const QString bundled = dir.filePath("withweights/toy.cfg");
    QVERIFY(QDir().mkpath(dir.filePath("withweights")));
    QVERIFY(QFile::copy(dir.filePath("toy.cfg"), bundled));
    QVERIFY(QFile::copy(dir.filePath("toy.data"), dir.filePath("withweights/toy.data")));
    QVERIFY(QFile::copy(chosen, dir.filePath("withweights/toy.weights")));
    ui::MainWindow third;
    QVERIFY(third.openFile(bundled));
    ui::DetectPanel* thirdDetect = third.findChild<ui::DetectPanel*>();
    QCOMPARE(thirdDetect->weightsPath(), dir.filePath("withweights/toy.weights"));
    third.trainPanel()->outputEdit()->setText(dir.filePath("run3"));
    third.trainPanel()->trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!third.trainPanel()->isTraining(), 60000);
    QCOMPARE(thirdDetect->weightsPath(), dir.filePath("run3/toy_final.weights"));
}

// The .data a cfg trains on, in the layouts Darknet users have: named after it; Darknet's tutorials'
// cifar.data beside cifar_small.cfg; AlexeyAB's data/obj.data. Never another cfg's, nor a guess among two.
void TestTrainPanel::theDataFileOfADarknetProjectIsFound()
{
    QTemporaryDir dir;
    const auto write = [&](const QString& name) {
        QDir().mkpath(QFileInfo(dir.filePath(name)).path());
        test::writeFile(dir.filePath(name), "classes=2\n");
    };
    write("tutorial/cifar_small.cfg");
    write("tutorial/cifar.data");
    QCOMPARE(ui::dataFileFor(dir.filePath("tutorial/cifar_small.cfg")), dir.filePath("tutorial/cifar.data"));
    write("tutorial/cifar_small.data"); // named after it: first
    QCOMPARE(ui::dataFileFor(dir.filePath("tutorial/cifar_small.cfg")),
             dir.filePath("tutorial/cifar_small.data"));
    write("darknet/cifar.cfg"); // pjreddie's cfg/: cifar.data is cifar.cfg's, coco.data another's
    write("darknet/cifar.data");
    write("darknet/cifar_small.cfg");
    write("darknet/coco.data");
    write("darknet/voc.data");
    QCOMPARE(ui::dataFileFor(dir.filePath("darknet/cifar_small.cfg")), dir.filePath("darknet/cifar.data"));
    write("two/net.cfg");
    write("two/a.data");
    write("two/b.data");
    QCOMPARE(ui::dataFileFor(dir.filePath("two/net.cfg")), QString()); // no guess
    write("bundled/fashion-mnist.cfg");
    write("bundled/fashion-mnist.data");
    write("bundled/shapes-tiny.cfg");
    QCOMPARE(ui::dataFileFor(dir.filePath("bundled/shapes-tiny.cfg")), QString()); // another's
    write("ab/yolo-obj.cfg");
    write("ab/cfg/yolov4-obj.cfg");
    write("ab/data/obj.data");
    QCOMPARE(ui::dataFileFor(dir.filePath("ab/yolo-obj.cfg")), dir.filePath("ab/data/obj.data"));
    QCOMPARE(ui::dataFileFor(dir.filePath("ab/cfg/yolov4-obj.cfg")), dir.filePath("ab/data/obj.data"));
    // The panel takes it when the network opens.
    ui::TrainPanel panel;
    panel.setNetwork(dir.filePath("tutorial/cifar_small.cfg"));
    QCOMPARE(panel.dataEdit()->text(), dir.filePath("tutorial/cifar_small.data"));
    const QString ownFolder = ui::defaultRunFolder(dir.filePath("ab/yolo-obj.cfg"));
    QCOMPARE(panel.outputEdit()->text(), ui::defaultRunFolder(dir.filePath("tutorial/cifar_small.cfg")));

    // Runs go where Darknet and the CLI write: the .data file's backup= folder once it exists (in the
    // folder its train= list is found from, here one above data/), else the studio's own folder.
    test::writeFile(dir.filePath("ab/data/train.txt"), "");
    test::writeFile(dir.filePath("ab/data/obj.data"), "classes=2\ntrain=data/train.txt\nbackup=backup/\n");
    panel.setNetwork(dir.filePath("ab/yolo-obj.cfg"));
    QCOMPARE(panel.outputEdit()->text(), ownFolder); // no backup/ yet
    QVERIFY(QDir().mkpath(dir.filePath("ab/backup")));
    panel.setNetwork(dir.filePath("ab/yolo-obj.cfg"));
    QCOMPARE(panel.outputEdit()->text(), dir.filePath("ab/backup"));
    panel.dataEdit()->setText(dir.filePath("tutorial/cifar.data")); // no backup=: the folder follows
    QCOMPARE(panel.outputEdit()->text(), ownFolder);
    // An absolute backup= names its place without a doubt: taken before it exists, in a folder that does.
    test::writeFile(dir.filePath("ab/data/obj.data"),
                    "classes=2\nbackup=" + dir.filePath("runs/obj").toUtf8() + "/\n");
    panel.setNetwork(dir.filePath("ab/yolo-obj.cfg"));
    QCOMPARE(panel.outputEdit()->text(), ownFolder); // runs/ does not exist either
    QVERIFY(QDir().mkpath(dir.filePath("runs")));
    panel.setNetwork(dir.filePath("ab/yolo-obj.cfg"));
    QCOMPARE(panel.outputEdit()->text(), dir.filePath("runs/obj"));
    test::writeFile(dir.filePath("ab/data/obj.data"), "classes=2\ntrain=data/train.txt\nbackup=backup/\n");
    panel.outputEdit()->setText(dir.filePath("mine")); // a folder the user chose stays
    panel.dataEdit()->setText(dir.filePath("ab/data/obj.data"));
    QCOMPARE(panel.outputEdit()->text(), dir.filePath("mine"));
}

// A .data chosen by hand was gone when the network was opened again: Train then asked for it.
void TestTrainPanel::theDataANetworkTrainedOnIsRemembered()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 16);
    test::writeFile(dir.filePath("design.cfg"), test::kToyCfg); // no design.data beside it
    QVERIFY(QDir(dir.path()).mkdir("sets"));                    // (its paths found in the folder above)
    QVERIFY(QFile::rename(dir.filePath("toy.data"), dir.filePath("sets/chosen.data")));
    // A .data the run refused is not the network's: it was offered again at the next opening.
    test::writeFile(dir.filePath("sets/refused.data"), "classes=0\ntrain=toy-images.gz\n");
    {
        ui::TrainPanel panel;
        panel.setNetwork(dir.filePath("design.cfg"));
        panel.dataEdit()->setText(dir.filePath("sets/refused.data"));
        panel.outputEdit()->setText(dir.filePath("refused-run"));
        panel.trainButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 30000);
        QVERIFY2(panel.log()->toPlainText().contains("classes=0 is not a whole number from 1 to 2147483647"),
                 qPrintable(panel.log()->toPlainText()));
    }
    {
        ui::TrainPanel panel;
        panel.setNetwork(dir.filePath("design.cfg"));
        QCOMPARE(panel.dataEdit()->text(), QString());
        panel.setNetwork(dir.filePath("design.cfg"));
        QCOMPARE(panel.dataEdit()->text(), QString());
        panel.dataEdit()->setText(dir.filePath("sets/chosen.data"));
        panel.outputEdit()->setText(dir.filePath("run"));
        panel.maxBatchesSpin()->setValue(1);
        panel.trainButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 30000);
    }
    ui::TrainPanel reopened;
    reopened.setNetwork(dir.filePath("design.cfg"));
    QCOMPARE(reopened.dataEdit()->text(), dir.filePath("sets/chosen.data"));
    // Saved as another network (a folder without a .data), it keeps that data set when opened again.
    QVERIFY(QDir(dir.path()).mkdir("mine"));
    reopened.renameNetwork(dir.filePath("mine/copy.cfg"));
    reopened.setNetwork(dir.filePath("design.cfg"));
    reopened.setNetwork(dir.filePath("mine/copy.cfg"));
    QCOMPARE(reopened.dataEdit()->text(), dir.filePath("sets/chosen.data"));
    QFile::remove(dir.filePath("sets/chosen.data")); // gone: not offered
    reopened.setNetwork(dir.filePath("design.cfg"));
    QCOMPARE(reopened.dataEdit()->text(), QString());
}

void TestTrainPanel::badDataIsReportedAndThePanelRecovers()
{
    QTemporaryDir dir;
    QFile cfg(dir.filePath("toy.cfg"));
    QVERIFY(cfg.open(QIODevice::WriteOnly));
    cfg.write(test::kToyCfg);
    cfg.close();
    ui::TrainPanel panel;
    // An unsaved new network: Train says to save it first (it was greyed out without a word).
    panel.setNetwork(QString());
    QVERIFY(panel.trainButton()->isEnabled());
    panel.trainButton()->click();
    QVERIFY(!panel.isTraining());
    QCOMPARE(panel.statusLabel()->text(), QString("Save the network first (File ▸ Save As…): a run names its "
                                                  "weights and checkpoints after the cfg file."));
    // Before a run the bar shows the run Train would start: the cfg's max_batches, or Iterations.
    panel.setPlannedIterations(200);
    QCOMPARE(panel.progressBar()->maximum(), 200);
    QCOMPARE(panel.progressBar()->value(), 0);
    panel.maxBatchesSpin()->setValue(30);
    QCOMPARE(panel.progressBar()->maximum(), 30);
    panel.maxBatchesSpin()->setValue(0);
    QCOMPARE(panel.progressBar()->maximum(), 200);
    panel.setPlannedIterations(0); // a cfg without max_batches: said, not "0 / 100"
    QCOMPARE(panel.progressBar()->text(), QString("no max_batches in [net]: set Iterations"));
    panel.setPlannedIterations(12); // (the toy cfg's, as the window tells the panel of the cfg it opens)
    panel.setNetwork(cfg.fileName());
    // No data set at all: Train says what to choose and starts nothing.
    QVERIFY(panel.dataEdit()->text().isEmpty()); // no toy.data beside the cfg
    panel.trainButton()->click();
    QVERIFY(!panel.isTraining());
    QVERIFY2(panel.statusLabel()->text().startsWith("Choose the data set first"),
             qPrintable(panel.statusLabel()->text()));
    QVERIFY(panel.statusLabel()->text().contains("Shapes data set"));
    QVERIFY(panel.trainButton()->isEnabled());
    panel.dataEdit()->setText(dir.filePath("missing.data"));
    panel.outputEdit()->setText(dir.filePath("run"));
    panel.trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 10000);
    QVERIFY(panel.log()->toPlainText().contains("missing.data: no such file (expected a .data file)"));
    QVERIFY(panel.trainButton()->isEnabled());

    // Starting weights that do not exist: the run stops with a message naming them.
    test::writeToySet(dir.path(), 32);
    panel.dataEdit()->setText(dir.filePath("toy.data"));
    panel.weightsEdit()->setText(dir.filePath("missing.weights"));
    panel.trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 10000);
    QVERIFY2(panel.log()->toPlainText().contains("missing.weights"), qPrintable(panel.log()->toPlainText()));
    QVERIFY(!QFileInfo::exists(dir.filePath("run/toy_final.weights")));
}

// What the data set holds is read when it is chosen, before Train: bad label lines with their file
// and line, and a .data that cannot be used (they came only in the run's log, the first scrolled away).
void TestTrainPanel::theDataSetIsReadBeforeTrain()
{
    QTemporaryDir dir;
    test::writeFile(dir.filePath("tiny-detector.cfg"), test::kTinyDetectorCfg);
    ShapesOptions options;
    options.count = 20;
    options.width = options.height = 64;
    QVERIFY(!makeShapes(dir.filePath("shapes").toStdString(), options));
    const QString damaged = dir.filePath("shapes/train/000003.txt");
    QFile label(damaged);
    QVERIFY(label.open(QIODevice::Append));
    label.write("7 0.5 0.5 0.1 0.1\n0 0.5 0.5\n");
    label.close();
    ui::TrainPanel panel;
    panel.setNetwork(dir.filePath("tiny-detector.cfg"));
    panel.dataEdit()->setText(dir.filePath("shapes/shapes.data"));
    QLabel* check = panel.dataCheckLabel();
    QTRY_VERIFY_WITH_TIMEOUT(check->text().startsWith("Data: 18 images, "), 20000);
    QVERIFY2(check->text().contains("2 bad label lines skipped") &&
                 check->text().contains(QRegularExpression("\n\\d+ warnings:\n")) &&
                 check->text().contains(damaged + ":"),
             qPrintable(check->text()));
    QVERIFY(check->toolTip().contains(damaged + ":") && check->toolTip().contains("class 7 is outside 0..4"));
    QVERIFY(!panel.isTraining()); // read, not trained

    // An edit that the data depends on reads it again: the advice followed (classes made equal) clears the
    // error it gave (it stayed, even after a save).
    {
        test::writeFile(dir.filePath("shapes/four.data"),
                        ("classes=4\ntrain=" + dir.filePath("shapes/train.txt") + "\n").toUtf8());
        ui::MainWindow window;
        QVERIFY(window.openFile(dir.filePath("tiny-detector.cfg")));
        ui::TrainPanel* windowPanel = window.trainPanel();
        windowPanel->dataEdit()->setText(dir.filePath("shapes/four.data"));
        QLabel* said = windowPanel->dataCheckLabel();
        QTRY_VERIFY_WITH_TIMEOUT(said->text().startsWith("Data: cannot train on it: "), 20000);
        QVERIFY2(said->text().contains("has classes=5 but"), qPrintable(said->text()));
        window.documentModel()->setValue(8, "classes", "4");  // the [yolo]
        window.documentModel()->setValue(7, "filters", "27"); // the convolution before it
        QTRY_VERIFY_WITH_TIMEOUT(said->text().startsWith("Data: 18 images"), 20000);
    }

    panel.dataEdit()->setText(dir.filePath("missing.data"));
    QTRY_VERIFY_WITH_TIMEOUT(check->text().startsWith("Data: cannot train on it: "), 20000);
    QVERIFY2(check->text().contains("missing.data: no such file"), qPrintable(check->text()));
    panel.dataEdit()->clear();
    QTRY_VERIFY_WITH_TIMEOUT(check->text().isEmpty(), 5000);
}

// The validation curve is named for the network before any run: mAP@0.5 for a detector, else top-1.
void TestTrainPanel::validationCurveIsNamedForTheOpenedNetwork()
{
    QTemporaryDir dir;
    test::writeFile(dir.filePath("toy.cfg"), test::kToyCfg);
    test::writeFile(dir.filePath("tiny-detector.cfg"), test::kTinyDetectorCfg);
    ui::MainWindow window;
    QVERIFY(window.openFile(dir.filePath("tiny-detector.cfg")));
    QCOMPARE(window.trainPanel()->plot()->graph(2)->name(), QString("validation mAP@0.5"));
    QVERIFY(window.openFile(dir.filePath("toy.cfg")));
    QCOMPARE(window.trainPanel()->plot()->graph(2)->name(), QString("validation top-1"));
}

// One click makes the shapes set; a detector trains on it with mAP points and per-head curves.
void TestTrainPanel::detectorOnTheShapesDataSet()
{
    QTemporaryDir dir;
    QFile cfg(dir.filePath("tiny-detector.cfg"));
    QVERIFY(cfg.open(QIODevice::WriteOnly));
    cfg.write(test::kTinyDetectorCfg);
    cfg.close();
    ui::TrainPanel panel;
    panel.setShapesFolder(dir.filePath("shapes"), 30);
    panel.setNetwork(cfg.fileName());
    panel.shapesButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(panel.dataEdit()->text(), dir.filePath("shapes/shapes.data"), 30000);
    QVERIFY(QFileInfo::exists(dir.filePath("shapes/valid/000030.jpg")));
    { // The bundled shapes detector, opened later, finds the set made here (its Data line stayed empty).
        QVERIFY(QDir().mkpath(dir.filePath("bundled")));
        test::writeFile(dir.filePath("bundled/shapes-tiny.cfg"), test::kTinyDetectorCfg);
        ui::TrainPanel later;
        later.setShapesFolder(dir.filePath("shapes"), 30);
        later.setNetwork(dir.filePath("bundled/shapes-tiny.cfg"));
        QCOMPARE(later.dataEdit()->text(), dir.filePath("shapes/shapes.data"));
    }
    { // Another network opened while the set is made does not get it as its Data (a classifier did).
        ui::TrainPanel switched;
        switched.setShapesFolder(dir.filePath("shapes2"), 30);
        switched.setNetwork(cfg.fileName());
        switched.shapesButton()->click();
        switched.renameNetwork(dir.filePath("saved-as.cfg")); // (the same network: it still gets it)
        switched.setNetwork(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg");
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(dir.filePath("shapes2/shapes.data")) &&
                                     switched.shapesButton()->isEnabled(),
                                 30000);
        QVERIFY2(switched.dataEdit()->text() != dir.filePath("shapes2/shapes.data"),
                 qPrintable(switched.dataEdit()->text()));
        // Saved as while the set is made: the same network, which gets it.
        ui::TrainPanel saved;
        saved.setShapesFolder(dir.filePath("shapes3"), 30);
        saved.setNetwork(cfg.fileName());
        saved.shapesButton()->click();
        saved.renameNetwork(dir.filePath("saved-as.cfg"));
        QTRY_COMPARE_WITH_TIMEOUT(saved.dataEdit()->text(), dir.filePath("shapes3/shapes.data"), 30000);
    }
    panel.outputEdit()->setText(dir.filePath("run"));
    panel.maxBatchesSpin()->setValue(20);
    panel.findChild<QSpinBox*>("validEvery")->setValue(10);
    panel.trainButton()->click();
    // Named for a detector from its first iteration, not only once the first mAP point comes.
    QTRY_VERIFY_WITH_TIMEOUT(panel.plot()->graph(0)->dataCount() >= 1, 60000);
    QCOMPARE(panel.plot()->graph(2)->name(), QString("validation mAP@0.5"));
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 60000);
    QVERIFY2(panel.log()->toPlainText().contains("Finished"), qPrintable(panel.log()->toPlainText()));
    QVERIFY(panel.log()->toPlainText().contains("boxes of 5 classes"));
    QVERIFY(!panel.headPlot()->isHidden());      // shown once a detector reports its heads
    QCOMPARE(panel.headPlot()->graphCount(), 3); // IoU, obj, class of the one head
    // Its legend in a column beside the axes (inside them, it covered the curves).
    QCOMPARE(panel.headPlot()->plotLayout()->element(0, 1),
             static_cast<QCPLayoutElement*>(panel.headPlot()->legend));
    QCOMPARE(panel.headPlot()->axisRect()->insetLayout()->elementCount(), 0);
    QVERIFY(panel.headPlot()->graph(0)->dataCount() >= 1);
    QCOMPARE(panel.plot()->graph(2)->name(), QString("validation mAP@0.5"));
    QCOMPARE(panel.plot()->graph(2)->dataCount(), 2); // at 10 and 20
    // Per class: each class's AP at the last mAP pass (named from shapes.names), whose mean over the
    // classes with boxes is the curve's last point.
    ui::ClassResultsView* perClass = panel.classResults();
    QTableWidget* table = perClass->classTable();
    QCOMPARE(table->rowCount(), 5);
    QVERIFY(perClass->matrixTable()->isHidden());
    const QStringList names = QString(test::readAll(dir.filePath("shapes/shapes.names"))).split('\n');
    double sum = 0;
    int withBoxes = 0;
    for (int row = 0; row < 5; ++row) {
        QCOMPARE(table->item(row, 0)->text(), QString("%1 %2").arg(row).arg(names[row]));
        if (table->item(row, 3)->text().toInt() > 0) {
            sum += table->item(row, 1)->data(Qt::UserRole).toDouble();
            ++withBoxes;
        }
    }
    QVERIFY(withBoxes > 0);
    const double last = panel.plot()->graph(2)->data()->at(1)->value; // (in %)
    QVERIFY2(std::abs(100 * sum / withBoxes - last) < 1e-9, qPrintable(QString::number(last)));
    QVERIFY2(perClass->headline()->text().startsWith("Validation at iteration 20: mAP@0.5 "),
             qPrintable(perClass->headline()->text()));
}

// Per class, for a classifier: the confusion matrix of the last validation (its cells sum to the
// validation set, its diagonal to the top-1 point drawn), the classes named from the .data file's
// names=, a table sortable by recall; a new run starts it afresh.
void TestTrainPanel::perClassPageShowsTheConfusionMatrix()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 48);
    test::writeFile(dir.filePath("toy.cfg"), test::kToyCfg);
    test::writeFile(dir.filePath("toy.names"), "left top\nright top\nleft bottom\n");
    test::writeFile(dir.filePath("toy.data"), test::readAll(dir.filePath("toy.data")) + "names=toy.names\n");
    ui::TrainPanel panel;
    panel.setNetwork(dir.filePath("toy.cfg"));
    QCOMPARE(panel.dataEdit()->text(), dir.filePath("toy.data"));
    ui::ClassResultsView* perClass = panel.classResults();
    QCOMPARE(panel.views()->tabText(1), QString("Per class"));
    QVERIFY(perClass->headline()->text().startsWith("No validation yet"));
    panel.outputEdit()->setText(dir.filePath("run"));
    panel.maxBatchesSpin()->setValue(6);
    panel.findChild<QSpinBox*>("validEvery")->setValue(3);
    panel.trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 60000);
    QVERIFY2(panel.statusLabel()->text().startsWith("Finished"), qPrintable(panel.log()->toPlainText()));
    QTableWidget* matrix = perClass->matrixTable();
    QVERIFY(!matrix->isHidden());
    QCOMPARE(matrix->rowCount(), 3);
    QCOMPARE(matrix->columnCount(), 3);
    QCOMPARE(matrix->verticalHeaderItem(2)->text(), QString("2 left bottom"));
    int cells = 0, diagonal = 0;
    for (int t = 0; t < 3; ++t)
        for (int c = 0; c < 3; ++c) {
            cells += matrix->item(t, c)->text().toInt();
            diagonal += t == c ? matrix->item(t, c)->text().toInt() : 0;
        }
    QCOMPARE(cells, 48);
    const QCPGraph* top1 = panel.plot()->graph(2);
    QCOMPARE(top1->dataCount(), 2); // at 3 and 6
    QVERIFY(std::abs(100.0 * diagonal / 48 - top1->data()->at(1)->value) < 1e-9);
    QVERIFY2(perClass->headline()->text().startsWith("Validation at iteration 6: 48 images, top-1 "),
             qPrintable(perClass->headline()->text()));
    // The table, sorted by recall, puts the class found least first.
    QTableWidget* table = perClass->classTable();
    QCOMPARE(table->rowCount(), 3);
    table->sortItems(2, Qt::AscendingOrder);
    double lowest = 2;
    for (int t = 0; t < 3; ++t)
        lowest = std::min(lowest, matrix->item(t, t)->text().toDouble() / 16);
    QCOMPARE(table->item(0, 2)->data(Qt::UserRole).toDouble(), lowest);
    // Right-click ▸ Copy: the matrix as CSV, its true classes as the first column.
    QAction* copy = matrix->findChild<QAction*>("copyTableCsv");
    QVERIFY(copy && matrix->actions().contains(copy));
    copy->trigger();
    const QStringList csv = QGuiApplication::clipboard()->text().split('\n', Qt::SkipEmptyParts);
    QCOMPARE(csv.size(), 4);
    QCOMPARE(csv[0], QString(",0,1,2"));
    QCOMPARE(csv[3].section(',', 0, 0), QString("2 left bottom"));
    int copied = 0;
    for (int t = 1; t <= 3; ++t)
        for (int c = 1; c <= 3; ++c)
            copied += csv[t].section(',', c, c).toInt();
    QCOMPARE(copied, 48);
    // The studio opened again on this network shows the same matrix, from the run folder.
    {
        ui::TrainPanel reopened;
        reopened.setNetwork(dir.filePath("toy.cfg"));
        reopened.outputEdit()->setText(dir.filePath("run"));
        ui::ClassResultsView* kept = reopened.classResults();
        QTRY_VERIFY2(kept->headline()->text().startsWith("Validation at iteration 6 of the run in run/: 48 "
                                                         "images, top-1 "),
                     qPrintable(kept->headline()->text()));
        QCOMPARE(kept->matrixTable()->verticalHeaderItem(2)->text(), QString("2 left bottom"));
        for (int t = 0; t < 3; ++t)
            for (int c = 0; c < 3; ++c)
                QCOMPARE(kept->matrixTable()->item(t, c)->text(), matrix->item(t, c)->text());
        // A damaged file: the page says what is wrong with it, and how to get the figures again.
        test::writeFile(dir.filePath("run/toy_classes.json"), "{\"iteration\": 6}");
        reopened.outputEdit()->setText(dir.path());
        reopened.outputEdit()->setText(dir.filePath("run"));
        QTRY_VERIFY2(kept->headline()->text().contains("toy_classes.json: neither \"confusion\" nor "
                                                       "\"class_aps\" is in it"),
                     qPrintable(kept->headline()->text()));
        QVERIFY(kept->headline()->text().contains("The last run in run/ reached iteration 6; "));
        QVERIFY(kept->headline()->text().contains(
            "Evaluate scores its weights.\nShown: Validation at iteration 6"));
    }
    // A folder that holds no run: the run's figures, titled without their folder, go.
    QVERIFY(QDir().mkpath(dir.filePath("empty")));
    panel.outputEdit()->setText(dir.filePath("empty"));
    QTRY_VERIFY2(perClass->headline()->text().startsWith("No validation yet"),
                 qPrintable(perClass->headline()->text()));
    QCOMPARE(perClass->matrixTable()->rowCount(), 0);
    panel.outputEdit()->setText(dir.filePath("run"));
    // A new run clears it until its own first validation.
    panel.maxBatchesSpin()->setValue(2);
    panel.trainButton()->click();
    QVERIFY(perClass->headline()->text().startsWith("No validation yet"));
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 60000);
}

// Unsaved edits are what trains: max_batches edited from 12 to 3 in the editor, not saved.
void TestTrainPanel::trainsWhatTheEditorShows()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 32);
    const QString cfg = dir.filePath("toy.cfg");
    test::writeFile(cfg, test::kToyCfg);
    ui::MainWindow window;
    QVERIFY(window.openFile(cfg));
    window.documentModel()->setValue(0, "max_batches", "3");
    QVERIFY(window.documentModel()->isModified());
    ui::TrainPanel* panel = window.trainPanel();
    panel->outputEdit()->setText(dir.filePath("run"));
    // Unsaved edits: Train asks first (the weights would fit no file); Cancel starts nothing, "Train
    // without saving" trains them, and the run's folder keeps the network it trained.
    window.show();
    const auto answer = [&](const QString& button) {
        QTimer::singleShot(0, &window, [&window, button] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            QVERIFY(box && box->text() == "toy.cfg has unsaved changes.");
            for (QAbstractButton* choice : box->buttons())
                if (choice->text() == button)
                    choice->click();
        });
    };
    answer("Cancel");
    panel->trainButton()->click();
    QVERIFY(!panel->isTraining());
    QVERIFY(!QFile::exists(dir.filePath("run/metrics.csv")));
    answer("Train without saving");
    panel->trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isTraining(), 30000);
    QVERIFY2(panel->statusLabel()->text().startsWith("Finished"), qPrintable(panel->log()->toPlainText()));
    QCOMPARE(panel->progressBar()->maximum(), 3);
    QVERIFY(test::readAll(cfg).contains("max_batches=12")); // trained from the editor, not the file
    QVERIFY(test::readAll(dir.filePath("run/toy_trained.cfg")).contains("max_batches=3"));
    // Saving the network keeps what the panel holds (Ctrl+S after a run used to clear it).
    const int points = panel->plot()->graph(1)->dataCount();
    QVERIFY(points > 0);
    QVERIFY(window.save());
    QCOMPARE(panel->plot()->graph(1)->dataCount(), points);
    QCOMPARE(panel->dataEdit()->text(), dir.filePath("toy.data"));
    const QStringList rows =
        QString(test::readAll(dir.filePath("run/metrics.csv"))).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 1 + 3);
    QVERIFY(test::readAll(cfg).contains("max_batches=3")); // saved now

    // A network with errors: Train says so and starts nothing. It started, failed at once, wiped the
    // last run's curves and progress, and Detect blamed the run's weights for the network's error in a
    // dialog ("toy_last.weights cannot be used with toy.cfg").
    window.documentModel()->setValue(1, "filters", "-5");
    QTRY_COMPARE(panel->dataCheckLabel()->text(),
                 QString("Data: not read while the network has errors (see Problems)"));
    panel->trainButton()->click();
    QVERIFY(!panel->isTraining());
    QVERIFY2(
        panel->statusLabel()->text().startsWith("Not started: the network has errors (see Problems). The "
                                                "first: " +
                                                cfg + ":17: error: layer 0: filters must be at least 1"),
        qPrintable(panel->statusLabel()->text()));
    QCOMPARE(panel->plot()->graph(1)->dataCount(), points);
    QCOMPARE(panel->progressBar()->value(), 3);
    QCoreApplication::processEvents();
    for (const QMessageBox* box : window.findChildren<QMessageBox*>())
        QVERIFY2(!box->isVisible(), qPrintable(box->text()));
    // Fixed: the refusal goes (it stayed beside "0 errors"), and the data is read again.
    window.documentModel()->undoStack()->undo();
    QTRY_VERIFY2(panel->statusLabel()->text().startsWith("The last run here finished at iteration 3"),
                 qPrintable(panel->statusLabel()->text()));
    QTRY_VERIFY2(panel->dataCheckLabel()->text().startsWith("Data: 32 images of 3 classes"),
                 qPrintable(panel->dataCheckLabel()->text()));

    // A new network, not saved yet, is read as the editor shows it (the Data line stayed empty).
    window.documentModel()->undoStack()->setClean();
    for (QAction* action : window.findChildren<QAction*>())
        if (action->text() == "&New")
            action->trigger();
    QVERIFY(window.documentModel()->path().isEmpty());
    panel->dataEdit()->setText(dir.filePath("toy.data"));
    QTRY_COMPARE(panel->dataCheckLabel()->text(),
                 QString("Data: not read while the network has errors (see Problems)"));
}

// The Device box: the CPU first (chosen); on a machine without a GPU (this one, CI) a disabled entry
// gives the reason; it is locked while a run goes on like the other settings. A run asked for a GPU
// that cannot be used (none here) ends with the device's words, not a crash.
void TestTrainPanel::deviceChoiceAndAGpuThatFailsStopsInWords()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 60);
    QFile cfg(dir.filePath("toy.cfg"));
    QVERIFY(cfg.open(QIODevice::WriteOnly));
    cfg.write(test::kToyCfg);
    cfg.close();

    ui::MainWindow window;
    QVERIFY(window.openFile(cfg.fileName()));
    ui::TrainPanel* panel = window.trainPanel();
    QComboBox* devices = panel->deviceBox();
    QVERIFY(devices);
    QCOMPARE(devices->itemText(0), QString("CPU"));
    QCOMPARE(devices->currentData().toInt(), -1);
    const GpuInventory inventory = listGpus(false);
    if (!inventory.devices.empty())
        QSKIP("this machine has a GPU: the no-GPU answers cannot be checked here");
    QCOMPARE(devices->count(), 2);
    QCOMPARE(devices->itemText(1), "GPU: " + QString::fromStdString(inventory.problem));
    auto* model = qobject_cast<QStandardItemModel*>(devices->model());
    QVERIFY(model && !model->item(1)->isEnabled());

    ui::TrainWorker worker;
    QSignalSpy finished(&worker, &ui::TrainWorker::finished);
    ui::TrainRequest request;
    request.cfgPath = cfg.fileName();
    request.dataPath = dir.filePath("toy.data");
    request.outDir = dir.filePath("gpu-run");
    request.device = 0;
    worker.prepareRun();
    worker.run(request); // on this thread: the worker's slot, called directly
    QCOMPARE(finished.count(), 1);
    const QString error = finished.first().first().toString();
    // A CUDA build names the device and the machine's reason; a build without CUDA says so.
    QVERIFY2(error.contains("cuda:0: no GPU: " + QString::fromStdString(inventory.problem)) ||
                 error.contains("this build has no CUDA backend"),
             qPrintable(error));
    QVERIFY(!QFileInfo::exists(dir.filePath("gpu-run/toy_final.weights")));
}

namespace {

// The toy classifier's run asked of the worker, in a child netwright-cli process.
ui::TrainRequest childRequest(const QTemporaryDir& dir, const QString& out)
{
    ui::TrainRequest request;
    request.cfgPath = dir.filePath("toy.cfg");
    request.dataPath = dir.filePath("toy.data");
    request.outDir = dir.filePath(out);
    request.childProcess = true;
    request.cliPath = NETWRIGHT_CLI;
    return request;
}

// The state letter (/proc/PID/stat: R running, S sleeping, T stopped) of this process's child (one runs
// at a time here); 0 when there is none.
char childState()
{
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile file("/proc/" + entry + "/stat");
        if (!file.open(QIODevice::ReadOnly))
            continue;
        const QByteArray stat = file.readAll();
        const qsizetype close = stat.lastIndexOf(')'); // "pid (comm) state ppid …"
        const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
        if (close > 0 && fields.size() > 1 && fields[1].toLongLong() == QCoreApplication::applicationPid())
            return fields[0].at(0);
    }
    return 0;
}

// Each row's loss in a metrics.csv.
QList<double> lossesIn(const QString& metrics)
{
    QList<double> losses;
    const QStringList rows = QString(test::readAll(metrics)).split('\n', Qt::SkipEmptyParts);
    for (int i = 1; i < rows.size(); ++i)
        losses << rows[i].split(',').value(1).toDouble();
    return losses;
}

} // namespace

// A run in a child netwright-cli (what several GPUs use: one process per GPU) reaches the panel as an
// in-process run does, and is the same training: the same losses, iteration by iteration.
void TestTrainPanel::childProcessRunTrainsAsInProcess()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 64);
    test::writeFile(dir.filePath("toy.cfg"), test::kToyCfg);
    ui::TrainWorker worker;
    QSignalSpy started(&worker, &ui::TrainWorker::started);
    QSignalSpy progress(&worker, &ui::TrainWorker::progress);
    QSignalSpy finished(&worker, &ui::TrainWorker::finished);
    ui::TrainRequest request = childRequest(dir, "child");
    request.maxBatches = 5;
    worker.prepareRun();
    worker.run(request); // on this thread: the worker's slot, called directly
    QCOMPARE(finished.count(), 1);
    QVERIFY2(finished.first().first().toString().isEmpty(), qPrintable(finished.first().first().toString()));
    QCOMPARE(started.first().at(0).toInt(), 5);
    QCOMPARE(started.first().at(1).toInt(), 8);
    const auto last = progress.last().first().value<IterationStats>();
    QCOMPARE(last.iteration, 5);
    QCOMPARE(last.maxBatches, 5);
    const QList<double> child = lossesIn(dir.filePath("child/metrics.csv"));
    QCOMPARE(child.size(), 5);
    QVERIFY(std::abs(last.loss - child.last()) <= 1e-5 * std::max(1.0, std::abs(child.last())));
    QVERIFY(QFileInfo::exists(dir.filePath("child/toy_final.weights")));

    request.childProcess = false;
    request.outDir = dir.filePath("in-process");
    worker.prepareRun();
    worker.run(request);
    QVERIFY(finished.last().first().toString().isEmpty());
    const QList<double> own = lossesIn(dir.filePath("in-process/metrics.csv"));
    QCOMPARE(own.size(), 5);
    // What the editor shows trains, unsaved edits included, even into the cfg's own folder.
    request = childRequest(dir, "");
    request.outDir = dir.path();
    request.cfgText = QString(test::kToyCfg).replace("max_batches=12", "max_batches=4");
    worker.prepareRun();
    worker.run(request);
    QVERIFY(finished.last().first().toString().isEmpty());
    QCOMPARE(lossesIn(dir.filePath("metrics.csv")).size(), 4);
    QVERIFY(test::readAll(dir.filePath("toy.cfg")).contains("max_batches=12")); // the file as it was
    for (int i = 0; i < 5; ++i) // (the thread counts may differ: sums in another order)
        QVERIFY2(std::abs(own[i] - child[i]) <= 1e-4 * std::max(1.0, std::abs(own[i])),
                 qPrintable(QString("iteration %1: %2 in-process, %3 in the child")
                                .arg(i + 1)
                                .arg(own[i])
                                .arg(child[i])));
}

// Iterations and Learning rate as shown, on a resume too: a run of 5 iterations resumed with Iterations at
// "cfg's max_batches" goes on to the cfg's 12, at the cfg's rate (it kept the earlier run's 5 and rate,
// the checkpoint's, while the panel showed the cfg's), in-process and in a child process.
void TestTrainPanel::aResumeTrainsToTheLengthShown()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 64);
    test::writeFile(dir.filePath("toy.cfg"), test::kToyCfg);
    ui::TrainWorker worker;
    QSignalSpy finished(&worker, &ui::TrainWorker::finished);
    for (const bool child : {false, true}) {
        ui::TrainRequest request = childRequest(dir, child ? "child" : "in-process");
        request.childProcess = child;
        request.maxBatches = 5;
        request.learningRate = 0.002;
        worker.prepareRun();
        worker.run(request);
        QVERIFY2(finished.last().first().toString().isEmpty(),
                 qPrintable(finished.last().first().toString()));
        request.maxBatches = 0;   // "cfg's max_batches": 12
        request.learningRate = 0; // "cfg's rate": 0.05
        request.resume = true;
        worker.prepareRun();
        worker.run(request);
        QVERIFY2(finished.last().first().toString().isEmpty(),
                 qPrintable(finished.last().first().toString()));
        const QStringList rows =
            QString(test::readAll(request.outDir + "/metrics.csv")).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(rows.size(), 1 + 12);
        QCOMPARE(rows[6].split(',').value(3).toDouble(), 0.05); // iteration 6's rate: the cfg's
    }
}

// A checkpoint written into the Output folder after the panel looked (a CLI run stopped meanwhile) is
// offered at Train, not set aside by a fresh run unasked.
void TestTrainPanel::aCheckpointWrittenSinceIsOfferedAtTrain()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 16);
    test::writeFile(dir.filePath("toy.cfg"), test::kToyCfg);
    ui::TrainPanel panel;
    panel.setNetwork(dir.filePath("toy.cfg"));
    panel.setPlannedIterations(12);
    panel.dataEdit()->setText(dir.filePath("toy.data"));
    panel.outputEdit()->setText(dir.filePath("run"));
    QTest::qWait(200); // (the panel looks at the folder: nothing there yet)
    QVERIFY(!panel.resumeBox()->isChecked());
    QVERIFY(QDir().mkpath(dir.filePath("run")));
    std::string error;
    const NetworkSpec spec = buildNetworkSpec(cfg::Document::load(dir.filePath("toy.cfg").toStdString()));
    auto net = Net::create(spec, spec.net.layerBatch(), error);
    QVERIFY2(net, error.c_str());
    TrainState state;
    state.iteration = 3;
    QVERIFY(!saveCheckpoint(dir.filePath("run/toy_last.state").toStdString(), *net, state));
    panel.trainButton()->click();
    QVERIFY(!panel.isTraining());
    QVERIFY(panel.resumeBox()->isChecked());
    QVERIFY2(panel.statusLabel()->text().startsWith("A run stopped at iteration 3 ("),
             qPrintable(panel.statusLabel()->text()));
    QVERIFY(QFileInfo::exists(dir.filePath("run/toy_last.state")));
}

// The studio validates every run: a valid= list it cannot score is a warning in the child process too
// (the CLI's --valid-every alone makes it an error), so a GPU run trains what a CPU run trains.
void TestTrainPanel::childProcessRunTrainsPastAnUnusableValidList()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 64);
    test::writeFile(dir.filePath("toy.cfg"), test::kToyCfg);
    test::writeFile(dir.filePath("toy.data"), "classes=3\ntrain=toy-images.gz\ntrain_labels=toy-labels\n"
                                              "valid=missing-images.gz\nvalid_labels=toy-labels\n");
    ui::TrainWorker worker;
    QSignalSpy messages(&worker, &ui::TrainWorker::message);
    QSignalSpy finished(&worker, &ui::TrainWorker::finished);
    for (const bool child : {false, true}) {
        ui::TrainRequest request = childRequest(dir, child ? "child" : "in-process");
        request.childProcess = child;
        request.maxBatches = 4;
        request.validEvery = 2;
        messages.clear();
        worker.prepareRun();
        worker.run(request);
        QCOMPARE(finished.count(), child ? 2 : 1);
        QVERIFY2(finished.last().first().toString().isEmpty(),
                 qPrintable(finished.last().first().toString()));
        QStringList said;
        for (const QList<QVariant>& m : messages)
            said << m.first().toString();
        QVERIFY2(said.join('\n').contains("missing-images.gz") &&
                     said.join('\n').contains("this run trains without validation"),
                 qPrintable(said.join('\n')));
        QCOMPARE(lossesIn(request.outDir + "/metrics.csv").size(), 4);
    }
}

// Pause suspends the child (and the ranks it would start) and Resume continues it; Stop ends it with a
// checkpoint, as in-process.
void TestTrainPanel::childProcessRunPausesAndStops()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 64);
    test::writeFile(dir.filePath("toy.cfg"),
                    QByteArray(test::kToyCfg).replace("max_batches=12", "max_batches=100000"));
    ui::TrainWorker worker;
    QSignalSpy finished(&worker, &ui::TrainWorker::finished);
    int pausedAt = -1, iterations = 0, afterResume = 0;
    QObject::connect(&worker, &ui::TrainWorker::progress, [&](const IterationStats& stats) {
        ++iterations;
        if (iterations == 1)
            worker.requestPause(true);
        if (pausedAt >= 0 && stats.iteration > pausedAt && ++afterResume == 3)
            worker.requestStop();
    });
    char whilePaused = 0;
    QObject::connect(&worker, &ui::TrainWorker::pausedAt, [&](int iteration) {
        pausedAt = iteration;
        QElapsedTimer waited; // SIGSTOP is delivered asynchronously: a moment at most
        waited.start();
        while ((whilePaused = childState()) != 'T' && waited.elapsed() < 5000)
            QThread::msleep(10);
        worker.requestPause(false);
    });
    worker.prepareRun();
    worker.run(childRequest(dir, "run"));
    QCOMPARE(finished.count(), 1);
    QVERIFY2(finished.first().first().toString().isEmpty(), qPrintable(finished.first().first().toString()));
    QVERIFY(pausedAt >= 1);
    QCOMPARE(whilePaused, 'T'); // the child was suspended
    QVERIFY(afterResume >= 3);  // (iterations already under way when Stop came still arrive)
    const QList<double> losses = lossesIn(dir.filePath("run/metrics.csv"));
    QVERIFY(losses.size() > pausedAt && losses.size() < 100000);
    QVERIFY(QFileInfo::exists(dir.filePath("run/toy_last.weights"))); // Stop's checkpoint
    std::string error;
    const NetworkSpec spec = buildNetworkSpec(cfg::Document::load(dir.filePath("toy.cfg").toStdString()));
    auto net = Net::create(spec, spec.net.layerBatch(), error);
    TrainState state;
    QVERIFY(!loadCheckpoint(dir.filePath("run/toy_last.state").toStdString(), *net, state));
    QCOMPARE(state.iteration, int(losses.size())); // the checkpoint is the last iteration run
}

// The child's own words end the run: a missing .data file, and a netwright-cli that is not there.
void TestTrainPanel::childProcessProblemsEndInWords()
{
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 16);
    test::writeFile(dir.filePath("toy.cfg"), test::kToyCfg);
    ui::TrainWorker worker;
    QSignalSpy finished(&worker, &ui::TrainWorker::finished);
    ui::TrainRequest request = childRequest(dir, "run");
    request.dataPath = dir.filePath("missing.data");
    worker.prepareRun();
    worker.run(request);
    QVERIFY2(finished.last().first().toString().contains("missing.data: no such file"),
             qPrintable(finished.last().first().toString()));
    request = childRequest(dir, "run");
    request.cliPath = dir.filePath("no-such-netwright-cli");
    worker.prepareRun();
    worker.run(request);
    const QString error = finished.last().first().toString();
    QVERIFY2(error.startsWith("cannot start " + dir.filePath("no-such-netwright-cli")), qPrintable(error));
    QVERIFY(error.endsWith("(it is installed next to the studio)"));

    // A --gpus run's failure: the rank's own words first, then the launcher's.
    const QString failing = dir.filePath("failing-cli");
    test::writeFile(failing,
                    "#!/bin/sh\necho 'warning: image 7 unreadable' >&2\n"
                    "echo 'error (rank 1): cuda:1: out of memory' >&2\n"
                    "echo 'error: rank 1 (cuda:1) exited with status 1; stopping the other GPUs' >&2\n"
                    "exit 1\n");
    QFile::setPermissions(failing, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    request = childRequest(dir, "run");
    request.cliPath = failing;
    worker.prepareRun();
    worker.run(request);
    QCOMPARE(
        finished.last().first().toString(),
        QString("cuda:1: out of memory — rank 1 (cuda:1) exited with status 1; stopping the other GPUs"));

    // A child that does not honour Stop (a rank stuck in a collective): its whole group is killed once
    // the grace has passed, and the run ends in words.
    const QString stuck = dir.filePath("stuck-cli");
    test::writeFile(stuck, "#!/bin/sh\ntrap '' INT TERM\nsleep 0.2\n" // (the panel's throttle: 50 ms)
                           "echo '{\"iteration\":1,\"max_batches\":9,\"loss\":1,\"avg_loss\":1,\"lr\":0.1,"
                           "\"images_per_s\":1,\"elapsed_s\":1,\"epoch\":0,\"heads\":[]}'\n"
                           "sleep 600\n");
    QFile::setPermissions(stuck, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    request = childRequest(dir, "run");
    request.cliPath = stuck;
    request.stopGraceSeconds = 1;
    const auto stopAtOnce = QObject::connect(&worker, &ui::TrainWorker::progress,
                                             [&](const IterationStats&) { worker.requestStop(); });
    worker.prepareRun();
    worker.run(request);
    QObject::disconnect(stopAtOnce);
    QCOMPARE(finished.last().first().toString(),
             QString("the training processes did not stop within 1 s of Stop and were ended; the last "
                     "checkpoint is kept"));
    QTRY_COMPARE_WITH_TIMEOUT(childState(), char(0), 5000); // the script's sleep went with it
}

// With two GPUs or more the Train panel offers them all at once, with the rank count; choosing it
// starts one process per GPU (netwright-cli train --gpus). Here a machine with two GPUs is described
// to the box, and the run ends because no netwright-cli sits beside the test: the panel says so.
void TestTrainPanel::allGpusEntryStartsOneRankPerGpu()
{
    GpuInventory two;
    two.devices.push_back({0, "NVIDIA H100", 80ull << 30, 79ull << 30, 9, 0, 132});
    two.devices.push_back({1, "NVIDIA H100", 80ull << 30, 79ull << 30, 9, 0, 132});
    QComboBox box;
    ui::fillDeviceBox(&box, two, false);
    QCOMPARE(box.count(), 3); // the Detect panel: CPU and each GPU
    ui::fillDeviceBox(&box, two, true);
    QCOMPARE(box.count(), 4);
    QCOMPARE(box.itemText(3), QString("All 2 GPUs: cuda:0, cuda:1 (2 ranks, NCCL)"));
    QCOMPARE(box.itemData(3).toList(), QVariantList({0, 1}));
    GpuInventory one;
    one.devices.push_back(two.devices[0]);
    ui::fillDeviceBox(&box, one, true);
    QCOMPARE(box.count(), 2); // one GPU: nothing to spread over

    QTemporaryDir dir;
    test::writeToySet(dir.path(), 16);
    const QString cfg = dir.filePath("toy.cfg");
    test::writeFile(cfg, test::kToyCfg);
    ui::MainWindow window;
    QVERIFY(window.openFile(cfg));
    ui::TrainPanel* panel = window.trainPanel();
    panel->outputEdit()->setText(dir.filePath("run"));
    ui::fillDeviceBox(panel->deviceBox(), two, true);
    panel->deviceBox()->setCurrentIndex(3);
    panel->trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isTraining(), 30000);
    const QString log = panel->log()->toPlainText();
    QVERIFY2(log.contains("training on 2 GPUs (2 ranks over NCCL)"), qPrintable(log));
    QVERIFY2(log.contains("cannot start") && log.contains("netwright-cli"), qPrintable(log));
}

// train --progress json's lines (app/cli/progress_json.h), read back: an iteration with its heads and
// validation figures, a NaN loss (null in JSON), a message, and a line that is not JSON.
void TestTrainPanel::progressLinesParse()
{
    const ui::ProgressLine iteration = ui::parseProgressLine(
        R"({"iteration":7,"max_batches":9,"loss":1.5,"avg_loss":null,"lr":0.01,"images_per_s":300,)"
        R"("elapsed_s":2.5,"epoch":0.25,"map50":0.75,"heads":[{"layer":30,"avg_iou":0.5,"class":0.25,)"
        R"("obj":0.125,"no_obj":0.0625,"recall50":1,"recall75":0.5,"count":4}]})");
    QVERIFY(iteration.iteration && !iteration.message);
    const IterationStats& s = *iteration.iteration;
    QCOMPARE(s.iteration, 7);
    QCOMPARE(s.maxBatches, 9);
    QCOMPARE(s.loss, 1.5);
    QVERIFY(std::isnan(s.averageLoss));
    QCOMPARE(s.learningRate, 0.01f);
    QCOMPARE(s.epoch, 0.25);
    QVERIFY(!s.validTop1);
    QCOMPARE(*s.map50, 0.75);
    QCOMPARE(s.heads.size(), std::size_t(1));
    QCOMPARE(s.heads[0].layer, 30);
    QCOMPARE(s.heads[0].noObject, 0.0625);
    QCOMPARE(s.heads[0].count, 4);
    const ui::ProgressLine message = ui::parseProgressLine(R"({"message":"resuming from x at iteration 3"})");
    QCOMPARE(*message.message, std::string("resuming from x at iteration 3"));
    const ui::ProgressLine noise = ui::parseProgressLine("iteration 7/9: loss 1.5");
    QVERIFY(!noise.iteration && !noise.message);
    // A detector's AP per class at an mAP pass.
    const ui::ProgressLine aps = ui::parseProgressLine(
        R"({"iteration":8,"max_batches":9,"loss":1,"avg_loss":1,"lr":0.01,"images_per_s":1,"elapsed_s":1,)"
        R"("epoch":1,"map50":0.5,"heads":[],"class_aps":[{"ap50":0.75,"ap50_95":0.25,"truths":4,)"
        R"("detections":6,"tp":3,"fp":2},{"ap50":0.25,"ap50_95":0.125,"truths":2,"detections":1,"tp":1,"fp":0}]})");
    QVERIFY(aps.iteration && aps.iteration->classAps);
    QCOMPARE(aps.iteration->classAps->size(), std::size_t(2));
    QCOMPARE(aps.iteration->classAps->at(0).ap50to95, 0.25);
    QCOMPARE(aps.iteration->classAps->at(0).falsePositives, 2);
    QCOMPARE(aps.iteration->classAps->at(1).detections, 1);
    // A classifier's confusion matrix, as train --progress json writes it at each validation: the Per
    // class page of a run in child processes (all GPUs at once) has what an in-process run's has.
    QTemporaryDir dir;
    test::writeToySet(dir.path(), 48);
    test::writeFile(dir.filePath("toy.cfg"), test::kToyCfg);
    const test::Run run =
        test::cli({"train", dir.filePath("toy.data"), dir.filePath("toy.cfg"), "--out", dir.filePath("run"),
                   "--max-batches", "4", "--valid-every", "2", "--progress", "json"});
    QCOMPARE(run.exitCode, 0);
    int validations = 0;
    for (const QByteArray& line : run.out.split('\n')) {
        const ui::ProgressLine parsed = ui::parseProgressLine(line);
        if (!parsed.iteration)
            continue;
        QCOMPARE(bool(parsed.iteration->confusion), parsed.iteration->validTop1.has_value());
        if (!parsed.iteration->confusion)
            continue;
        ++validations;
        const ConfusionMatrix& m = *parsed.iteration->confusion;
        QCOMPARE(m.classes(), 3);
        QCOMPARE(m.images(), std::size_t(48));
        QCOMPARE(double(m.count(0, 0) + m.count(1, 1) + m.count(2, 2)) / 48, *parsed.iteration->validTop1);
    }
    QCOMPARE(validations, 2);
}

// A German desktop: the learning-rate axis wrote "7E-05 6E-05 …" in rows that overlapped (QCustomPlot
// draws powers of ten for a lower-case e only). Figures as the status line writes them.
void TestTrainPanel::curvesWriteFiguresTheSameInEveryLocale()
{
    const QLocale previous;
    QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
    ui::TrainingCurves curves;
    QLocale::setDefault(previous);
    curves.resize(600, 500);
    for (int i = 1; i <= 5; ++i) {
        IterationStats stats;
        stats.iteration = i;
        stats.loss = stats.averageLoss = 1.0f / float(i);
        stats.learningRate = 1e-5f * float(i);
        stats.imagesPerSecond = 1000.5;
        curves.add(stats);
    }
    curves.ratePlot()->replot();
    const QVector<QString> labels = curves.ratePlot()->yAxis->tickVectorLabels();
    QVERIFY(!labels.isEmpty());
    // The rate plot's short axes keep their labels apart: at most four ticks (seven were crammed).
    QVERIFY2(labels.size() <= 4, qPrintable(QStringList(labels.begin(), labels.end()).join(' ')));
    QVERIFY(curves.ratePlot()->yAxis2->tickVectorLabels().size() <= 4);
    for (const QString& label : labels)
        QVERIFY2(!label.contains('E') && !label.contains(','), qPrintable(label));
    // Export PNG writes the curves whole, or says why not (a 0-byte file was left in silence).
    QTemporaryDir dir;
    QCOMPARE(curves.savePng(dir.filePath("curves.png")), QString());
    QVERIFY(!QImage(dir.filePath("curves.png")).isNull());
    // With a heading, the image is taller by it (and by the rate plot when it shows).
    QCOMPARE(curves.savePng(dir.filePath("titled.png"), "toy.cfg · iteration 3 of 3"), QString());
    QVERIFY(QImage(dir.filePath("titled.png")).height() > QImage(dir.filePath("curves.png")).height());
    const QString problem = curves.savePng(dir.filePath("gone/curves.png"));
    QVERIFY2(problem.startsWith("cannot write " + dir.filePath("gone/curves.png")), qPrintable(problem));
}

// Compare: the runs a fresh start set aside in the output folder are offered with their figures; one
// chosen draws its average loss and top-1 from its metrics.csv beside the run's own curves, stays when
// the run's curves are cleared, and goes with Clear comparisons. A file without rows is said.
void TestTrainPanel::earlierRunsAreComparedBesideTheRun()
{
    QTemporaryDir dir;
    const QString earlier = dir.filePath("run/previous-20261130-101200");
    QVERIFY(QDir().mkpath(earlier));
    test::writeFile(earlier + "/metrics.csv",
                    "iteration,loss,avg_loss,lr,images_per_sec,elapsed_s,valid_top1,map50\n"
                    "1,2.5,2.5,0.1,100,1,,\n"
                    "2,2.0,2.45,0.1,100,2,0.4,\n"
                    "3,1.5,2.355,0.1,100,3,0.55,\n");
    test::writeFile(earlier + "/toy_last.state", "x");
    ui::TrainPanel panel;
    panel.outputEdit()->setText(dir.filePath("run"));
    QMenu* menu = panel.compareMenu();
    emit menu->aboutToShow();
    QAction* run = nullptr;
    for (QAction* action : menu->actions())
        if (action->text().startsWith("run 11-30 10:12"))
            run = action;
    QVERIFY(run);
    QCOMPARE(run->text(), QString("run 11-30 10:12:00 — 3 iterations, average loss 2.3550, best top-1 "
                                  "55.00 % at 3, stopped"));
    run->trigger();
    QCustomPlot* plot = panel.plot();
    QCOMPARE(plot->graphCount(), 5); // the run's three, the comparison's loss and top-1
    QCPGraph* loss = plot->graph(3);
    QCOMPARE(loss->name(), QString("avg loss · run 11-30 10:12:00"));
    QCOMPARE(loss->dataCount(), 3);
    QCOMPARE(loss->data()->at(2)->value, 2.355);
    QCPGraph* top1 = plot->graph(4);
    QCOMPARE(top1->dataCount(), 2);
    QCOMPARE(top1->data()->at(1)->value, 55.0);
    QVERIFY(plot->xAxis->range().upper >= 3); // the axes take it in before any iteration of this run
    // Shown again, the menu ticks it; a new run's clearing keeps it.
    emit menu->aboutToShow();
    for (QAction* action : menu->actions())
        if (action->text().startsWith("run 11-30"))
            QVERIFY(action->isChecked());
    // Two runs set aside in one minute are two comparisons (they were one name: ticking one dropped the
    // other).
    const QString second = dir.filePath("run/previous-20261130-101245");
    QVERIFY(QDir().mkpath(second));
    test::writeFile(second + "/metrics.csv", "1,2,2,0.1,100,1,,\n");
    emit menu->aboutToShow();
    for (QAction* action : menu->actions())
        if (action->text().startsWith("run 11-30 10:12:45"))
            action->trigger();
    QCOMPARE(plot->graphCount(), 6);
    QCOMPARE(panel.curves()->comparisons().size(), 2);
    emit menu->aboutToShow();
    for (QAction* action : menu->actions())
        if (action->text().startsWith("run 11-30 10:12:45"))
            action->trigger(); // unticked: only that one goes
    QCOMPARE(plot->graphCount(), 5);
    panel.setNetwork(QString());
    QCOMPARE(plot->graphCount(), 5);
    for (QAction* action : menu->actions())
        if (action->text() == "Clear comparisons")
            action->trigger();
    QCOMPARE(plot->graphCount(), 3);
    // Not a run's metrics: said.
    const QString notMetrics = dir.filePath("notes.csv");
    test::writeFile(notMetrics, "a,b,c\n");
    QString error;
    QVERIFY(!panel.compareMenu()->compareWith(notMetrics, error));
    QVERIFY2(error.contains("holds no rows of a run"), qPrintable(error));
    QCOMPARE(plot->graphCount(), 3);
    // The refusal is said in the status line until a comparison succeeds, which puts back what it said.
    const QString before = panel.statusLabel()->text();
    emit panel.compareMenu()->message(error);
    QCOMPARE(panel.statusLabel()->text(), error);
    QVERIFY(panel.compareMenu()->compareWith(earlier + "/metrics.csv", error));
    QCOMPARE(panel.statusLabel()->text(), before);
    // Another network: the comparisons were this one's runs (a classifier's top-1 stayed on a
    // detector's mAP axis).
    QCOMPARE(plot->graphCount(), 5);
    panel.setNetwork(dir.filePath("other.cfg"));
    QCOMPARE(plot->graphCount(), 3);
    QVERIFY(panel.curves()->comparisons().isEmpty());
    // The shapes data set is a detector's: with a classifier open it is refused in words, Data kept.
    panel.setDetector(false);
    panel.setDataNeeds("a classifier's");
    panel.dataEdit()->setText("mine.data");
    panel.shapesButton()->click();
    QVERIFY2(panel.statusLabel()->text().startsWith("The shapes data set is for detectors"),
             qPrintable(panel.statusLabel()->text()));
    QCOMPARE(panel.dataEdit()->text(), QString("mine.data"));
}

// A dark desktop palette: the plots' background, axes and legend follow it (QCustomPlot painted three
// white blocks with black axes in a dark window).
void TestTrainPanel::plotsFollowADarkPalette()
{
    ui::TrainPanel panel;
    QCustomPlot* plot = panel.plot();
    QVERIFY(plot->axisRect()->backgroundBrush().color().lightness() > 200);
    QPalette dark;
    for (const auto role : {QPalette::Window, QPalette::Base, QPalette::Button})
        dark.setColor(role, QColor(40, 40, 44));
    for (const auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        dark.setColor(role, QColor(230, 230, 230));
    panel.setPalette(dark);
    QCoreApplication::processEvents();
    QVERIFY(plot->axisRect()->backgroundBrush().color().lightness() < 60);
    QVERIFY(plot->xAxis->tickLabelColor().lightness() > 200);
    QVERIFY(plot->legend->textColor().lightness() > 200);
    QImage image = plot->toPixmap(300, 200).toImage();
    QVERIFY(QColor(image.pixel(150, 120)).lightness() < 100); // inside the axes
}

// The panel shares the main window with the graph and the palette: at its smallest it must fit a
// docked width (every field and button reachable without a horizontal scroll bar): 640 px, the right
// dock of a 1280-pixel-wide window.
void TestTrainPanel::fitsADockedWidth()
{
    ui::TrainPanel panel;
    panel.setNetwork(QString(NETWRIGHT_TEST_SOURCE_DIR) + "/../cfg/fashion-mnist.cfg");
    const int width = panel.minimumSizeHint().width();
    qInfo() << "minimum width" << width;
    // The dock's share of a 1024×640 screen's window is about 400 px, and of a 1280×720 screen at 150 %
    // scaling about 300 (the row of Train, Pause, Stop and the curves' buttons needed 620; Iterations
    // and Validate every, or the learning rate and Resume, on one row 446; the curves' legend three to a
    // row and Settings beside Stop 370).
    QVERIFY2(width <= 300, qPrintable(QString("the Train panel needs %1 px").arg(width)));
}

// In the window on a small screen (1024×560 for the window), neither right-hand panel is wider than its
// dock: no horizontal scroll bar hides Train, Camera or Stop, and the status lines wrap where they show.
void TestTrainPanel::panelsFitTheirDocksOnASmallScreen()
{
    ui::MainWindow window;
    window.resize(1024, 560);
    window.show();
    QVERIFY(window.openFile(QString(NETWRIGHT_TEST_SOURCE_DIR) + "/../cfg/fashion-mnist.cfg"));
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    for (QWidget* panel :
         {static_cast<QWidget*>(window.trainPanel()), static_cast<QWidget*>(window.detectPanel())}) {
        auto* area = qobject_cast<QScrollArea*>(panel->parentWidget()->parentWidget());
        QVERIFY(area);
        QTRY_VERIFY2(panel->width() <= area->viewport()->width(),
                     qPrintable(QString("%1 is %2 px wide in a dock of %3")
                                    .arg(panel->metaObject()->className())
                                    .arg(panel->width())
                                    .arg(area->viewport()->width())));
        QVERIFY(area->horizontalScrollBar()->maximum() == 0);
    }
}

// On a 1280×720 screen (the window 1216×662 inside the desktop's bars) the curves of a folded Train panel
// show down to their axis's title, and the Detect panel down to its row of exports: both were cut by
// their docks (the axis title half gone, "Save image…" half below the fold).
void TestTrainPanel::mainPartsShowAt1280x720()
{
    ui::MainWindow window;
    window.resize(1216, 662);
    window.show();
    QVERIFY(window.openFile(QString(NETWRIGHT_TEST_SOURCE_DIR) + "/../cfg/fashion-mnist.cfg"));
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.sizeDocksForWindow(); // as the first window on that screen
    auto* settings = window.trainPanel()->findChild<QToolButton*>("settingsButton");
    QVERIFY(settings);
    // As while and after a run: the settings folded, the run's summary in their place.
    window.trainPanel()
        ->findChild<QLabel*>("runSummary")
        ->setText("Data /work/main/cfg/fashion-mnist.data · random initialisation · CPU · into "
                  "/home/someone/.local/share/netwright/runs/fashion-mnist");
    settings->setChecked(true);
    settings->setChecked(false);
    window.findChild<QDockWidget*>("trainDock")->raise();
    // What is cut, else empty (a text that says by how much when it fails).
    const auto cut = [](QWidget* panel, QWidget* part) {
        auto* area = qobject_cast<QScrollArea*>(panel->parentWidget()->parentWidget());
        const int bottom = part->mapTo(area->viewport(), QPoint(0, part->height())).y();
        return bottom <= area->viewport()->height() && area->verticalScrollBar()->value() == 0
                   ? QString()
                   : QString("%1 ends at %2 px of %3")
                         .arg(part->metaObject()->className())
                         .arg(bottom)
                         .arg(area->viewport()->height());
    };
    auto* plot = window.trainPanel()->curves()->findChild<QCustomPlot*>(); // (the loss's, the first)
    QTRY_COMPARE(cut(window.trainPanel(), plot), QString());
    // A detector's result on show: its classes' row above the picture, its line below.
    QTemporaryDir dir;
    QImage picture(320, 240, QImage::Format_RGB32);
    picture.fill(QColor(40, 120, 200));
    QVERIFY(picture.save(dir.filePath("blue.png")));
    QVERIFY(window.openFile(QString(NETWRIGHT_TEST_SOURCE_DIR) + "/../cfg/shapes-tiny.cfg"));
    window.findChild<QDockWidget*>("detectDock")->raise();
    window.detectPanel()->useRandomWeights();
    window.detectPanel()->openImageFile(dir.filePath("blue.png"));
    QTRY_COMPARE_WITH_TIMEOUT(window.detectPanel()->framesReceived(), 1, 60000);
    auto* exportRow = window.detectPanel()->findChild<QPushButton*>("saveImage");
    QVERIFY(exportRow);
    QTRY_COMPARE(cut(window.detectPanel(), exportRow), QString());
}

// A refusal written under the fold shows: on a small screen Train (a network without a data set) and
// Detect's Image… (no network) seemed to do nothing, their words below the panel's visible part.
void TestTrainPanel::aRefusalScrollsIntoView()
{
    QTemporaryDir dir;
    const QString cfg = dir.filePath("alone.cfg"); // no .data beside it
    test::writeFile(cfg, test::kToyCfg);
    ui::MainWindow window;
    window.resize(1024, 560);
    window.show();
    QVERIFY(window.openFile(cfg));
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const auto inView = [](QWidget* widget) {
        auto* area = qobject_cast<QScrollArea*>(widget->parentWidget()->parentWidget()->parentWidget());
        if (!area)
            return false;
        const QRect shown(widget->mapTo(area->viewport(), QPoint(0, 0)), widget->size());
        return area->viewport()->rect().contains(shown);
    };
    ui::TrainPanel* train = window.trainPanel();
    train->dataEdit()->clear();
    auto* trainArea = qobject_cast<QScrollArea*>(train->parentWidget()->parentWidget());
    QVERIFY(trainArea);
    trainArea->verticalScrollBar()->setValue(0);
    QTRY_VERIFY(trainArea->verticalScrollBar()->maximum() > 0); // (else the test shows nothing)
    QTRY_VERIFY(!inView(train->statusLabel()));
    train->trainButton()->click();
    QVERIFY(train->statusLabel()->text().startsWith("Choose the data set first"));
    QTRY_VERIFY(inView(train->statusLabel()));

    ui::DetectPanel* detect = window.detectPanel();
    detect->parentWidget()->parentWidget()->parentWidget()->raise(); // its dock, tabbed with Training
    auto* detectArea = qobject_cast<QScrollArea*>(detect->parentWidget()->parentWidget());
    QVERIFY(detectArea);
    QTRY_VERIFY(detectArea->verticalScrollBar()->maximum() > 0);
    detectArea->verticalScrollBar()->setValue(0);
    QTRY_VERIFY(!inView(detect->status()));
    detect->openImageFile("/usr/share/darknet/data/dog.jpg");
    QVERIFY2(detect->status()->text().contains("has no weights yet"), qPrintable(detect->status()->text()));
    QTRY_VERIFY(inView(detect->status()));
}

QTEST_MAIN(TestTrainPanel)
#include "test_train_panel.moc"
