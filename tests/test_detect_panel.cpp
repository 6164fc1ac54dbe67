// The Detect panel (offscreen): a synthetic video through the video path yields every frame; moving
// the threshold re-filters without running the network; bad files are reported and the panel keeps
// working; exports write JSON and YOLO labels; the bundled detector finds shapes in a video, with the
// legend, zoom and recording.
#include "backend/gpu_devices.h"
#include "cfg/document.h"
#include "data/detection_dataset.h"
#include "data/make_shapes.h"
#include "detect/annotate.h"
#include "detect/detect_panel.h"
#include "detect/detect_worker.h"
#include "detect/paint_detections.h"
#include "detect/yolo_labels.h"
#include "graph/network_spec.h"
#include "test_support.h"

#include <QCheckBox>
#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>
#include <cstring>
#include <limits>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <optional>
#include <qcustomplot.h>
#include <set>

using namespace nw;

namespace {
// A slider moved as a person would, then the boxes it asks for: a filtering that took 100 ms or more
// (as under the sanitizers) defers the next step to the event loop.
[[nodiscard]] bool slideTo(const ui::DetectPanel& panel, QSlider* slider, int value)
{
    slider->setValue(value);
    return QTest::qWaitFor([&] { return !panel.filteringDeferred(); }, 60000);
}

// What the main window does on File ▸ Open: the cfg and the description it built of it.
void openNetwork(ui::DetectPanel& panel, const QString& cfgPath)
{
    panel.setNetwork(cfgPath, cfgPath.isEmpty()
                                  ? NetworkSpec{}
                                  : buildNetworkSpec(cfg::Document::load(cfgPath.toStdString())));
}
} // namespace

class TestDetectPanel : public QObject {
    Q_OBJECT
private slots:
    void videoFramesThresholdAndExports();
    void classifierShowsTopClasses();
    void divergedWeightsAreSaid();
    void bundledDetectorOnAShapesVideo();
    void anotherNetworksWeightsAreRefusedInADialog();
    void stopBeforeTheStreamStartsHolds();
    void anotherNetworkStartsClean();
    void theEditorsNetworkIsTheOneThatRuns();
    void otherWeightsRunTheImageAgain();
    void aFailedImageLeavesNothingBehindAndAZoomScrolls();
    void aReplacedNetworksResultsAreDropped();
    void aReplacedNetworksWarningsAreDropped();
    void streamProblemsStayInViewAndSavingNamesItsFile();
    void noWeightsIsSaidAndRandomWeightsAreAChoice();
    void deviceChoiceListsTheGpusOrSaysWhyNone();
    void fitsASmallScreensDock();
    void labelsKeepTheirSizeOnAScaledImage();
    void labelsAreDrawnAndCounted();
    void letterboxFollowsTheCfg();
    void slowFilteringTakesARunOfSliderStepsAtOnce();
    void anImageAskedWithRefusedWeightsRunsWithTheNextOnes();
};

void TestDetectPanel::videoFramesThresholdAndExports()
{
    QTemporaryDir dir;
    const QString cfg = QString(DARKNET_CFG_DIR) + "/yolov2-tiny.cfg";
    QProcess helper;
    helper.start(DARKNET_REF_FORWARD, {cfg, dir.path(), "5"});
    QVERIFY(helper.waitForFinished(300000) && helper.exitCode() == 0);
    const QString video = dir.filePath("clip.avi");
    {
        cv::VideoWriter writer(video.toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10,
                               cv::Size(160, 120));
        QVERIFY(writer.isOpened());
        for (int i = 0; i < 6; ++i) {
            cv::Mat frame(120, 160, CV_8UC3, cv::Scalar(30 * i, 90, 180));
            cv::rectangle(frame, cv::Rect(20 + 15 * i, 30, 40, 40), cv::Scalar(0, 255, 0), cv::FILLED);
            writer.write(frame);
        }
    }

    ui::DetectPanel panel;
    panel.resize(640, 480);
    // Before any image the view says how to get one (it was a blank grey box).
    QVERIFY2(panel.view()->text().startsWith("Open an image, a folder of images, a video or the camera"),
             qPrintable(panel.view()->text()));
    openNetwork(panel, cfg);
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    panel.setWeights(dir.filePath("net.weights"));
    QVERIFY(loaded.wait(60000));
    QCOMPARE(loaded.first().first().toString(), QString());
    QVERIFY(panel.isReady());
    panel.setNames("/usr/share/darknet/data/coco.names");

    QSignalSpy finished(&panel, &ui::DetectPanel::streamFinished);
    QVERIFY(panel.labelsBox()->isEnabled());
    panel.openVideoFile(video);
    QVERIFY(!panel.labelsBox()->isEnabled()); // (a video's frames have no label files)
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.first().first().toInt(), 6);
    QTRY_COMPARE(panel.framesReceived(), 6);
    QCOMPARE(panel.annotated().size(), QSize(160, 120));

    // The sliders only re-filter the last frame's candidates.
    QVERIFY(slideTo(panel, panel.thresholdSlider(), 1));
    const std::size_t many = panel.boxes().size();
    // (the last frame's line again: whether detection keeps up with the file's rate)
    QVERIFY2(panel.status()->text().contains(" of the video's 10 FPS"), qPrintable(panel.status()->text()));
    QVERIFY(slideTo(panel, panel.thresholdSlider(), 90));
    const std::size_t few = panel.boxes().size();
    QVERIFY(many > few);
    for (const LabeledBox& box : panel.boxes())
        QVERIFY(box.confidence > 0.9f);
    QCOMPARE(panel.framesReceived(), 6); // no new network run
    QVERIFY(slideTo(panel, panel.thresholdSlider(), 1));
    QVERIFY(slideTo(panel, panel.nmsSlider(), 0)); // NMS off keeps at least as many boxes
    QVERIFY(panel.boxes().size() >= many);
    // What Save and recording write has the boxes painted in (at the image's own size).
    const QImage painted = panel.annotated();
    QVERIFY(slideTo(panel, panel.thresholdSlider(), 100));
    QVERIFY(panel.boxes().empty());
    QCOMPARE(panel.annotated().size(), painted.size());
    QVERIFY(panel.annotated() != painted);
    QVERIFY(slideTo(panel, panel.thresholdSlider(), 1));

    QSignalSpy saved(&panel, &ui::DetectPanel::saved); // each written file is said (it was silent)
    QVERIFY(panel.exportJson(dir.filePath("d.json")));
    QCOMPARE(saved.size(), 1);
    QCOMPARE(saved.last().first().toString(),
             QString("Exported %1 objects to %2").arg(panel.boxes().size()).arg(dir.filePath("d.json")));
    const QJsonArray json = QJsonDocument::fromJson(test::readAll(dir.filePath("d.json"))).array();
    QCOMPARE(json[0].toObject()["frame"].toInt(), 5);
    QCOMPARE(std::size_t(json[0].toObject()["detections"].toArray().size()), panel.boxes().size());
    QVERIFY(panel.exportYoloLabels(dir.filePath("d.txt")));
    const QStringList lines = QString(test::readAll(dir.filePath("d.txt"))).split('\n', Qt::SkipEmptyParts);
    // One line per object: a box above the threshold in several classes is one line, its likeliest.
    std::set<int> objects;
    for (const LabeledBox& box : panel.boxes())
        objects.insert(box.detection);
    QCOMPARE(std::size_t(lines.size()), objects.size());
    QVERIFY(objects.size() < panel.boxes().size()); // (at 1 %, some box is above it in two classes)
    QCOMPARE(lines.first().split(' ').size(), 5);
    QCOMPARE(
        saved.last().first().toString(),
        QString("Exported %1 objects as YOLO labels to %2").arg(lines.size()).arg(dir.filePath("d.txt")));
    // An export that cannot be written says why, naming the file, and leaves nothing half-written: on a
    // full disk they left 0-byte files in silence, and one over an existing file destroyed it.
    QVERIFY(!panel.exportJson(dir.filePath("no-such-folder/d.json")));
    QVERIFY2(panel.status()->text().startsWith("Cannot export the detections: cannot write " +
                                               dir.filePath("no-such-folder/d.json")),
             qPrintable(panel.status()->text()));
    QVERIFY(!panel.exportYoloLabels(dir.filePath("no-such-folder/d.txt")));
    QVERIFY(panel.status()->text().startsWith("Cannot export the labels: "));
    QVERIFY(!panel.saveImage(dir.filePath("d.xyz")));
    QVERIFY2(panel.status()->text().contains("cannot write images as .xyz"),
             qPrintable(panel.status()->text()));
    QCOMPARE(saved.size(), 2); // (the failures are said in the panel's line)
    QVERIFY(panel.saveImage(dir.filePath("d.jpg")));
    QCOMPARE(saved.last().first().toString(), "Saved the annotated image as " + dir.filePath("d.jpg"));
    // The next save is proposed there, named after the frame; labels beside the video, as training
    // reads them (the dialogs opened on the cfg's folder with no name).
    QCOMPARE(panel.proposedSavePath("_detections.png"), dir.filePath("clip_frame5_detections.png"));
    QCOMPARE(panel.proposedSavePath(".txt"), dir.filePath("clip_frame5.txt"));
    // The failure's line gives way to the result's again (it said "Cannot save" beside the file written).
    QVERIFY2(panel.status()->text().startsWith("clip.avi frame 5 · "), qPrintable(panel.status()->text()));
    QCOMPARE(QImage(dir.filePath("d.jpg")).size(), painted.size());

    panel.openImageFile(dir.filePath("missing.jpg"));
    QTRY_VERIFY(panel.status()->text().contains("missing.jpg: no such file (expected an image)"));
    QFile empty(dir.filePath("empty.jpg")); // an interrupted copy: named as empty
    QVERIFY(empty.open(QIODevice::WriteOnly));
    empty.close();
    panel.openImageFile(empty.fileName());
    QTRY_VERIFY(panel.status()->text().contains("empty.jpg: the file is empty (0 bytes), not an image"));
    panel.openVideoFile(dir.filePath("missing.avi")); // said as missing, not as unreadable
    QTRY_VERIFY2(panel.status()->text().contains("missing.avi: no such file (expected a video)"),
                 qPrintable(panel.status()->text()));
    QSignalSpy again(&panel, &ui::DetectPanel::streamFinished);
    panel.openVideoFile(video); // still working
    QVERIFY(again.wait(120000));
    QCOMPARE(panel.framesReceived(), 12);
    // A video cut short (an interrupted copy) plays what it has, then says so.
    const QString cut = dir.filePath("cut.avi");
    QVERIFY(QFile::copy(video, cut) && QFile::resize(cut, QFileInfo(video).size() * 6 / 10));
    panel.openVideoFile(cut);
    QVERIFY(again.wait(120000));
    QTRY_VERIFY2(panel.status()->text().contains(" of the 6 frames the file declares: it is cut short"),
                 qPrintable(panel.status()->text()));
    // A video's first frame (numbered 0) says it is one, as the others do.
    const QString one = dir.filePath("one.avi");
    {
        cv::VideoWriter writer(one.toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10,
                               cv::Size(160, 120));
        QVERIFY(writer.isOpened());
        writer.write(cv::Mat(120, 160, CV_8UC3, cv::Scalar(30, 90, 180)));
    }
    QSignalSpy single(&panel, &ui::DetectPanel::streamFinished);
    panel.openVideoFile(one);
    QVERIFY(single.wait(120000));
    QVERIFY(slideTo(panel, panel.thresholdSlider(),
                    50)); // the last frame's line again (the stream's end replaced it)
    QVERIFY2(panel.status()->text().startsWith("one.avi frame 0 · "), qPrintable(panel.status()->text()));
    // A video that cannot be opened leaves no other source's frame in view (one.avi's stayed, boxes too).
    QVERIFY(!panel.annotated().isNull());
    panel.openVideoFile(dir.filePath("missing.avi"));
    QVERIFY(single.wait(120000));
    QVERIFY(panel.annotated().isNull());
    QVERIFY(panel.boxes().empty());
}

