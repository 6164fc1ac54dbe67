// The Detect panel (offscreen): a synthetic video through the video path yields every frame; moving
// the threshold re-filters without running the network; bad files are reported and the panel keeps
// working; exports write JSON and YOLO labels.
#include "detect/detect_panel.h"
#include "test_support.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QtTest>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <qcustomplot.h>

using namespace nw;

class TestDetectPanel : public QObject {
    Q_OBJECT
private slots:
    void videoFramesThresholdAndExports();
    void classifierShowsTopClasses();
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
    panel.setNetwork(cfg);
    QSignalSpy loaded(&panel, &ui::DetectPanel::detectorLoaded);
    panel.setWeights(dir.filePath("net.weights"));
    QVERIFY(loaded.wait(60000));
    QCOMPARE(loaded.first().first().toString(), QString());
    QVERIFY(panel.isReady());
    panel.setNames("/usr/share/darknet/data/coco.names");

    QSignalSpy finished(&panel, &ui::DetectPanel::streamFinished);
    panel.openVideoFile(video);
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.first().first().toInt(), 6);
    QTRY_COMPARE(panel.framesReceived(), 6);
    QCOMPARE(panel.annotated().size(), QSize(160, 120));

    // The sliders only re-filter the last frame's candidates.
    panel.thresholdSlider()->setValue(1);
    const std::size_t many = panel.boxes().size();
    panel.thresholdSlider()->setValue(90);
    const std::size_t few = panel.boxes().size();
    QVERIFY(many > few);
    for (const LabeledBox& box : panel.boxes())
        QVERIFY(box.confidence > 0.9f);
    QCOMPARE(panel.framesReceived(), 6); // no new network run
    panel.thresholdSlider()->setValue(1);
    panel.nmsSlider()->setValue(0); // NMS off keeps at least as many boxes
    QVERIFY(panel.boxes().size() >= many);

    QVERIFY(panel.exportJson(dir.filePath("d.json")));
    const QJsonArray json = QJsonDocument::fromJson(test::readAll(dir.filePath("d.json"))).array();
    QCOMPARE(json[0].toObject()["frame"].toInt(), 5);
    QCOMPARE(std::size_t(json[0].toObject()["detections"].toArray().size()), panel.boxes().size());
    QVERIFY(panel.exportYoloLabels(dir.filePath("d.txt")));
    const QStringList lines = QString(test::readAll(dir.filePath("d.txt"))).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(std::size_t(lines.size()), panel.boxes().size());
    QCOMPARE(lines.first().split(' ').size(), 5);

    panel.openImageFile(dir.filePath("missing.jpg"));
    QTRY_VERIFY(panel.status()->text().contains("missing.jpg: cannot read the image"));
    panel.openVideoFile(dir.filePath("broken.avi"));
    QTRY_VERIFY(panel.status()->text().contains("broken.avi: cannot open the video"));
    QSignalSpy again(&panel, &ui::DetectPanel::streamFinished);
    panel.openVideoFile(video); // still working
    QVERIFY(again.wait(120000));
    QCOMPARE(panel.framesReceived(), 12);
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
    panel.setNetwork(cfg);
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
    for (int i = 1; i < 5; ++i) // sorted, best first
        QVERIFY(bars->data()->at(i)->value <= bars->data()->at(i - 1)->value);
    QVERIFY(panel.status()->text().contains("top: class "));
}

QTEST_MAIN(TestDetectPanel)
#include "test_detect_panel.moc"
