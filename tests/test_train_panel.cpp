// The Train panel (offscreen): training a small network from the panel — iterations arrive and the plot
// grows, pause holds, resume continues, stop writes a checkpoint that loads — while progress reaches
// the GUI thread at most 20 times a second and its event loop keeps running.
#include "editor/document_model.h"
#include "table/layer_table_model.h"
#include "test_support.h"
#include "train/checkpoint.h"
#include "train/train_panel.h"
#include "train/train_worker.h"
#include "window/main_window.h"

#include "backend/gpu_devices.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <qcustomplot.h>

using namespace nw;

class TestTrainPanel : public QObject {
    Q_OBJECT
private slots:
    void trainPauseResumeStopFromThePanel();
    void badDataIsReportedAndThePanelRecovers();
    void detectorOnTheShapesDataSet();
    void trainsWhatTheEditorShows();
    void deviceChoiceAndAGpuThatFailsStopsInWords();
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
    panel->trainButton()->click();
    QVERIFY(panel->isTraining());
    QVERIFY(!panel->trainButton()->isEnabled());
    QVERIFY(!panel->weightsEdit()->isEnabled()); // what the run uses stays as it started
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
    QTest::qWait(400);
    QCOMPARE(panel->progressBar()->value(), pausedAt);
    QCOMPARE(panel->pauseButton()->text(), QString("Resume"));

    panel->pauseButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(panel->progressBar()->value() > pausedAt, 20000);

    panel->stopButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isTraining(), 20000);
    QCOMPARE(changed.count(), 2); // on, off
    ticker.stop();
    // The worker throttles progress to one signal per 50 ms (plus the pause flush and the end), so
    // the GUI thread is never flooded: a count, not a timing, so a loaded machine cannot fail it.
    const qint64 ranMs = running.elapsed();
    QVERIFY2(
        panel->plot()->graph(1)->dataCount() <= ranMs / 50 + 4,
        qPrintable(
            QString("%1 progress points in %2 ms").arg(panel->plot()->graph(1)->dataCount()).arg(ranMs)));
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
    QCOMPARE(panel->statusLabel()->text(), QString("Stopped at iteration %1 / 100000; checkpoint in %2")
                                               .arg(panel->progressBar()->value())
                                               .arg(dir.filePath("run")));
    QVERIFY(panel->weightsEdit()->isEnabled());

    // Another network starts clean: no .data beside it, no curves, no log of this run.
    QTemporaryDir other;
    QFile otherCfg(other.filePath("other.cfg"));
    QVERIFY(otherCfg.open(QIODevice::WriteOnly));
    otherCfg.write(test::kToyCfg);
    otherCfg.close();
    QVERIFY(window.openFile(otherCfg.fileName()));
    QCOMPARE(panel->dataEdit()->text(), QString());
    QCOMPARE(panel->plot()->graph(1)->dataCount(), 0);
    QCOMPARE(panel->ratePlot()->graph(0)->dataCount(), 0);
    QVERIFY(panel->log()->toPlainText().isEmpty());
}

void TestTrainPanel::badDataIsReportedAndThePanelRecovers()
{
    QTemporaryDir dir;
    QFile cfg(dir.filePath("toy.cfg"));
    QVERIFY(cfg.open(QIODevice::WriteOnly));
    cfg.write(test::kToyCfg);
    cfg.close();
    ui::TrainPanel panel;
    panel.setNetwork(cfg.fileName());
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
    panel.outputEdit()->setText(dir.filePath("run"));
    panel.maxBatchesSpin()->setValue(20);
    panel.findChild<QSpinBox*>("validEvery")->setValue(10);
    panel.trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isTraining(), 60000);
    QVERIFY2(panel.log()->toPlainText().contains("Finished"), qPrintable(panel.log()->toPlainText()));
    QVERIFY(panel.log()->toPlainText().contains("boxes of 5 classes"));
    QVERIFY(!panel.headPlot()->isHidden());      // shown once a detector reports its heads
    QCOMPARE(panel.headPlot()->graphCount(), 3); // IoU, obj, class of the one head
    QVERIFY(panel.headPlot()->graph(0)->dataCount() >= 1);
    QCOMPARE(panel.plot()->graph(2)->name(), QString("validation mAP@0.5"));
    QCOMPARE(panel.plot()->graph(2)->dataCount(), 2); // at 10 and 20
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
    panel->trainButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isTraining(), 30000);
    QVERIFY2(panel->statusLabel()->text().startsWith("Finished"), qPrintable(panel->log()->toPlainText()));
    QCOMPARE(panel->progressBar()->maximum(), 3);
    QVERIFY(test::readAll(cfg).contains("max_batches=12")); // trained from the editor, not the file
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

QTEST_MAIN(TestTrainPanel)
#include "test_train_panel.moc"