void TestDetectPanel::classifierShowsTopClasses()
{
    QTemporaryDir dir;
    const QString cfg = QString(DARKNET_CFG_DIR) + "/darknet.cfg";
    QProcess helper;
    helper.start(DARKNET_REF_FORWARD, {cfg, dir.path(), "3"});
    QVERIFY(helper.waitForFinished(300000) && helper.exitCode() == 0);
    ui::DetectPanel panel;
    panel.resize(640, 520);
    openNetwork(panel, cfg);
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    panel.setWeights(dir.filePath("net.weights"));
    QVERIFY(loaded.wait(60000));
    QCOMPARE(loaded.first().first().toString(), QString());
    QVERIFY(!panel.topClassesPlot()->isHidden());
    panel.openImageFile("/usr/share/darknet/data/dog.jpg");
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 1, 60000);
    QCOMPARE(panel.topClassesPlot()->plottableCount(), 1);
    auto* bars = qobject_cast<QCPBars*>(panel.topClassesPlot()->plottable(0));
    QVERIFY(bars);
    QCOMPARE(bars->dataCount(), 5);
    // Across, a class to a row, the best on top (side by side, the names overlapped on small screens).
    QCOMPARE(bars->keyAxis(), panel.topClassesPlot()->yAxis);
    QVERIFY(panel.topClassesPlot()->yAxis->rangeReversed());
    for (int i = 1; i < 5; ++i) // sorted, best first
        QVERIFY(bars->data()->at(i)->value <= bars->data()->at(i - 1)->value);
    QVERIFY(panel.status()->text().contains("top: class "));
    // Export JSON writes the top classes as `classify --json` does (it wrote an empty "detections"), and
    // a classifier has no YOLO labels to export.
    QVERIFY(panel.exportJson(dir.filePath("top.json")));
    const QJsonArray json = QJsonDocument::fromJson(test::readAll(dir.filePath("top.json"))).array();
    QCOMPARE(json.size(), 1);
    const QJsonArray top = json[0].toObject()["top"].toArray();
    QCOMPARE(top.size(), 5);
    for (int i = 0; i < 5; ++i)
        QVERIFY(qAbs(top[i].toObject()["score"].toDouble() * 100 - bars->data()->at(i)->value) < 1e-4);
    QVERIFY(top[0].toObject()["name"].toString().startsWith("class "));
    for (QPushButton* button : panel.findChildren<QPushButton*>())
        if (button->text().startsWith("Export YOLO"))
            QVERIFY(button->isHidden());
}

// The bundled detector out of the box: opening cfg/shapes-tiny.cfg loads its weights and names; a
// video of fresh make-shapes images yields every frame, the last frame's shapes are found, the legend
// names them, zoom scales the view, and the recording has every annotated frame.
// Weights that diverged (every value 1e30): the line says the outputs are not numbers, where it said
// "0 objects" (a detector) or showed empty bars and "nan%" (a classifier).
void TestDetectPanel::divergedWeightsAreSaid()
{
    QTemporaryDir dir;
    const QString cfg = dir.filePath("tiny.cfg"), weights = dir.filePath("diverged.weights");
    QVERIFY(test::writeDivergedDetector(cfg, weights));
    ui::DetectPanel panel;
    openNetwork(panel, cfg);
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    panel.setWeights(weights);
    QVERIFY(loaded.wait(60000));
    panel.openImageFile("/usr/share/darknet/data/dog.jpg");
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 1, 60000);
    QVERIFY2(panel.status()->text().contains("dog.jpg: the network's outputs are not numbers ("),
             qPrintable(panel.status()->text()));
}

void TestDetectPanel::bundledDetectorOnAShapesVideo()
{
    QTemporaryDir dir;
    ShapesOptions options;
    options.count = 12;
    options.seed = 4242; // not the training seed
    QVERIFY(!makeShapes(dir.path().toStdString(), options));
    QStringList images;
    for (int i = 1; i <= 12; ++i)
        images << dir.filePath(
            QString("%1/%2.jpg").arg(i <= 11 ? "train" : "valid").arg(i, 6, 10, QChar('0')));
    const QString video = dir.filePath("shapes.avi");
    {
        cv::VideoWriter writer(video.toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 5,
                               cv::Size(256, 256));
        QVERIFY(writer.isOpened());
        for (const QString& image : images)
            writer.write(cv::imread(image.toStdString()));
    }
    ui::DetectPanel panel;
    panel.resize(640, 560);
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg");
    QVERIFY(loaded.wait(60000));
    QCOMPARE(loaded.first().first().toString(), QString());
    QVERIFY(panel.isReady());

    QVERIFY(panel.startRecording(dir.filePath("recorded.avi")));
    QSignalSpy finished(&panel, &ui::DetectPanel::streamFinished);
    QVERIFY(panel.labelsBox()->isEnabled());
    panel.openVideoFile(video);
    QVERIFY(!panel.labelsBox()->isEnabled()); // (a video's frames have no label files)
    QVERIFY(finished.wait(120000));
    QTRY_COMPARE(panel.framesReceived(), 12);
    // The recording ends with the video, the file whole (it stayed open, without its index, until
    // Record was pressed again).
    QVERIFY2(panel.status()->text().contains("shapes.avi: 12 frames · recorded 12 frames into " +
                                             dir.filePath("recorded.avi")),
             qPrintable(panel.status()->text()));
    QCOMPARE(panel.recordedFrames(), 12);
    cv::VideoCapture recorded(dir.filePath("recorded.avi").toStdString());
    QVERIFY(recorded.isOpened());
    QCOMPARE(recorded.get(cv::CAP_PROP_FPS), 5.0); // the video's own rate: it plays as long as the video
    int frames = 0;
    for (cv::Mat frame; recorded.read(frame); ++frames)
        QCOMPARE(frame.cols, 256);
    QCOMPARE(frames, 12);

    // The last frame's truths (valid/000012.txt): each found with its class at IoU > 0.5, mostly.
    std::vector<std::string> warnings;
    bool missing = false;
    const auto truths = readLabelFile(dir.filePath("valid/000012.txt").toStdString(), 5, warnings, missing);
    QVERIFY(!truths.empty());
    int found = 0;
    for (const TruthBox& t : truths)
        for (const LabeledBox& b : panel.boxes())
            if (b.classId == t.classId && boxIou({(b.left + b.width / 2) / 256, (b.top + b.height / 2) / 256,
                                                  b.width / 256, b.height / 256},
                                                 {t.x, t.y, t.w, t.h}) > 0.5f) {
                ++found;
                QVERIFY(panel.legend()->text().contains(QString::fromStdString(b.name)));
                break;
            }
    QVERIFY2(found * 3 >= int(truths.size()) * 2,
             qPrintable(QString("%1 of %2 shapes found").arg(found).arg(truths.size())));

    panel.setZoom(2);
    QCOMPARE(panel.view()->pixmap().size(), QSize(512, 512));
    panel.setZoom(0); // fit
    QVERIFY(panel.view()->pixmap().width() < 512);

    // A folder with a slideshow: the images come one after another without a click.
    const int before = panel.framesReceived();
    panel.openFolder(dir.filePath("train"));
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), before + 1, 30000);
    QVERIFY2(panel.status()->text().startsWith("000001.jpg (1 of 11) · "),
             qPrintable(panel.status()->text()));
    panel.showNext(-1); // wraps to the last
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), before + 2, 30000);
    QVERIFY2(panel.status()->text().startsWith("000011.jpg (11 of 11) · "),
             qPrintable(panel.status()->text()));
    panel.slideshowButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(panel.framesReceived() >= before + 4, 15000);
    panel.slideshowButton()->click();
    // Another source opened during a slideshow ends it (its next tick stopped a video for an image).
    panel.slideshowButton()->click();
    QVERIFY(panel.slideshowButton()->isChecked());
    panel.openVideoFile(dir.filePath("missing.avi"));
    QVERIFY(!panel.slideshowButton()->isChecked());
    // Stop stops a slideshow too (the images went on changing).
    panel.slideshowButton()->click();
    panel.findChild<QPushButton*>("stopSource")->click();
    QVERIFY(!panel.slideshowButton()->isChecked());
    // An image of the folder that cannot be read keeps its position in the status.
    test::writeFile(dir.filePath("train/000002.jpg"), "not an image");
    panel.openFolder(dir.filePath("train"));
    QTRY_VERIFY_WITH_TIMEOUT(panel.status()->text().startsWith("000001.jpg (1 of 11) · "), 30000);
    panel.showNext(1);
    QTRY_VERIFY_WITH_TIMEOUT(panel.status()->text().startsWith("2 of 11: "), 30000);
    QVERIFY2(panel.status()->text().contains("000002.jpg"), qPrintable(panel.status()->text()));
}

void TestDetectPanel::anotherNetworksWeightsAreRefusedInADialog()
{
    ui::DetectPanel panel;
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg");
    panel.setWeights(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights");
    QVERIFY(loaded.wait(60000));
    const QString error = loaded.last().first().toString();
    QVERIFY2(error.contains("it belongs to a larger network"), qPrintable(error));
    QVERIFY(!panel.isReady());
    // Still a classifier: no box controls (refused weights brought a detector's).
    QVERIFY(!panel.thresholdSlider()->isVisibleTo(&panel));
    QMessageBox* box = panel.findChild<QMessageBox*>();
    QVERIFY(box);
    QTRY_VERIFY(box->isVisible());
    QCOMPARE(box->text(), QString("shapes-tiny.weights cannot be used with fashion-mnist.cfg."));
    QCOMPARE(box->informativeText(), error);

    // A network with errors (an edit in the editor) is not the weights' fault: no dialog blaming them
    // (a run's own weights were "cannot be used with" a cfg whose filters=-5).
    ui::DetectPanel edited;
    QSignalSpy editedLoaded(&edited, &ui::DetectPanel::detectorLoaded);
    edited.setCfgTextSource([] {
        return QString("[net]\nwidth=16\nheight=16\nchannels=3\n\n[convolutional]\nfilters=-5\nsize=3\n");
    });
    openNetwork(edited, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg");
    edited.setWeights(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights");
    QTRY_VERIFY_WITH_TIMEOUT(!editedLoaded.isEmpty() && editedLoaded.last().first().toString().contains(
                                                            "filters must be at least 1"),
                             60000);
    QCoreApplication::processEvents();
    QCOMPARE(edited.findChildren<QMessageBox*>().size(), 0);

    // Weights the Training panel offers (a run's, of the network before an edit) are not the user's
    // choice: refused, they are named on the detector line without a dialog (one popped up on Train).
    ui::DetectPanel offered;
    QSignalSpy offeredLoaded(&offered, &ui::DetectPanel::detectorLoaded);
    openNetwork(offered, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg");
    offered.suggest(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights",
                    QString());
    QVERIFY(offeredLoaded.wait(60000));
    QVERIFY(offeredLoaded.last().first().toString().contains("it belongs to a larger network"));
    QCoreApplication::processEvents();
    QCOMPARE(offered.findChildren<QMessageBox*>().size(), 0);
    bool named = false;
    for (const QLabel* label : offered.findChildren<QLabel*>())
        named |= label->text().startsWith("Cannot load the classifier:");
    QVERIFY(named);
    // The user's own choice right after an offer is refused in a dialog again (the offer's quiet stayed
    // on when its answer was overtaken).
    ui::DetectPanel chosen;
    QSignalSpy chosenLoaded(&chosen, &ui::DetectPanel::detectorLoaded);
    openNetwork(chosen, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg");
    chosen.suggest(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights",
                   QString());
    chosen.setWeights(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights");
    QTRY_VERIFY_WITH_TIMEOUT(
        chosen.findChild<QMessageBox*>() && chosen.findChild<QMessageBox*>()->isVisible(), 60000);
}

// A Stop sent before the worker picks a stream up stops that stream; the next stream still plays.
void TestDetectPanel::stopBeforeTheStreamStartsHolds()
{
    QTemporaryDir dir;
    const QString video = dir.filePath("clip.avi");
    {
        cv::VideoWriter writer(video.toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10,
                               cv::Size(64, 48));
        QVERIFY(writer.isOpened());
        for (int i = 0; i < 4; ++i)
            writer.write(cv::Mat(48, 64, CV_8UC3, cv::Scalar(60 * i, 90, 180)));
    }
    ui::DetectWorker worker; // on this thread: queued calls run only when the test lets events through
    QSignalSpy loaded(&worker, &ui::DetectWorker::loaded);
    QSignalSpy frames(&worker, &ui::DetectWorker::frameReady);
    QSignalSpy ended(&worker, &ui::DetectWorker::streamEnded);
    // As the panel does, each frame acknowledged once drawn (here at once: the stream never waits).
    connect(&worker, &ui::DetectWorker::frameReady, &worker, [&worker] { worker.frameShown(); });
    worker.load(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg", QString());
    QCOMPARE(loaded.last().first().toString(), QString());
    QMetaObject::invokeMethod(&worker, "playVideo", Qt::QueuedConnection, Q_ARG(QString, video),
                              Q_ARG(bool, false), Q_ARG(int, worker.newStream()));
    worker.requestStop(); // before the queued call has run
    QTRY_COMPARE(ended.size(), 1);
    QCOMPARE(frames.size(), 0);
    QMetaObject::invokeMethod(&worker, "playVideo", Qt::QueuedConnection, Q_ARG(QString, video),
                              Q_ARG(bool, false), Q_ARG(int, worker.newStream()));
    QTRY_COMPARE(ended.size(), 2);
    QCOMPARE(frames.size(), 4);
    // Each frame carries the file's rate, which the stream keeps to (a small network would outrun it).
    QCOMPARE(frames.last().first().value<ui::DetectFrame>().videoFps, 10.0);
}

// Opening another cfg drops the last result: its image, boxes, labels and status belonged to the old
// network ("dog.jpg · top: star nan%" was left from the detector).
void TestDetectPanel::anotherNetworkStartsClean()
{
    ui::DetectPanel panel;
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg");
    QVERIFY(loaded.wait(60000));
    panel.openImageFile("/usr/share/darknet/data/dog.jpg");
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 1, 30000);
    QVERIFY(!panel.view()->pixmap().isNull());
    QVERIFY(!panel.status()->text().isEmpty());
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg");
    QVERIFY(panel.view()->pixmap().isNull());
    QVERIFY(panel.status()->text().isEmpty());
    QVERIFY(panel.legend()->text().isEmpty());
    QVERIFY(!panel.isReady());
}

namespace {
QString boxesText(const std::vector<LabeledBox>& boxes)
{
    QStringList rows;
    for (const LabeledBox& b : boxes)
        rows << QString("%1 %2 %3,%4 %5x%6")
                    .arg(b.classId)
                    .arg(double(b.confidence), 0, 'f', 4)
                    .arg(double(b.left), 0, 'f', 1)
                    .arg(double(b.top), 0, 'f', 1)
                    .arg(double(b.width), 0, 'f', 1)
                    .arg(double(b.height), 0, 'f', 1);
    return rows.join("; ");
}
// A make-shapes image in `dir` (the same one each time), or an empty path when it cannot be made.
QString shapesImage(const QTemporaryDir& dir)
{
    ShapesOptions options;
    options.count = 10;
    options.seed = 77;
    return makeShapes(dir.path().toStdString(), options) ? QString() : dir.filePath("valid/000010.jpg");
}

// The cfg text with its first activation=leaky made linear (an edit that changes what is found).
QString withLinearActivation(QString text)
{
    const qsizetype at = text.indexOf("activation=leaky");
    return at < 0 ? QString()
                  : text.replace(at, qsizetype(std::strlen("activation=leaky")), "activation=linear");
}

// The boxes a panel loaded from the start with `text` (and the cfg's weights) finds on `image`; none
// when it did not load or detect in time.
std::optional<QString> boxesFoundBy(const QString& cfg, const QString& text, const QString& image)
{
    ui::DetectPanel fresh;
    fresh.setCfgTextSource([&] { return text; });
    QSignalSpy loaded(&fresh, &ui::DetectPanel::detectorLoaded);
    openNetwork(fresh, cfg);
    if (!loaded.wait(60000))
        return std::nullopt;
    fresh.openImageFile(image);
    if (!QTest::qWaitFor([&] { return fresh.framesReceived() == 1; }, 30000))
        return std::nullopt;
    return boxesText(fresh.boxes());
}

} // namespace

// An edit in the editor after the weights were chosen reaches the next detection: the panel loads the
// network again with the same weights (it used to keep running the network as it was at the load).
void TestDetectPanel::theEditorsNetworkIsTheOneThatRuns()
{
    QTemporaryDir dir;
    const QString image = shapesImage(dir);
    QVERIFY(!image.isEmpty());
    const QString cfg = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    QString text = QString::fromUtf8(test::readAll(cfg));
    const QString edited = withLinearActivation(text);
    const std::optional<QString> found = boxesFoundBy(cfg, edited, image); // loaded from the start
    QVERIFY(found);
    const QString expected = *found;

    ui::DetectPanel panel;
    panel.setCfgTextSource([&] { return text; });
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    openNetwork(panel, cfg);
    QVERIFY(loaded.wait(60000));
    panel.openImageFile(image);
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 1, 30000);
    const QString before = boxesText(panel.boxes());
    QVERIFY2(before != expected, qPrintable(before)); // the edit changes what is found
    text = edited;
    panel.openImageFile(image);
    QVERIFY(loaded.wait(60000)); // loaded again, with the same weights
    QCOMPARE(loaded.last().first().toString(), QString());
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 2, 30000);
    QCOMPARE(boxesText(panel.boxes()), expected);
    panel.openImageFile(image); // unchanged since: no load
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 3, 30000);
    QCOMPARE(loaded.size(), 2);

    // In view, an edit runs the image on show again by itself (its boxes stayed the network's before
    // the edit, under the same header); an edit its weights no longer fit clears them and says so on
    // the detector line, with no dialog in the middle of editing.
    const QString original = QString::fromUtf8(test::readAll(cfg));
    panel.show();
    text = original;
    panel.networkEdited();
    QVERIFY(loaded.wait(60000));
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 4, 30000);
    QCOMPARE(boxesText(panel.boxes()), before);
    text.replace("filters=16", "filters=24");
    panel.networkEdited();
    QVERIFY(loaded.wait(60000));
    QVERIFY(!loaded.last().first().toString().isEmpty());
    QVERIFY(panel.boxes().empty() && panel.annotated().isNull());
    QCoreApplication::processEvents();
    QCOMPARE(panel.findChildren<QMessageBox*>().size(), 0);
    // The result's line goes with its boxes (it still said "… · 10 objects · 55.6 ms"), and the edit
    // undone runs the image again (the refusal stayed until another image was opened).
    QVERIFY2(!panel.status()->text().contains(" ms"), qPrintable(panel.status()->text()));
    text = original;
    panel.networkEdited();
    QVERIFY(loaded.wait(60000));
    QCOMPARE(loaded.last().first().toString(), QString());
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 5, 30000);
    QCOMPARE(boxesText(panel.boxes()), before);
    // Hidden (another tab in front), an edit waits: the image runs when the panel comes into view.
    text = edited;
    panel.hide();
    panel.openImageFile(image);
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 6, 30000);
    text = original;
    panel.networkEdited();
    QTest::qWait(1200);
    QCOMPARE(panel.framesReceived(), 6);
    panel.show();
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 7, 30000);
    QCOMPARE(boxesText(panel.boxes()), before);
}

// Other weights chosen while an image is on show run it again: the boxes on screen and in the exports
// were the earlier weights' (the header named the new file).
void TestDetectPanel::otherWeightsRunTheImageAgain()
{
    QTemporaryDir dir;
    const QString image = shapesImage(dir);
    QVERIFY(!image.isEmpty());
    const QString cfg = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    const QString other = dir.filePath("other.weights");
    QCOMPARE(test::cli({"init", cfg, other, "--seed", "5"}).exitCode, 0);

    ui::DetectPanel fresh; // what the other weights find, loaded from the start
    QSignalSpy freshLoaded(&fresh, &ui::DetectPanel::detectorLoaded);
    openNetwork(fresh, cfg);
    QVERIFY(freshLoaded.wait(60000));
    fresh.setWeights(other);
    QVERIFY(freshLoaded.wait(60000));
    fresh.thresholdSlider()->setValue(1); // (random weights: low scores)
    fresh.openImageFile(image);
    QTRY_COMPARE_WITH_TIMEOUT(fresh.framesReceived(), 1, 30000);
    const QString expected = boxesText(fresh.boxes());

    ui::DetectPanel panel;
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    openNetwork(panel, cfg); // the bundled weights
    QVERIFY(loaded.wait(60000));
    QVERIFY(slideTo(panel, panel.thresholdSlider(), 1));
    panel.openImageFile(image);
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 1, 30000);
    QVERIFY(boxesText(panel.boxes()) != expected);
    panel.setWeights(other);
    QVERIFY(loaded.wait(60000));
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 2, 30000); // the image again
    QCOMPARE(boxesText(panel.boxes()), expected);
    // Weights that cannot be loaded leave nothing of the earlier ones on show.
    const QString broken = dir.filePath("broken.weights");
    test::writeFile(broken, "not weights");
    panel.setWeights(broken);
    QVERIFY(loaded.wait(60000));
    QVERIFY(!loaded.last().first().toString().isEmpty());
    QVERIFY(panel.boxes().empty() && panel.annotated().isNull());
}

// An image that cannot be read after one that was shown: the old image and its boxes leave the view, so
// nothing of them is exported under the new name (nor anything before a first image); a zoomed image
// scrolls (it was cropped to the view's size); NMS at 0 reads "off", Darknet's "no suppression".
void TestDetectPanel::aFailedImageLeavesNothingBehindAndAZoomScrolls()
{
    QTemporaryDir dir;
    ui::DetectPanel panel;
    panel.resize(640, 560);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg");
    QVERIFY(loaded.wait(60000));
    QPushButton* exportJson = nullptr;
    for (QPushButton* button : panel.findChildren<QPushButton*>())
        if (button->text() == "Export JSON…")
            exportJson = button;
    QVERIFY(exportJson);
    exportJson->click(); // nothing detected yet: said, no dialog
    QCOMPARE(panel.status()->text(), QString("Nothing to export yet: detect on an image first."));

    panel.openImageFile("/usr/share/darknet/data/dog.jpg");
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 1, 30000);
    auto* scroll = panel.findChild<QScrollArea*>();
    QVERIFY(scroll);
    panel.setZoom(1);
    QTRY_VERIFY(scroll->horizontalScrollBar()->maximum() > 0 && scroll->verticalScrollBar()->maximum() > 0);
    panel.setZoom(0); // fit: nothing to scroll
    QTRY_COMPARE(scroll->horizontalScrollBar()->maximum(), 0);

    test::writeFile(dir.filePath("fake.jpg"), "not an image");
    panel.openImageFile(dir.filePath("fake.jpg"));
    QTRY_VERIFY_WITH_TIMEOUT(panel.status()->text().contains("cannot read"), 30000);
    QVERIFY(panel.view()->pixmap().isNull());
    QVERIFY(panel.boxes().empty());
    QVERIFY(panel.annotated().isNull());
    exportJson->click();
    QCOMPARE(panel.status()->text(), QString("Nothing to export yet: detect on an image first."));

    // A JPEG cut short: refused by name, as the CLI and training do (it showed boxes over a grey half).
    QFile dog("/usr/share/darknet/data/dog.jpg");
    QVERIFY(dog.open(QIODevice::ReadOnly));
    test::writeFile(dir.filePath("cut.jpg"), dog.readAll().left(int(dog.size() / 2)));
    panel.openImageFile(dir.filePath("cut.jpg"));
    QTRY_VERIFY_WITH_TIMEOUT(panel.status()->text().contains("cut.jpg: the JPEG is cut short"), 30000);
    QVERIFY(panel.view()->pixmap().isNull());

    QVERIFY(slideTo(panel, panel.nmsSlider(), 0));
    QStringList labels;
    for (QLabel* label : panel.findChildren<QLabel*>())
        labels << label->text();
    QVERIFY2(labels.contains("0.25 / off"), qPrintable(labels.join(" | ")));
}

// What the worker was already doing for the old network when another was opened — loading its weights,
// detecting on an image — arrives after the switch and is dropped: the old load's label ("Detector:
// fashion-mnist.cfg with shapes-tiny.weights (3 classes)") and the old network's frame used to show.
void TestDetectPanel::aReplacedNetworksResultsAreDropped()
{
    ui::DetectPanel panel;
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg"); // queues its bundled weights
    panel.openImageFile("/usr/share/darknet/data/dog.jpg");                     // and a detection
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg");
    panel.useRandomWeights();
    QVERIFY(loaded.wait(60000)); // the worker runs in order: the old load and frame came before
    QCoreApplication::processEvents();
    QCOMPARE(loaded.size(), 1);
    QCOMPARE(panel.framesReceived(), 0);
    QVERIFY(panel.view()->pixmap().isNull());
    QStringList labels;
    for (QLabel* label : panel.findChildren<QLabel*>())
        labels << label->text();
    QVERIFY2(labels.contains("Classifier: fashion-mnist.cfg with random weights, untrained (10 classes)"),
             qPrintable(labels.join(" | ")));
}

// A load warning of a network replaced since (here: NaN in its weights) is not shown under the new one;
// the same file's warning does show while its network is the one open.
void TestDetectPanel::aReplacedNetworksWarningsAreDropped()
{
    QTemporaryDir dir;
    const QString nanWeights = dir.filePath("nan.weights");
    QVERIFY(QFile::copy(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights",
                        nanWeights));
    {
        QFile file(nanWeights);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.seek(file.size() - 4));
        const float nan = std::numeric_limits<float>::quiet_NaN();
        file.write(reinterpret_cast<const char*>(&nan), sizeof nan);
    }
    ui::DetectPanel panel;
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg");
    panel.setWeights(nanWeights);
    QTRY_VERIFY_WITH_TIMEOUT(panel.status()->text().contains("NaN"), 60000);

    panel.setWeights(nanWeights); // again, and another network before it is loaded
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg");
    panel.useRandomWeights();
    const int before = int(loaded.size());
    QTRY_VERIFY_WITH_TIMEOUT(loaded.size() > before, 60000);
    QTest::qWait(200); // anything still queued from the worker
    QVERIFY2(!panel.status()->text().contains("NaN"), qPrintable(panel.status()->text()));
}

// A video that cannot be opened ends with its reason in the status line (the frame count replaced it);
// a still image after a video shows no frame rate; Save image adds .png to a name without a suffix.
void TestDetectPanel::streamProblemsStayInViewAndSavingNamesItsFile()
{
    QTemporaryDir dir;
    const QString notVideo = dir.filePath("notes.avi");
    test::writeFile(notVideo, "not a video\n");
    ui::DetectPanel panel;
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    QSignalSpy finished(&panel, &ui::DetectPanel::streamFinished);
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg");
    QVERIFY(loaded.wait(60000));
    panel.openVideoFile(notVideo);
    QVERIFY(finished.wait(30000));
    QVERIFY2(panel.status()->text().startsWith("notes.avi: 0 frames · ") &&
                 panel.status()->text().contains("cannot open the video"),
             qPrintable(panel.status()->text()));
    panel.openImageFile("/usr/share/darknet/data/dog.jpg");
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 1, 30000);
    QVERIFY2(!panel.status()->text().contains("FPS"), qPrintable(panel.status()->text()));
    QVERIFY(panel.saveImage(dir.filePath("dog")));
    QCOMPARE(QImage(dir.filePath("dog.png")).size(), QSize(768, 576));
    QVERIFY(!panel.saveImage(dir.filePath("missing/dog.png")));
    QVERIFY2(panel.status()->text().startsWith("Cannot save the image: cannot write " +
                                               dir.filePath("missing/dog.png") + ": the folder"),
             qPrintable(panel.status()->text()));
    // A names file of another length is named on the detector line, once, and the remark goes with it.
    const auto detectorLine = [&] {
        for (QLabel* label : panel.findChildren<QLabel*>())
            if (label->text().startsWith("Detector:"))
                return label->text();
        return QString();
    };
    test::writeFile(dir.filePath("three.names"), "a\nb\nc\n");
    panel.setNames(dir.filePath("three.names"));
    panel.setNames(dir.filePath("three.names"));
    QVERIFY2(detectorLine().endsWith(" · names: three.names has 3 for 5 classes (another data set's?)") &&
                 detectorLine().count("names:") == 1,
             qPrintable(detectorLine()));
    panel.setNames(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.names");
    QVERIFY2(!detectorLine().contains("names:"), qPrintable(detectorLine()));
}

// A cfg without weights does not run on random weights silently (it said "No objects above the
// threshold"), nor on the previous network: the panel says what is missing; Random weights is an
// explicit choice that the detector line names.
void TestDetectPanel::noWeightsIsSaidAndRandomWeightsAreAChoice()
{
    ui::DetectPanel panel;
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg"); // bundled weights
    QVERIFY(loaded.wait(60000));
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg"); // none
    // A classifier from its cfg, before any weights: no box controls (they showed until weights loaded).
    QVERIFY(!panel.thresholdSlider()->isVisibleTo(&panel));
    for (QCheckBox* box : panel.findChildren<QCheckBox*>())
        QVERIFY2(!(box->text() == "Letterbox" || box->text() == "Labels") || !box->isVisibleTo(&panel),
                 qPrintable(box->text()));
    QStringList texts;
    for (QLabel* label : panel.findChildren<QLabel*>())
        texts << label->text();
    QVERIFY2(texts.contains("Classifier: fashion-mnist.cfg — choose its weights."),
             qPrintable(texts.join('|')));
    panel.openImageFile("/usr/share/darknet/data/dog.jpg");
    QCOMPARE(panel.status()->text(),
             QString("fashion-mnist.cfg has no weights yet: choose them with Weights…, "
                     "or Random weights to run it untrained. dog.jpg runs once they load."));
    QTest::qWait(200); // nothing was queued: no frame can arrive
    QCOMPARE(panel.framesReceived(), 0);
    panel.useRandomWeights();
    QVERIFY(loaded.wait(60000));
    QCOMPARE(loaded.last().first().toString(), QString());
    // The image asked for before there were weights runs once they load (studio --train --detect).
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 1, 30000);
    QVERIFY(panel.status()->text().startsWith("dog.jpg"));
    QLabel* detector = nullptr;
    for (QLabel* label : panel.findChildren<QLabel*>())
        if (label->text().startsWith("Classifier:"))
            detector = label;
    QVERIFY(detector);
    QCOMPARE(detector->text(),
             QString("Classifier: fashion-mnist.cfg with random weights, untrained (10 classes)"));
    QVERIFY(!panel.thresholdSlider()->isVisibleTo(&panel)); // a classifier has no boxes to filter
    panel.openImageFile("/usr/share/darknet/data/dog.jpg");
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 2, 30000);
    // Another network forgets what waited for the last one's weights.
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg");
    panel.openImageFile("/usr/share/darknet/data/dog.jpg");
    const int frames = panel.framesReceived();
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg");
    QVERIFY(loaded.wait(60000));
    QTest::qWait(300);
    QCOMPARE(panel.framesReceived(), frames);
    QVERIFY(
        panel.thresholdSlider()->isVisibleTo(&panel)); // a detector after the classifier: filters are back
    // The input dialogs open on the data set's validation images, then on the last input's folder.
    {
        ui::DetectPanel fresh;
        QTemporaryDir data;
        QVERIFY(QDir().mkpath(data.filePath("valid")));
        test::writeFile(data.filePath("valid/a.jpg"), "");
        test::writeFile(data.filePath("valid.txt"), "valid/a.jpg\n");
        test::writeFile(data.filePath("set.data"), "classes=5\nvalid=valid.txt\n");
        openNetwork(fresh, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg");
        fresh.suggest(QString(), data.filePath("set.data"));
        QCOMPARE(fresh.inputFolder(), data.filePath("valid"));
        fresh.openImageFile("/usr/share/darknet/data/dog.jpg");
        QCOMPARE(fresh.inputFolder(), QString("/usr/share/darknet/data"));
    }
    // Weights a classifier cannot take: it is named as one (it said "Cannot load the detector").
    QTemporaryDir dir;
    test::writeFile(dir.filePath("short.weights"), QByteArray(20, '\0'));
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg");
    panel.setWeights(dir.filePath("short.weights"));
    QTRY_VERIFY_WITH_TIMEOUT(detector->text().startsWith("Cannot load the classifier: "), 30000);
}

// The Device box: the CPU first (chosen), then each GPU by name and free memory; on a machine without
// one (this one, CI) a disabled entry carries the reason `devices` gives. The detector still runs.
void TestDetectPanel::deviceChoiceListsTheGpusOrSaysWhyNone()
{
    ui::DetectPanel panel;
    QComboBox* devices = panel.deviceBox();
    QVERIFY(devices);
    QCOMPARE(devices->itemText(0), QString("CPU"));
    QCOMPARE(devices->currentIndex(), 0);
    // FP32 (as the CPU), TF32 or FP16: a GPU's choice only.
    QComboBox* precision = panel.precisionBox();
    QVERIFY(precision && !precision->isEnabled());
    QCOMPARE(precision->count(), 3);
    QCOMPARE(precision->currentText(), QString("FP32"));
    QCOMPARE(precision->itemText(1), QString("TF32"));
    QCOMPARE(precision->itemText(2), QString("FP16"));
    const GpuInventory inventory = listGpus(false);
    if (inventory.devices.empty()) {
        QCOMPARE(devices->count(), 2);
        QCOMPARE(devices->itemText(1), "GPU: " + QString::fromStdString(inventory.problem));
        auto* model = qobject_cast<QStandardItemModel*>(devices->model());
        QVERIFY(model && !model->item(1)->isEnabled());
    } else {
        QCOMPARE(devices->count(), int(inventory.devices.size()) + 1);
        QVERIFY(devices->itemText(1).startsWith(
            QString("cuda:%1 %2").arg(inventory.devices[0].index).arg(inventory.devices[0].name.c_str())));
        devices->setCurrentIndex(1);
        QVERIFY(precision->isEnabled());
        devices->setCurrentIndex(0);
        QVERIFY(!precision->isEnabled());
    }
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg");
    QVERIFY(loaded.wait(60000));
    QCOMPARE(loaded.last().first().toString(), QString());
}

// The Letterbox box follows the cfg's letter_box=1 (as detect and map do) when a network opens and when
// the cfg's value changes; in between, a choice made by hand holds.
void TestDetectPanel::letterboxFollowsTheCfg()
{
    QTemporaryDir dir;
    const QString image = shapesImage(dir);
    QVERIFY(!image.isEmpty());
    const QString cfg = QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg";
    QFile file(cfg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString plain = QString::fromUtf8(file.readAll());
    QVERIFY(plain.contains("[net]\n"));
    QString withLetterbox = plain;
    withLetterbox.replace("[net]\n", "[net]\nletter_box=1\n");
    QString text = withLetterbox;

    ui::DetectPanel panel;
    panel.setCfgTextSource([&] { return text; });
    QCheckBox* letterbox = nullptr;
    for (QCheckBox* box : panel.findChildren<QCheckBox*>())
        if (box->text() == "Letterbox")
            letterbox = box;
    QVERIFY(letterbox && !letterbox->isChecked());
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    openNetwork(panel, cfg);
    QVERIFY(loaded.wait(60000));
    QVERIFY(letterbox->isChecked());
    panel.openImageFile(image);
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 1, 30000);

    letterbox->setChecked(false); // by hand: the image runs again, stretched
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 2, 30000);
    text = withLetterbox + "\n# an edit elsewhere\n";
    panel.openImageFile(image); // loaded again: the cfg's value has not changed, the choice holds
    QVERIFY(loaded.wait(60000));
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 3, 30000);
    QVERIFY(!letterbox->isChecked());

    text = plain; // letter_box taken out, then put back: the box follows each change
    panel.openImageFile(image);
    QVERIFY(loaded.wait(60000));
    QVERIFY(!letterbox->isChecked());
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 4, 30000);

    // The image asked for with the edit was queued before the load, with the box as it was: it runs
    // again as the box now says (the box said letterbox while the boxes shown were stretched).
    const QString dog = "/usr/share/darknet/data/dog.jpg"; // not square: the two differ
    QVERIFY(slideTo(panel, panel.thresholdSlider(), 1));
    panel.openImageFile(dog);
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 5, 30000);
    const QString stretched = boxesText(panel.boxes());
    text = withLetterbox;
    panel.openImageFile(dog);
    QVERIFY(loaded.wait(60000));
    QVERIFY(letterbox->isChecked());
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 7, 30000); // the queued one, then the run again
    const QString letterboxed = boxesText(panel.boxes());
    QVERIFY(letterboxed != stretched);
    letterbox->setChecked(false); // by hand, and back: the same two results
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 8, 30000);
    QCOMPARE(boxesText(panel.boxes()), stretched);
    letterbox->setChecked(true);
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 9, 30000);
    QCOMPARE(boxesText(panel.boxes()), letterboxed);
}

// Labels: the image's own label file drawn dashed under the detections and counted against them, without
// running the network again. The labels are the detections themselves (each found), then one more in an
// empty corner (not found) and one fewer (a box on no label); no label file is said.
void TestDetectPanel::labelsAreDrawnAndCounted()
{
    QTemporaryDir dir;
    const QString image = shapesImage(dir);
    QVERIFY(!image.isEmpty());
    ui::DetectPanel panel;
    panel.resize(640, 560);
    panel.show(); // (the view draws at its own size)
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg");
    QVERIFY(loaded.wait(60000));
    panel.openImageFile(image);
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 1, 30000);
    const std::vector<LabeledBox> boxes = panel.boxes();
    QVERIFY(boxes.size() >= 2);
    QVERIFY(panel.labelsShown().empty() && !panel.status()->text().contains("labels"));
    const QImage without = panel.view()->pixmap().toImage();

    const QString labelPath = QString(image).replace(".jpg", ".txt"); // (make-shapes writes it beside)
    QCOMPARE(panel.proposedSavePath(".txt"), labelPath); // Export YOLO labels proposes where it is read
    const QImage picture(image);
    for (const LabeledBox& b : boxes) // the corner below stays clear of every detection
        QVERIFY(b.left > 0.12f * float(picture.width()) || b.top > 0.12f * float(picture.height()));
    const std::string exact = yoloLabelText(boxes, picture.width(), picture.height());
    test::writeFile(labelPath, QByteArray::fromStdString(exact) + "0 0.05 0.05 0.08 0.08\n");
    panel.labelsBox()->setChecked(true);
    QTest::qWait(500);                   // (a run, had one been queued, would have come back by now)
    QCOMPARE(panel.framesReceived(), 1); // the same frame: no network run
    QCOMPARE(panel.labelsShown().size(), boxes.size() + 1);
    QVERIFY2(panel.status()->text().endsWith(
                 QString(" · labels: %1 of %2 found").arg(boxes.size()).arg(boxes.size() + 1)),
             qPrintable(panel.status()->text()));
    QVERIFY(panel.legend()->text().contains("dashed: the image's labels"));
    // The corner's dashed frame is in the view, in class 0's colour (the legend's extra line may have
    // made the picture a little smaller).
    int r, g, b;
    classColor(0, r, g, b);
    const auto framePixels = [&](const QImage& shown) {
        const int corner = shown.width() * 12 / 100;
        int count = 0;
        for (int y = 0; y < corner; ++y)
            for (int x = 0; x < corner; ++x) {
                const QColor c = shown.pixelColor(x, y);
                count += std::abs(c.red() - r) + std::abs(c.green() - g) + std::abs(c.blue() - b) < 40;
            }
        return count;
    };
    const QImage with = panel.view()->pixmap().toImage();
    QVERIFY2(framePixels(with) > framePixels(without) + 20,
             qPrintable(QString("%1 vs %2").arg(framePixels(with)).arg(framePixels(without))));

    // The label file rewritten (nullopt: removed), then read again as Labels is ticked; the status line's
    // labels part comes back.
    const auto relabelled = [&](const std::optional<std::string>& content) {
        if (content)
            test::writeFile(labelPath, QByteArray::fromStdString(*content));
        else
            QFile::remove(labelPath);
        panel.labelsBox()->setChecked(false);
        panel.labelsBox()->setChecked(true);
        const QString status = panel.status()->text();
        return status.mid(status.indexOf(" · labels") >= 0 ? status.indexOf(" · labels")
                                                           : status.indexOf(" · no label"));
    };
    const QString file = QFileInfo(labelPath).fileName();
    // One label fewer: its detection is a box on no label.
    const std::vector<LabeledBox> rest(boxes.begin() + 1, boxes.end());
    QCOMPARE(relabelled(yoloLabelText(rest, picture.width(), picture.height())),
             QString(" · labels: %1 of %1 found, 1 box on no label").arg(rest.size()));
    // Bad lines are counted, and said with their reasons on the status line's tooltip.
    QCOMPARE(relabelled(exact + "7 0.5 0.5 0.1 0.1\nx\n"),
             QString(" · labels: %1 of %1 found, 2 bad lines skipped in %2").arg(boxes.size()).arg(file));
    QVERIFY2(panel.status()->toolTip().contains(file + ":" + QString::number(boxes.size() + 1) + ":"),
             qPrintable(panel.status()->toolTip()));
    QCOMPARE(relabelled(exact + "x\n"),
             QString(" · labels: %1 of %1 found, 1 bad line skipped in %2").arg(boxes.size()).arg(file));
    QCOMPARE(relabelled(std::nullopt), " · no label file (" + labelPath + ")");
    QVERIFY(panel.labelsShown().empty());

    // A network the editor cannot give (Source holding text that is no cfg): said, and the last result
    // leaves the view (it stayed, as if it were the new image's).
    panel.setEditorCheck([] { return QString("Not run: the text typed in Source is not a cfg"); });
    panel.openImageFile(image);
    QCOMPARE(panel.status()->text(), QString("Not run: the text typed in Source is not a cfg"));
    QVERIFY(panel.boxes().empty() && panel.annotated().isNull() && panel.legend()->text().isEmpty());
}

QTEST_MAIN(TestDetectPanel)
// The view draws boxes at the size it shows: a 40-pixel image shown 8× gets its frame at 8× and a label
// of the text size asked for, where scaling the annotated image made the label 8× too (a fifth of it).
void TestDetectPanel::labelsKeepTheirSizeOnAScaledImage()
{
    LabeledBox box;
    box.name = "box";
    box.confidence = 0.9f;
    box.left = box.top = 10;
    box.width = box.height = 20;
    QImage canvas(320, 320, QImage::Format_RGB888);
    canvas.fill(Qt::white);
    ui::paintDetections(canvas, {box}, 8.0, 12, 2);
    int r, g, b;
    classColor(0, r, g, b);
    const QColor colour(r, g, b), white(Qt::white);
    QCOMPARE(canvas.pixelColor(160, 80), colour);  // the frame's top edge, at 8 × 10
    QCOMPARE(canvas.pixelColor(239, 160), colour); // its right edge, at 8 × 30
    QCOMPARE(canvas.pixelColor(160, 160), white);  // inside
    QCOMPARE(canvas.pixelColor(81, 74), colour);   // the label, just above the frame
    QCOMPARE(canvas.pixelColor(81, 50), white);    // and no taller than a 12-pixel line of text
}

// Untrained yolov4-tiny on dog.jpg: 2535 boxes × 80 classes mostly over the candidates' floor, so
// threshold and NMS take long. A run of slider steps queued behind a slow filtering is then filtered
// once, at the last value, not once per step (each step froze the window for seconds).
void TestDetectPanel::slowFilteringTakesARunOfSliderStepsAtOnce()
{
    ui::DetectPanel panel;
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    openNetwork(panel, QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/yolov4-tiny.cfg");
    panel.useRandomWeights();
    QVERIFY(loaded.wait(60000));
    QVERIFY(slideTo(panel, panel.thresholdSlider(), 20));
    panel.openImageFile("/usr/share/darknet/data/dog.jpg");
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 1, 60000);
    const int before = panel.filterings();
    QVERIFY(before >= 1);
    QVERIFY2(panel.boxes().size() > 1000, qPrintable(QString::number(panel.boxes().size())));
    // The legend names the dozen classes with most boxes, each entry in one piece, and counts the rest
    // (all 80 classes, wrapped, took the panel's height).
    const QString legend = panel.legend()->text();
    QCOMPARE(legend.count(QString("■")), 12);
    QVERIFY2(legend.contains(QRegularExpression("■</span>&nbsp;class&nbsp;\\d+&nbsp;×&nbsp;\\d+")),
             qPrintable(legend));
    QVERIFY2(
        legend.contains(QRegularExpression("and&nbsp;68&nbsp;more&nbsp;classes&nbsp;\\(\\d+&nbsp;boxes\\)")),
        qPrintable(legend));
    QCOMPARE(panel.legend()->toolTip().count('\n'), 68);
    // (How long a filtering takes depends on the machine, and since NMS finds the overlaps once per image
    // this one takes about 0.1 s: every filtering counts as slow here.)
    panel.setSlowFilterMs(0);
    for (int value = 21; value <= 45; ++value)
        panel.thresholdSlider()->setValue(value);
    QTRY_COMPARE(panel.filterings(), before + 1);
    QCOMPARE(panel.thresholdSlider()->value(), 45);
    QVERIFY(std::all_of(panel.boxes().begin(), panel.boxes().end(),
                        [](const LabeledBox& box) { return box.confidence > 0.45f; }));
    QCoreApplication::processEvents();
    QCOMPARE(panel.filterings(), before + 1);
}

// An image asked for while the chosen weights were refused says why nothing shows; weights that load
// then run it (the status kept "No network is loaded" under the loaded detector's name).
void TestDetectPanel::anImageAskedWithRefusedWeightsRunsWithTheNextOnes()
{
    QTemporaryDir dir;
    const QString image = shapesImage(dir);
    QVERIFY(!image.isEmpty());
    const QString other = dir.filePath("fashion.weights");
    QCOMPARE(test::cli({"init", QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg", other}).exitCode,
             0);
    ui::DetectPanel panel;
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    openNetwork(panel, QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg");
    QVERIFY(loaded.wait(60000));
    panel.setWeights(other);
    QVERIFY(loaded.wait(60000));
    QVERIFY(!loaded.last().first().toString().isEmpty()); // refused
    panel.openImageFile(image);
    QTRY_COMPARE(panel.status()->text(),
                 QString("No network is loaded: choose weights that fit it (Weights…), or Random weights."));
    QCOMPARE(panel.framesReceived(), 0);
    panel.setWeights(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/../resources/weights/shapes-tiny.weights");
    QVERIFY(loaded.wait(60000));
    QCOMPARE(loaded.last().first().toString(), QString());
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), 1, 30000);
    QVERIFY2(panel.status()->text().startsWith(QFileInfo(image).fileName()),
             qPrintable(panel.status()->text()));
    // TIFF and WebP, which the Image… dialog and folders offer, are read (Qt's image plugins: they were
    // "Unsupported image format" without them).
    const cv::Mat pixels = cv::imread(image.toStdString());
    int frames = 1;
    for (const char* name : {"shapes.tif", "shapes.webp"}) {
        QVERIFY(cv::imwrite(dir.filePath(name).toStdString(), pixels));
        panel.openImageFile(dir.filePath(name));
        ++frames; // (not inside QTRY: it evaluates its arguments again and again)
        QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), frames, 30000);
        QVERIFY2(panel.status()->text().startsWith(name), qPrintable(panel.status()->text()));
    }
    // Decoded as the CLI decodes (Qt's reader differed: 16-bit values rounded where OpenCV keeps the
    // high byte, other EXIF orientations, CMYK): a 16-bit PNG of 511 is 1 here, as the network sees it
    // in `detect`, not Qt's 2. A GIF, which the CLI cannot read, is still shown (Qt's first frame).
    QVERIFY(
        cv::imwrite(dir.filePath("deep.png").toStdString(), cv::Mat(48, 64, CV_16UC3, cv::Scalar::all(511))));
    panel.openImageFile(dir.filePath("deep.png"));
    ++frames;
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), frames, 30000);
    QCOMPARE(panel.annotated().pixelColor(0, 0).red(), 1);
    // (the smallest GIF: one white pixel; Qt writes no GIFs)
    test::writeFile(dir.filePath("dot.gif"),
                    QByteArray("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!"
                               "\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01"
                               "\x00\x00\x02\x02"
                               "D\x01\x00;",
                               43));
    panel.openImageFile(dir.filePath("dot.gif"));
    ++frames;
    QTRY_COMPARE_WITH_TIMEOUT(panel.framesReceived(), frames, 30000);
}

#include "test_detect_panel.moc"

// As the Train panel: at its smallest the Detect panel fits a docked width beside the graph, and the
// dock's height on a 1366×768 screen (about 410 px in the first window), export buttons included. (A
// docked panel scrolls by its height for the dock's width: its status line wraps.)
void TestDetectPanel::fitsASmallScreensDock()
{
    ui::DetectPanel panel;
    const int width = panel.minimumSizeHint().width();
    const int height = panel.heightForWidth(640);
    qInfo() << "smallest width" << width << "height at 640 px" << height;
    // (its rows of buttons, one line each, needed 604 px: they wrap now)
    QVERIFY2(width <= 360, qPrintable(QString("the Detect panel needs %1 px").arg(width)));
    QVERIFY2(height <= 410, qPrintable(QString("the Detect panel needs %1 px of height").arg(height)));
}
