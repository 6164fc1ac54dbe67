#include "detect/detect_panel.h"

#include "window/save_file_dialog.h"
#include "window/whole_file.h"

#include "data/class_names.h"
#include "data/data_file.h"
#include "data/detection_dataset.h"
#include "data/image_list_file.h"
#include "detect/annotate.h"
#include "detect/decode.h"
#include "detect/label_check.h"
#include "detect/paint_detections.h"
#include "detect/yolo_labels.h"
#include "device/device_box.h"
#include "graph/network_spec.h"
#include "util/file_check.h"
#include "widgets/bring_into_view.h"
#include "widgets/flow_layout.h"
#include "window/wheel_guard.h"

#include <qcustomplot.h>

#include <algorithm>
#include <map>

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSlider>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>
#include <utility>

namespace nw::ui {

namespace {

// "*.jpg", "*.png", … for a file dialog's filter or a folder's listing, from core's list of endings.
QStringList namePatterns(const std::vector<std::string>& extensions)
{
    QStringList patterns;
    for (const std::string& extension : extensions)
        patterns << "*" + QString::fromStdString(extension);
    return patterns;
}

QString objectCount(std::size_t n)
{
    return n == 1 ? QObject::tr("1 object") : QObject::tr("%1 objects").arg(n);
}

QPushButton* button(QWidget* parent, const QString& text, QLayout* row)
{
    auto* b = new QPushButton(text, parent);
    row->addWidget(b);
    return b;
}

} // namespace

DetectPanel::DetectPanel(QWidget* parent) : QWidget(parent)
{
    detector_ = new QLabel(tr("No detector loaded."), this);
    detector_->setWordWrap(true);
    // Rows of controls that wrap in a narrow dock (one line each made the panel 600 px wide).
    auto* files = new FlowLayout;
    QPushButton* weights = button(this, tr("Weights…"), files);
    QPushButton* random = button(this, tr("Random weights"), files);
    random->setToolTip(tr("Run the network untrained (random weights): to see its outputs, not real boxes"));
    QPushButton* names = button(this, tr("Names…"), files);
    // Where the detector runs, beside what it is made of (the rows below are full).
    device_ = makeDeviceBox(tr("Where the network runs"), this);
    files->addWidget(labelled(new QLabel(tr("Device"), this), device_, this));
    precision_ = new QComboBox(this);
    precision_->addItem(tr("FP32"), DetectWorker::fp32);
    precision_->addItem(tr("TF32"), DetectWorker::tf32);
    precision_->addItem(tr("FP16"), DetectWorker::fp16);
    precision_->setToolTip(tr("How the GPU's convolutions compute. FP32: exactly as the CPU. TF32: FP32 on "
                              "tensor cores with 10-bit mantissas, as Darknet and PyTorch compute FP32 on "
                              "recent GPUs. FP16: half precision on tensor cores. TF32 and FP16 are faster; "
                              "their outputs differ slightly. A GPU only."));
    precision_->setEnabled(false);
    files->addWidget(precision_);
    auto* sources = new FlowLayout;
    QPushButton* image = image_ = button(this, tr("Image…"), sources);
    QPushButton* folder = button(this, tr("Folder…"), sources);
    QPushButton* previous = button(this, tr("◀"), sources);
    QPushButton* next = button(this, tr("▶"), sources);
    for (QPushButton* b : {previous, next}) // arrows: the row fits a docked panel
        b->setFixedWidth(32);
    previous->setToolTip(tr("The folder's previous image"));
    next->setToolTip(tr("The folder's next image"));
    previous->setAccessibleName(tr("Previous image"));
    next->setAccessibleName(tr("Next image"));
    slideshow_ = button(this, tr("Slideshow"), sources);
    slideshow_->setCheckable(true);
    slideshow_->setToolTip(tr("Show the folder's images one after another, every 2 seconds"));
    editedTimer_ = new QTimer(this);
    editedTimer_->setSingleShot(true);
    editedTimer_->setInterval(800);
    connect(editedTimer_, &QTimer::timeout, this, &DetectPanel::runStillAgainIfEdited);
    slideTimer_ = new QTimer(this);
    slideTimer_->setInterval(2000);
    connect(slideTimer_, &QTimer::timeout, this, [this] {
        // A slow network (a big one on the CPU) finishes the image first: ticks never queue up behind it.
        const qint64 waiting = QDateTime::currentMSecsSinceEpoch() - imageRequestedAt_;
        if (imageRequestedAt_ > 0 && waiting < 60000)
            return;
        showNext(1);
    });
    connect(slideshow_, &QPushButton::toggled, this, [this](bool on) {
        if (on && folder_.isEmpty()) {
            status_->setText(tr("Open a folder first (Folder…), then start the slideshow."));
            slideshow_->setChecked(false);
            return;
        }
        on ? slideTimer_->start() : slideTimer_->stop();
    });
    QPushButton* video = button(this, tr("Video…"), sources);
    QPushButton* camera = button(this, tr("Camera"), sources);
    QPushButton* stop = button(this, tr("Stop"), sources);
    stop->setObjectName("stopSource");

    threshold_ = new QSlider(Qt::Horizontal, this);
    threshold_->setRange(1, 99);
    threshold_->setValue(25);
    nms_ = new QSlider(Qt::Horizontal, this);
    nms_->setRange(0, 100);
    nms_->setValue(45);
    threshold_->setAccessibleName(tr("Confidence threshold"));
    nms_->setAccessibleName(tr("NMS overlap threshold"));
    thresholdValue_ = new QLabel(this);
    letterbox_ = new QCheckBox(tr("Letterbox"), this);
    letterbox_->setToolTip(
        tr("Keep the aspect ratio, padding the image, instead of stretching it. Ticked "
           "when the network's [net] has letter_box=1 (as Darknet detects and map scores)."));
    showLabels_ = new QCheckBox(tr("Labels"), this);
    showLabels_->setToolTip(
        tr("Draw the image's own YOLO label file (found as training finds it) as dashed boxes under the "
           "detections, and count the labels a box of their class found (IoU > 0.5). Images only; saved "
           "and exported pictures hold the detections alone."));
    auto* filters = new FlowLayout;
    auto* nmsPair = labelled(new QLabel(tr("NMS"), this), nms_, this);
    nmsPair->layout()->addWidget(thresholdValue_); // ("0.25 / 0.45": the two values, after both sliders)
    detectorOnly_ = {labelled(new QLabel(tr("Threshold"), this), threshold_, this), nmsPair, letterbox_,
                     showLabels_};
    for (QWidget* w : detectorOnly_)
        filters->addWidget(w);

    picture_ = new DetectionView(this);
    picture_->setAccessibleName(tr("Image with its detections"));
    picture_->setHint(tr("Open an image, a folder of images, a video or the camera with the buttons above: "
                         "what the network finds is drawn here."));
    auto* viewRow = new QHBoxLayout;
    legend_ = new QLabel(this);
    legend_->setTextFormat(Qt::RichText);
    legend_->setWordWrap(true); // (many classes and the labels' note widened the dock past its room)
    viewRow->addWidget(legend_, 1);
    QPushButton* fit = button(this, tr("Fit"), viewRow);
    QPushButton* zoomOut = button(this, tr("−"), viewRow);
    QPushButton* zoomIn = button(this, tr("+"), viewRow);
    for (QPushButton* b : {zoomOut, zoomIn})
        b->setFixedWidth(32);
    zoomOut->setToolTip(tr("Zoom out (Ctrl+wheel)"));
    zoomIn->setToolTip(tr("Zoom in (Ctrl+wheel)"));
    zoomOut->setAccessibleName(tr("Zoom out"));
    zoomIn->setAccessibleName(tr("Zoom in"));
    status_ = new QLabel(this);
    status_->setWordWrap(true); // a long error wraps instead of widening the window
    bars_ = new QCustomPlot(this);
    bars_->setFixedHeight(170);
    bars_->setVisible(false);
    // Bars across, a class name to a row: side by side, five names overlapped at 150 % scaling.
    bars_->xAxis->setRange(0, 100);
    bars_->xAxis->setLabel(tr("%"));
    bars_->yAxis->setRangeReversed(true); // the best class on top
    auto* exports = new FlowLayout;
    QPushButton* save = button(this, tr("Save image…"), exports);
    save->setObjectName("saveImage");
    QPushButton* json = button(this, tr("Export JSON…"), exports);
    QPushButton* yolo = yoloExport_ = button(this, tr("Export YOLO labels…"), exports);
    record_ = button(this, tr("Record video…"), exports);
    record_->setCheckable(true);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(detector_);
    layout->addLayout(files);
    layout->addLayout(sources);
    layout->addLayout(filters);
    layout->addLayout(viewRow);
    layout->addWidget(picture_, 1);
    layout->addWidget(bars_);
    layout->addWidget(status_);
    layout->addLayout(exports);

    thread_ = new QThread(this);
    worker_ = new DetectWorker;
    worker_->moveToThread(thread_);
    connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &DetectWorker::loaded, this, &DetectPanel::onLoaded);
    connect(worker_, &DetectWorker::frameReady, this, &DetectPanel::onFrame);
    const auto showProblem = [this](QString text) {
        // Browsing a folder, where the unreadable image is: its position went with its result.
        if (showingStill_ && folderIndex_ >= 0 && folderIndex_ < folder_.size() &&
            folder_[folderIndex_] == stillAsked_)
            text = tr("%1 of %2: %3").arg(folderIndex_ + 1).arg(folder_.size()).arg(text);
        if (imageRequestedAt_ != 0) {
            // The image asked for cannot be read: the one before must not stay in view, nor be exported
            // under this one's name.
            clearResult();
            imageRequestedAt_ = 0; // done with too
        }
        status_->setText(text);
        streamProblem_ = text;
    };
    connect(worker_, &DetectWorker::problem, this, showProblem);
    connect(worker_, &DetectWorker::networkProblem, this,
            [this, showProblem](const QString& text, int generation) {
                if (generation == generation_)
                    showProblem(text);
                else // a replaced network's warning: not shown, but its image is done with
                    imageRequestedAt_ = 0;
            });
    connect(worker_, &DetectWorker::streamEnded, this, [this](const QString& source, int frames) {
        // A stream that failed ends with its reason still in view (the frame count used to replace it);
        // a recording of it is finished with it, so the file is whole (it stayed open, unindexed).
        QString text =
            (std::exchange(streamStopped_, false) ? tr("%1: stopped after %2 frames") : tr("%1: %2 frames"))
                .arg(QFileInfo(source).fileName())
                .arg(frames);
        if (recorder_.isOpen())
            text += " · " + tr("recorded %1 frames into %2").arg(recorder_.frames()).arg(recordingPath_);
        if (recorder_.isOpen() || !recordingPath_.isEmpty())
            if (const QString problem = stopRecording(); !problem.isEmpty())
                text += " · " + tr("recording failed: %1").arg(problem);
        if (frames == 0) // (the last source's frame and boxes stayed in view under this one's name)
            clearResult();
        status_->setText(text + (streamProblem_.isEmpty() ? QString() : " · " + streamProblem_));
        emit streamFinished(frames);
    });
    thread_->start();

    // A slow filtering (the candidates of untrained weights: a hundred thousand boxes, seconds of NMS)
    // waits until the slider steps queued behind it are handled: a run of steps costs one, not one each.
    slowFilterTimer_ = new QTimer(this);
    slowFilterTimer_->setSingleShot(true);
    slowFilterTimer_->setInterval(0);
    connect(slowFilterTimer_, &QTimer::timeout, this, &DetectPanel::refilter);
    const auto filterFromSlider = [this] {
        if (lastFilterMs_ < slowFilterMs_)
            return refilter();
        showFilterValues();
        slowFilterTimer_->start();
    };
    connect(threshold_, &QSlider::valueChanged, this, filterFromSlider);
    connect(nms_, &QSlider::valueChanged, this, filterFromSlider);
    const auto reloadOnDevice = [this] {
        const bool gpu = device_->currentData().toInt() >= 0;
        precision_->setEnabled(gpu);
        QMetaObject::invokeMethod(worker_, "setDevice", Qt::QueuedConnection,
                                  Q_ARG(int, device_->currentData().toInt()));
        QMetaObject::invokeMethod(worker_, "setPrecision", Qt::QueuedConnection,
                                  Q_ARG(int, gpu ? precision_->currentData().toInt() : DetectWorker::fp32));
        if (!weightsPath_.isEmpty())
            setWeights(weightsPath_); // the network again, on the chosen device
        else if (randomWeights_)
            useRandomWeights();
    };
    connect(device_, &QComboBox::currentIndexChanged, this, reloadOnDevice);
    connect(precision_, &QComboBox::currentIndexChanged, this, reloadOnDevice);
    connect(showLabels_, &QCheckBox::toggled, this, [this] { refilter(); }); // (no network run)
    connect(letterbox_, &QCheckBox::toggled, this, [this] {
        if (showingStill_ && !last_.source.isEmpty() && QFileInfo(last_.source).isFile())
            openImageFile(last_.source); // the input changes: this one does need the network
    });
    connect(weights, &QPushButton::clicked, this, [this] {
        // (the folder of the weights in use: a run's folder once one has trained, else the cfg's)
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Weights"), QFileInfo(weightsPath_.isEmpty() ? cfgPath_ : weightsPath_).path(),
            tr("Darknet weights (*.weights)"));
        if (!path.isEmpty())
            setWeights(path);
    });
    connect(random, &QPushButton::clicked, this, &DetectPanel::useRandomWeights);
    connect(names, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Class names"), QFileInfo(cfgPath_).path(),
                                                          tr("Names (*.names *.txt);;All files (*)"));
        if (!path.isEmpty())
            setNames(path);
    });
    connect(image, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Image"), inputFolder_,
            tr("Images (%1);;All files (*)").arg(namePatterns(imageExtensions()).join(' ')));
        if (!path.isEmpty()) {
            slideshow_->setChecked(false); // (its next tick replaced the image chosen)
            openImageFile(path);
        }
    });
    connect(folder, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getExistingDirectory(this, tr("Folder of images"), inputFolder_);
        if (!path.isEmpty())
            openFolder(path);
    });
    connect(previous, &QPushButton::clicked, this, [this] { showNext(-1); });
    connect(next, &QPushButton::clicked, this, [this] { showNext(1); });
    connect(video, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Video"), inputFolder_,
            tr("Videos (%1);;All files (*)").arg(namePatterns(videoExtensions()).join(' ')));
        if (!path.isEmpty())
            openVideoFile(path);
    });
    connect(camera, &QPushButton::clicked, this, [this] {
        const QStringList devices = QDir("/dev").entryList({"video*"}, QDir::System);
        if (devices.isEmpty()) {
            status_->setText(tr("No camera found (no /dev/video* device)."));
            return;
        }
        const int device = devices.first().mid(5).toInt();
        waiting_ = {};
        if (!editorAllowsRunOrSaySo() || !detectorReadyOrSaySo())
            return;
        slideshow_->setChecked(false);
        stopStream();
        resetFrameRate();
        streamProblem_.clear();
        setShowingStill(false);
        weightsChanged_ = false;
        QMetaObject::invokeMethod(worker_, "openCamera", Qt::QueuedConnection, Q_ARG(int, device),
                                  Q_ARG(bool, letterbox_->isChecked()), Q_ARG(int, worker_->newStream()));
        streamStopped_ = false;
    });
    connect(stop, &QPushButton::clicked, this, [this] {
        streamStopped_ = true;         // (the stream's end then says so)
        slideshow_->setChecked(false); // (the slideshow went on changing images)
        stopStream();
    });
    connect(save, &QPushButton::clicked, this, [this] {
        if (annotated_.isNull()) {
            status_->setText(tr("Nothing to save yet: detect on an image first."));
            return;
        }
        const QString path =
            chooseFileToSave(this, tr("Save the annotated image"), proposedSavePath("_detections.png"),
                             tr("Images (*.png *.jpg)"), "png");
        if (!path.isEmpty())
            saveImage(path);
    });
    // Exports before a first image would write empty files: said instead, before any dialog.
    const auto nothingDetectedYet = [this] {
        if (!last_.image.isNull())
            return false;
        status_->setText(tr("Nothing to export yet: detect on an image first."));
        return true;
    };
    connect(json, &QPushButton::clicked, this, [this, nothingDetectedYet] {
        if (nothingDetectedYet())
            return;
        const QString path = chooseFileToSave(
            this, tr("Export detections"), proposedSavePath("_detections.json"), tr("JSON (*.json)"), "json");
        if (!path.isEmpty())
            exportJson(path); // (says what went wrong)
    });
    connect(yolo, &QPushButton::clicked, this, [this, nothingDetectedYet] {
        if (nothingDetectedYet())
            return;
        const QString path = chooseFileToSave(this, tr("Export YOLO labels"), proposedSavePath(".txt"),
                                              tr("Labels (*.txt)"), "txt");
        if (!path.isEmpty())
            exportYoloLabels(path); // (says what went wrong)
    });
    connect(fit, &QPushButton::clicked, this, [this] { setZoom(0); });
    connect(zoomIn, &QPushButton::clicked, this, [this] { setZoom(picture_->currentScale() * 1.25); });
    connect(zoomOut, &QPushButton::clicked, this, [this] { setZoom(picture_->currentScale() / 1.25); });
    connect(record_, &QPushButton::clicked, this, [this](bool on) {
        if (!on) {
            stopRecording();
            return;
        }
        const QString path = chooseFileToSave(this, tr("Record the annotated video"), QString(),
                                              tr("AVI video (*.avi)"), "avi");
        if (path.isEmpty() || !startRecording(path))
            record_->setChecked(false);
    });
    refilter();
    guardFieldsAgainstStrayWheel(this); // (the device and precision lists)
}

DetectPanel::~DetectPanel()
{
    worker_->requestStop();
    thread_->quit();
    thread_->wait();
    recorder_.close();
}

void DetectPanel::setNetwork(const QString& cfgPath, const NetworkSpec& spec)
{
    // Another network starts clean: the last result, its labels and the names belonged to the old one.
    stopStream();
    ++generation_; // frames and loads of the old network still on their way are dropped
    cfgPath_ = cfgPath;
    letterBoxFromCfg_ = true;
    waiting_ = {};
    classes_ = 0;
    classifier_ = false;
    resetFrameRate();
    clearResult();
    stillAsked_.clear(); // (the last network's image does not run again under this one)
    names_.clear();
    weightsPath_.clear();
    suggestedNames_.clear();
    suggestedWeights_.clear();
    randomWeights_ = false;
    QMetaObject::invokeMethod(worker_, "unload", Qt::QueuedConnection); // the old network must not run
    bars_->setVisible(false);
    // A classifier as read from its cfg, before its weights load (or never do): no box controls.
    const bool classifier =
        !cfgPath.isEmpty() && spec.ok() && !spec.layers.empty() && detectionClasses(spec) == 0;
    showControlsFor(classifier);
    status_->clear();
    detector_->setText(cfgPath.isEmpty() ? tr("No detector loaded (an unsaved new network).")
                       : classifier
                           ? tr("Classifier: %1 — choose its weights.").arg(QFileInfo(cfgPath).fileName())
                           : tr("Detector: %1 — choose its weights.").arg(QFileInfo(cfgPath).fileName()));
    // Bundled networks come with their weights (resources/weights in the source tree, weights/ when
    // installed) and their class names beside the cfg.
    const QFileInfo cfg(cfgPath);
    const QString base = cfg.completeBaseName();
    if (const auto names = namesBesideCfg(cfgPath.toStdString()))
        setNames(QString::fromStdString(*names));
    for (const QString& dir : {cfg.path(), cfg.path() + "/../resources/weights", cfg.path() + "/../weights"})
        if (QFileInfo::exists(dir + "/" + base + ".weights")) {
            setWeights(QDir::cleanPath(dir + "/" + base + ".weights"));
            // (a default, not a choice: a run trained here replaces it, as it replaces no weights)
            suggestedWeights_ = weightsPath_;
            break;
        }
}

void DetectPanel::suggest(const QString& weights, const QString& dataFile)
{
    if (cfgPath_.isEmpty())
        return;
    if (!dataFile.isEmpty() && inputFolder_.isEmpty()) { // the validation images, else the training ones
        std::string error;
        if (const auto dataSet = loadDataFile(dataFile.toStdString(), error))
            for (const char* key : {"valid", "train"})
                // (on the GUI thread: a pipe named as the list would hold the studio)
                if (const auto list = dataSet->existingFile(key, error);
                    list && inputFolder_.isEmpty() && isRegularFile(*list))
                    if (const ImageListFile read = readImageListFile(*list, false);
                        read.opened && !read.images.empty())
                        inputFolder_ =
                            QFileInfo(QString::fromStdString(read.images.front().path)).absolutePath();
    }
    if ((names_.empty() || namesPath_ == suggestedNames_) && !dataFile.isEmpty()) {
        std::string error;
        if (const auto dataSet = loadDataFile(dataFile.toStdString(), error)) {
            const std::string names = dataSet->get("names", dataSet->get("labels"));
            if (!names.empty() && QFileInfo::exists(QString::fromStdString(dataSet->resolve(names)))) {
                setNames(QString::fromStdString(dataSet->resolve(names)));
                suggestedNames_ = namesPath_;
            }
        }
    }
    // (the same path again is loaded again: a run that went on rewrote the file)
    if ((weightsPath_.isEmpty() || weightsPath_ == suggestedWeights_) && !randomWeights_ &&
        !weights.isEmpty() && QFileInfo::exists(weights)) {
        setWeights(weights);
        quietRefusal_ = true; // (not the user's choice: the detector line says it, no dialog)
        suggestedWeights_ = weights;
    }
}

void DetectPanel::clearResult()
{
    if (!resultLine_.isEmpty() && status_->text() == resultLine_)
        status_->clear(); // ("000037.jpg · 10 objects · 55.6 ms" stayed over an empty view)
    resultLine_.clear();
    status_->setToolTip(QString()); // (a label file's reasons belong to the result that goes)
    last_ = DetectFrame{};
    boxes_.clear();
    annotated_ = QImage();
    picture_->clearPicture();
    legend_->clear();
    legend_->setToolTip(QString());
}

void DetectPanel::useRandomWeights()
{
    if (cfgPath_.isEmpty())
        return;
    stopStream(); // as setWeights
    weightsPath_.clear();
    randomWeights_ = true;
    weightsChanged_ = true;
    detector_->setText(tr("Loading %1 with random weights…").arg(QFileInfo(cfgPath_).fileName()));
    loadedText_ = editorText();
    QMetaObject::invokeMethod(worker_, "load", Qt::QueuedConnection, Q_ARG(QString, cfgPath_),
                              Q_ARG(QString, QString()), Q_ARG(QString, loadedText_),
                              Q_ARG(int, ++generation_));
}

QString DetectPanel::editorText() const
{
    return cfgText_ ? cfgText_() : QString();
}

// (It ran the last network that was a cfg, not the text Source shows, while Save and Train refused.)
bool DetectPanel::editorAllowsRunOrSaySo()
{
    const QString problem = editorCheck_ ? editorCheck_() : QString();
    if (!problem.isEmpty()) {
        stopStream();
        slideshow_->setChecked(false); // (it went on through the folder, refused every 2 s)
        clearResult();                 // (the last result stayed in view, as if it were this source's)
        status_->setText(problem);
        bringIntoView(status_);
    }
    return problem.isEmpty();
}

bool DetectPanel::detectorReadyOrSaySo()
{
    // A load in flight is fine: the worker runs it before the detection queued after it.
    if (classes_ > 0 || !weightsPath_.isEmpty() || randomWeights_) {
        // The editor's network changed since it was loaded: load it again (same weights), so the
        // detection runs what the editor shows, not the network as it was when the weights were chosen.
        if (editorText() != loadedText_) {
            if (!weightsPath_.isEmpty())
                setWeights(weightsPath_);
            else if (randomWeights_)
                useRandomWeights();
            weightsChanged_ = false; // (the caller's detection, queued after the load, is the run again)
        }
        return true;
    }
    status_->setText(cfgPath_.isEmpty()
                         ? tr("Open a network first.")
                         : tr("%1 has no weights yet: choose them with Weights…, or Random weights to run it "
                              "untrained.")
                               .arg(QFileInfo(cfgPath_).fileName()));
    bringIntoView(status_);
    return false;
}

void DetectPanel::setWeights(const QString& path)
{
    // (a load the user asks for is refused in a dialog: a quiet one before, whose answer never came back
    // to clear it, made this one quiet too)
    quietRefusal_ = false;
    stopStream(); // a video or camera would hold the worker: the new network would never load
    randomWeights_ = false;
    weightsPath_ = path;
    weightsChanged_ = true;
    detector_->setText(tr("Loading %1…").arg(QFileInfo(path).fileName()));
    loadedText_ = editorText();
    QMetaObject::invokeMethod(worker_, "load", Qt::QueuedConnection, Q_ARG(QString, cfgPath_),
                              Q_ARG(QString, path), Q_ARG(QString, loadedText_), Q_ARG(int, ++generation_));
}

void DetectPanel::setNames(const QString& path)
{
    std::string error;
    if (auto names = loadNames(path.toStdString(), error)) {
        names_ = *names;
        namesPath_ = path;
        sayIfNamesDoNotFit();
        if (auto warning = namesEncodingWarning(*names, path.toStdString())) // (drawn as � before)
            status_->setText(QString::fromStdString(*warning));
    } else {
        status_->setText(QString::fromStdString(error));
    }
    refilter();
}

void DetectPanel::sayIfNamesDoNotFit()
{
    const QString mark = tr(" · names: ");
    QString line = detector_->text();
    if (const auto at = line.indexOf(mark); at >= 0)
        line.truncate(at); // the last names file's remark
    if (classes_ > 0 && !names_.empty() && !namesFitClasses(names_.size(), classes_))
        line += mark + tr("%1 has %2 for %3 classes (another data set's?)")
                           .arg(QFileInfo(namesPath_).fileName())
                           .arg(names_.size())
                           .arg(classes_);
    detector_->setText(line);
}

void DetectPanel::onLoaded(const QString& error, int classes, bool classifier, bool letterBox, int generation,
                           bool weightsRefused)
{
    if (generation != generation_)
        return;                    // another network or other weights were asked for since
    bool letterboxFlipped = false; // then an image queued before this load ran with the old choice
    if (error.isEmpty() &&
        (std::exchange(letterBoxFromCfg_, false) || std::exchange(cfgLetterBox_, letterBox) != letterBox)) {
        cfgLetterBox_ = letterBox;
        const QSignalBlocker quiet(letterbox_); // (what is on show runs again below)
        letterboxFlipped = letterbox_->isChecked() != letterBox;
        letterbox_->setChecked(letterBox);
    }
    classes_ = error.isEmpty() ? classes : 0;
    classifier_ = classifier && error.isEmpty(); // (with an error it only names what failed)
    bars_->setVisible(classifier && error.isEmpty());
    showControlsFor(classifier); // (a classifier whose weights were refused got a detector's controls)
    detector_->setText(
        error.isEmpty()
            ? (classifier ? tr("Classifier: %1 with %2 (%3 classes)")
                          : tr("Detector: %1 with %2 (%3 classes)"))
                  .arg(QFileInfo(cfgPath_).fileName(),
                       randomWeights_ ? tr("random weights, untrained") : QFileInfo(weightsPath_).fileName())
                  .arg(classes)
            : (classifier ? tr("Cannot load the classifier: %1") : tr("Cannot load the detector: %1"))
                  .arg(error));
    sayIfNamesDoNotFit();
    // Taken first: running the image on show again (below) starts a request, which clears it.
    const Waiting waiting = error.isEmpty() ? std::exchange(waiting_, {}) : Waiting{};
    // What is on show came from the weights before: the image runs again with these (a video frame,
    // gone by now, is cleared), so the boxes on screen and in the exports are never another network's.
    // An image asked for last runs too when it never showed (asked while weights were refused: "Load a
    // detector first" stayed under the loaded detector's name).
    const QString shown = showingStill_ && !stillAsked_.isEmpty() ? stillAsked_ : last_.source;
    if (std::exchange(weightsChanged_, false) && !shown.isEmpty() && waiting.path.isEmpty()) {
        if (error.isEmpty() && showingStill_ && QFileInfo(shown).isFile())
            openImageFile(shown);
        else
            clearResult();
    } else if (letterboxFlipped && waiting.path.isEmpty() && showingStill_ &&
               QFileInfo(stillAsked_).isFile()) {
        openImageFile(stillAsked_); // the box now says otherwise: the image runs again as it says
    }
    if (!waiting.path.isEmpty()) {
        if (waiting.video)
            openVideoFile(waiting.path);
        else
            openImageFile(waiting.path);
    }
    if (weightsRefused && !weightsPath_.isEmpty() && !quietRefusal_) {
        // Wrong weights (another network's, a damaged file) say so where the user looks, without
        // blocking: the panel stays usable to pick other weights. A network with errors is not the
        // weights' fault: the panel's line says it, as Problems does.
        auto* box =
            new QMessageBox(QMessageBox::Warning, tr("Weights not loaded"),
                            tr("%1 cannot be used with %2.")
                                .arg(QFileInfo(weightsPath_).fileName(), QFileInfo(cfgPath_).fileName()),
                            QMessageBox::Ok, this);
        box->setInformativeText(error);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
    quietRefusal_ = false;
    emit detectorLoaded(error);
}

// Whether the detector can run `path` now; else it waits for weights, and the status says so.
bool DetectPanel::readyOrWait(const QString& path, bool video)
{
    waiting_ = {};
    if (!editorAllowsRunOrSaySo())
        return false;
    if (detectorReadyOrSaySo())
        return true;
    if (!cfgPath_.isEmpty()) {
        waiting_ = {path, video};
        status_->setText(status_->text() + " " +
                         tr("%1 runs once they load.").arg(QFileInfo(path).fileName()));
    }
    return false;
}

void DetectPanel::openImageFile(const QString& path)
{
    inputFolder_ = QFileInfo(path).absolutePath();
    if (!readyOrWait(path, false))
        return;
    stopStream(); // the worker runs one thing at a time: a playing stream would hold the image back
    resetFrameRate();
    setShowingStill(true);
    stillAsked_ = path;
    weightsChanged_ = false; // (this request, queued after a load in flight, is what shows next)
    imageRequestedAt_ = QDateTime::currentMSecsSinceEpoch();
    QMetaObject::invokeMethod(worker_, "detectImage", Qt::QueuedConnection, Q_ARG(QString, path),
                              Q_ARG(bool, letterbox_->isChecked()));
}

void DetectPanel::networkEdited()
{
    if (isVisible())
        editedTimer_->start(); // (each edit restarts it: typing a value reloads once)
}

void DetectPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    runStillAgainIfEdited();
}

void DetectPanel::runStillAgainIfEdited()
{
    // (also when a refused reload cleared the result: the edit undone shows the image again)
    if (!showingStill_ || !QFileInfo(stillAsked_).isFile() || (weightsPath_.isEmpty() && !randomWeights_) ||
        editorText() == loadedText_)
        return;
    if (!editorAllowsRunOrSaySo())
        return; // (the editor's problem is said, the old result cleared)
    if (!weightsPath_.isEmpty())
        setWeights(weightsPath_); // onLoaded runs the image on show again (weightsChanged_)
    else
        useRandomWeights();
    quietRefusal_ = true; // the detector line says it; a dialog in the middle of an edit would not
}

void DetectPanel::openFolder(const QString& path)
{
    inputFolder_ = QFileInfo(path).absoluteFilePath();
    folder_.clear();
    for (const QString& name : QDir(path).entryList(namePatterns(imageExtensions()), QDir::Files, QDir::Name))
        folder_ << QDir(path).filePath(name);
    folderIndex_ = -1;
    if (folder_.isEmpty())
        status_->setText(tr("%1 has no images").arg(path));
    else
        showNext(1);
}

void DetectPanel::showNext(int step)
{
    if (folder_.isEmpty())
        return;
    folderIndex_ = (folderIndex_ + step + int(folder_.size())) % int(folder_.size());
    openImageFile(folder_[folderIndex_]);
}

void DetectPanel::openVideoFile(const QString& path)
{
    slideshow_->setChecked(false); // another source: its next tick stopped the video for an image
    inputFolder_ = QFileInfo(path).absolutePath();
    if (!readyOrWait(path, true))
        return;
    stopStream();
    resetFrameRate();
    streamProblem_.clear();
    setShowingStill(false);
    weightsChanged_ = false;
    QMetaObject::invokeMethod(worker_, "playVideo", Qt::QueuedConnection, Q_ARG(QString, path),
                              Q_ARG(bool, letterbox_->isChecked()), Q_ARG(int, worker_->newStream()));
    streamStopped_ = false;
}

void DetectPanel::stopStream()
{
    worker_->requestStop();
}

void DetectPanel::resetFrameRate()
{
    fps_ = 0;
    lastFrameAt_ = 0;
}

void DetectPanel::onFrame(const DetectFrame& frame)
{
    if (frame.generation != generation_) { // run by a network replaced since
        worker_->frameShown();
        if (frame.frame == 0)
            imageRequestedAt_ = 0; // the slideshow goes on
        return;
    }
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (frame.frame == 0)
        imageRequestedAt_ = 0;
    if (lastFrameAt_ > 0 && frame.frame > 0)
        fps_ = 0.8 * fps_ + 0.2 * (1000.0 / std::max<qint64>(1, now - lastFrameAt_));
    lastFrameAt_ = now;
    ++framesReceived_;
    last_ = frame;
    refilter();
    recordFrame();
    worker_->frameShown(); // the stream may send the next (thread-safe: an atomic)
}

// Threshold and NMS change only the filtering of the last frame's candidates: no network run.
void DetectPanel::showFilterValues()
{
    const float threshold = float(threshold_->value()) / 100.0f, nms = float(nms_->value()) / 100.0f;
    // NMS at 0 is Darknet's "no NMS" (every overlapping box kept), not the strongest suppression.
    thresholdValue_->setText(
        tr("%1 / %2").arg(threshold, 0, 'f', 2).arg(nms > 0 ? QString::number(nms, 'f', 2) : tr("off")));
}

bool DetectPanel::filteringDeferred() const
{
    return slowFilterTimer_->isActive();
}

void DetectPanel::showControlsFor(bool classifier)
{
    for (QWidget* w : detectorOnly_)
        w->setVisible(!classifier);
    yoloExport_->setVisible(!classifier);
}

void DetectPanel::refilter()
{
    slowFilterTimer_->stop(); // (this one covers a deferred one)
    showFilterValues();
    const float threshold = float(threshold_->value()) / 100.0f, nms = float(nms_->value()) / 100.0f;
    if (last_.image.isNull())
        return;
    if (classifier_) {
        status_->setToolTip(QString());
        annotated_ = last_.image;
        picture_->setPicture(annotated_, {}, false);
        showTopClasses();
        return;
    }
    QElapsedTimer filtering;
    filtering.start();
    if (lastFilterMs_ >= slowFilterMs_)
        QGuiApplication::setOverrideCursor(Qt::WaitCursor);
    boxes_ = labelDetections(last_.candidates, classes_, names_, last_.image.width(), last_.image.height(),
                             {threshold, nms, letterbox_->isChecked(), last_.nmsRule});
    if (lastFilterMs_ >= slowFilterMs_)
        QGuiApplication::restoreOverrideCursor();
    lastFilterMs_ = filtering.elapsed();
    ++filterings_;
    const QString labels = showImageLabels();
    render();
    resultLine_ =
        tr("%1%2 · %3 · %4 ms%5%6")
            .arg(sourceName())
            .arg(showingStill_ ? QString() : tr(" frame %1").arg(last_.frame)) // (a video's first is 0)
            .arg(objectCount(boxes_.size()))
            .arg(last_.milliseconds, 0, 'f', 1)
            .arg(fps_ > 0 && last_.frame > 0 ? framesPerSecondText() : QString())
            .arg(labels);
    if (!last_.problem.isEmpty()) // ("0 objects" before)
        resultLine_ = tr("%1: %2").arg(sourceName(), last_.problem);
    status_->setText(resultLine_);
    saveProblemShown_ = false;
}

// Labels is for images (a video's frames have no label files): greyed out, saying so, for a stream.
void DetectPanel::setShowingStill(bool still)
{
    showingStill_ = still;
    showLabels_->setEnabled(still); // (its tooltip says "Images only")
}

// With Labels ticked and an image on show: its label file's boxes go to the view (drawn at the next
// render) and " · labels: 3 of 4 found, 1 box on no label" comes back for the status line.
QString DetectPanel::showImageLabels()
{
    picture_->setLabels({});
    status_->setToolTip(QString());
    if (!showLabels_->isChecked() || !showingStill_ || last_.source.isEmpty())
        return QString();
    const std::string labelPath = labelPathFor(last_.source.toStdString());
    std::vector<std::string> warnings;
    bool missing = false;
    LabelLineCounts counts;
    const std::vector<TruthBox> truth = readLabelFile(labelPath, classes_, warnings, missing, &counts);
    const std::size_t skipped = counts.skipped;
    QStringList reasons; // the skipped lines and why, on the status line's tooltip
    for (const std::string& warning : warnings)
        reasons << QString::fromStdString(warning);
    status_->setToolTip(reasons.join('\n'));
    if (missing)
        return tr(" · no label file (%1)").arg(QString::fromStdString(labelPath));
    const float w = float(last_.image.width()), h = float(last_.image.height());
    std::vector<LabeledBox> shown;
    for (const TruthBox& t : truth)
        shown.push_back({t.classId, {}, 1.0f, (t.x - t.w / 2) * w, (t.y - t.h / 2) * h, t.w * w, t.h * h});
    picture_->setLabels(std::move(shown));
    const LabelCheck check =
        checkAgainstLabels(truth, boxes_, last_.image.width(), last_.image.height(), classes_);
    QString text = tr(" · labels: %1 of %2 found").arg(check.found).arg(check.labels);
    if (check.unmatched > 0)
        text += check.unmatched == 1 ? tr(", 1 box on no label")
                                     : tr(", %1 boxes on no label").arg(check.unmatched);
    // Bad lines: how many here; which and why on the status line's tooltip.
    const QString file = QFileInfo(QString::fromStdString(labelPath)).fileName();
    if (skipped == 1)
        text += tr(", 1 bad line skipped in %1").arg(file);
    else if (skipped > 1)
        text += tr(", %1 bad lines skipped in %2").arg(skipped).arg(file);
    return text;
}

// The shown file's name, and where it is in the folder being browsed: "dog.jpg (3 of 120)".
QString DetectPanel::sourceName() const
{
    const QString name = QFileInfo(last_.source).fileName();
    if (!showingStill_ || folderIndex_ < 0 || folderIndex_ >= folder_.size() ||
        folder_[folderIndex_] != last_.source)
        return name;
    return tr("%1 (%2 of %3)").arg(name).arg(folderIndex_ + 1).arg(folder_.size());
}

// " · 9.8 FPS", and the video's own rate beside it: whether the network keeps up with the file.
QString DetectPanel::framesPerSecondText() const
{
    if (last_.videoFps <= 0)
        return tr(" · %1 FPS").arg(fps_, 0, 'f', 1);
    return tr(" · %1 of the video's %2 FPS").arg(fps_, 0, 'f', 1).arg(last_.videoFps, 0, 'g', 4);
}

// A classifier: its five best classes as bars, instead of boxes.
std::vector<int> DetectPanel::topClasses() const
{
    std::vector<int> order(last_.scores.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = int(i);
    const std::size_t top = std::min<std::size_t>(5, order.size());
    std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(top), order.end(), [&](int a, int b) {
        return last_.scores[std::size_t(a)] > last_.scores[std::size_t(b)];
    });
    order.resize(top);
    return order;
}

QString DetectPanel::className(int c) const
{
    return std::size_t(c) < names_.size() ? QString::fromStdString(names_[std::size_t(c)])
                                          : tr("class %1").arg(c);
}

void DetectPanel::showTopClasses()
{
    const std::vector<int> order = topClasses();
    const std::size_t top = order.size();
    bars_->clearPlottables();
    auto* bars = new QCPBars(bars_->yAxis, bars_->xAxis); // (key axis: the classes, down the left)
    bars->setBrush(QColor(70, 130, 200));
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    QStringList lines;
    for (std::size_t i = 0; i < top; ++i) {
        const int c = order[i];
        const QString name = className(c);
        bars->addData(double(i + 1), double(last_.scores[std::size_t(c)]) * 100);
        ticker->addTick(double(i + 1), name);
        lines << QString("%1 %2%").arg(name).arg(double(last_.scores[std::size_t(c)]) * 100, 0, 'f', 1);
    }
    bars_->yAxis->setTicker(ticker);
    bars_->yAxis->setRange(0.4, double(top) + 0.6);
    bars_->replot();
    resultLine_ =
        tr("%1 · top: %2 · %3 ms").arg(sourceName(), lines.join(", ")).arg(last_.milliseconds, 0, 'f', 1);
    if (!last_.problem.isEmpty()) // (bars of NaN drew nothing, and the line said "nan%")
        resultLine_ = tr("%1: %2").arg(sourceName(), last_.problem);
    status_->setText(resultLine_);
    saveProblemShown_ = false;
}

double DetectPanel::largestZoom() const
{
    return picture_->largestZoom();
}

void DetectPanel::setZoom(double zoom)
{
    picture_->setZoom(zoom);
}

// The classes in view, in their box colours, with counts: the most frequent first, at most a dozen (a
// network of 80 classes, untrained, filled the panel with 20 lines of legend and left the picture a
// strip), the rest counted in words and listed in the tooltip.
void DetectPanel::updateLegend()
{
    std::map<int, std::pair<std::string, int>> seen;
    for (const LabeledBox& box : boxes_) {
        auto& entry = seen[box.classId];
        entry.first = box.name;
        ++entry.second;
    }
    std::vector<std::pair<int, std::pair<std::string, int>>> classes(seen.begin(), seen.end());
    std::stable_sort(classes.begin(), classes.end(),
                     [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
    constexpr std::size_t kMostEntries = 12;
    QStringList parts, rest;
    int restBoxes = 0;
    for (const auto& [id, entry] : classes) {
        const QString name = QString::fromStdString(entry.first);
        if (parts.size() >= qsizetype(kMostEntries)) {
            rest << tr("%1 × %2").arg(name).arg(entry.second);
            restBoxes += entry.second;
            continue;
        }
        int r, g, b;
        classColor(id, r, g, b);
        // (Entries break between them, never inside: wrapped, "■ class 4 × 3" stays one piece.)
        parts << QString("<span style=\"color:%1\">■</span>&nbsp;%2&nbsp;×&nbsp;%3")
                     .arg(QColor(r, g, b).name(), name.toHtmlEscaped().replace(' ', "&nbsp;"))
                     .arg(entry.second);
    }
    if (!rest.isEmpty())
        parts << (rest.size() == 1 ? tr("and 1 more class (%1 boxes)").arg(restBoxes)
                                   : tr("and %1 more classes (%2 boxes)").arg(rest.size()).arg(restBoxes))
                     .replace(' ', "&nbsp;");
    legend_->setToolTip(rest.isEmpty() ? QString() : tr("Also in view:\n%1").arg(rest.join('\n')));
    QString text = parts.isEmpty() ? tr("No objects above the threshold.") : parts.join("&nbsp; ");
    if (!picture_->labels().empty())
        text += "&nbsp; " + tr("(dashed: the image's labels)");
    legend_->setText(text);
}

bool DetectPanel::startRecording(const QString& path)
{
    const QFileInfo target(path);
    if (!QFileInfo(target.absolutePath()).isWritable()) {
        status_->setText(tr("%1: cannot write a video there (the folder is not writable)").arg(path));
        return false;
    }
    recordingPath_ = path; // opened at the next frame, with that frame's size
    record_->setChecked(true);
    status_->setText(tr("Recording to %1").arg(path));
    return true;
}

void DetectPanel::recordFrame()
{
    if (recordingPath_.isEmpty() || annotated_.isNull())
        return;
    const QImage rgb = annotated().convertToFormat(QImage::Format_RGB888);
    // At the video's own rate, so the recording lasts as long as the video; a camera's at the rate the
    // network keeps up with (its frames are taken as fast as they are detected); 25 before one is known.
    const double fps = last_.videoFps > 0 ? last_.videoFps : fps_ > 0 ? fps_ : 25.0;
    if (!recorder_.isOpen())
        if (auto problem = recorder_.open(recordingPath_.toStdString(), rgb.width(), rgb.height(), fps)) {
            status_->setText(QString::fromStdString(*problem));
            recordingPath_.clear();
            record_->setChecked(false);
            return;
        }
    recorder_.write(rgb.constBits(), rgb.width(), rgb.height(), std::size_t(rgb.bytesPerLine()));
}

QString DetectPanel::stopRecording()
{
    const int frames = recorder_.frames();
    const bool was = recorder_.isOpen();
    const auto problem = recorder_.close();
    if (was)
        status_->setText(problem ? tr("Recording failed: %1").arg(QString::fromStdString(*problem))
                                 : tr("Recorded %1 frames").arg(frames));
    recordingPath_.clear();
    record_->setChecked(false);
    return problem ? QString::fromStdString(*problem) : QString();
}

void DetectPanel::render()
{
    // Boxes are painted on the view's scaled copy (DetectionView); the full-size picture only when saved
    // or recorded (annotated()), not twice for every video frame.
    annotated_ = last_.image; // (shared, not copied)
    picture_->setPicture(annotated_, boxes_, !classifier_);
    updateLegend();
}

QImage DetectPanel::annotated() const
{
    if (classifier_ || annotated_.isNull())
        return annotated_;
    // At the image's own size, its labels scaled with it (Darknet's).
    QImage painted = annotated_.convertToFormat(QImage::Format_RGB888);
    paintDetections(painted, boxes_, 1.0, std::max(11, painted.height() / 40),
                    std::max(2, painted.height() / 250));
    return painted;
}

// A save's failure stays in the panel's line until the next result or a save that works (the line said
// "Cannot save" beside a file just written).
void DetectPanel::saySaveProblem(const QString& text)
{
    status_->setText(text);
    saveProblemShown_ = true;
}

// A save is proposed under the image's name (dog_detections.png; a video frame's with its number) in
// the folder of the last save, else the image's; a label file where training reads it (dog.txt beside
// the image, or in labels/ for a JPEGImages/ set). (The dialogs opened on the cfg's folder, unnamed.)
QString DetectPanel::proposedSavePath(const QString& ending) const
{
    const QFileInfo source(last_.source);
    QString base = source.completeBaseName().isEmpty() ? QString("detections") : source.completeBaseName();
    if (!showingStill_)
        base += QString("_frame%1").arg(last_.frame);
    const bool labels = ending == ".txt";
    if (labels && showingStill_ && source.isFile()) // where the loader and AlexeyAB's Darknet read it
        return QString::fromStdString(labelPathFor(last_.source.toStdString()));
    const QString lastFolder = QSettings().value("detect/saveFolder").toString();
    const QString folder = !labels && QFileInfo(lastFolder).isDir() ? lastFolder
                           : source.isFile()                        ? source.absolutePath()
                                                                    : QDir::homePath();
    return QDir(folder).filePath(base + ending);
}

void DetectPanel::sayWritten(const QString& path, const QString& text)
{
    QSettings().setValue("detect/saveFolder", QFileInfo(path).absolutePath());
    if (std::exchange(saveProblemShown_, false))
        status_->setText(resultLine_);
    emit saved(text);
}

bool DetectPanel::saveImage(const QString& path)
{
    const QString target = QFileInfo(path).suffix().isEmpty() ? path + ".png" : path;
    const QString problem = saveWholeImage(annotated(), target);
    if (!problem.isEmpty())
        saySaveProblem(tr("Cannot save the image: %1").arg(problem));
    else
        sayWritten(target, tr("Saved the annotated image as %1").arg(QFileInfo(target).absoluteFilePath()));
    return problem.isEmpty();
}

bool DetectPanel::exportJson(const QString& path)
{
    if (classifier_) { // the top classes, as `netwright-cli classify --json` writes them
        QJsonArray top;
        for (const int c : topClasses())
            top.append(QJsonObject{
                {"class", c}, {"name", className(c)}, {"score", double(last_.scores[std::size_t(c)])}});
        const QJsonObject root{{"file", last_.source}, {"frame", last_.frame}, {"top", top}};
        const QString problem = writeWholeFile(path, QJsonDocument(QJsonArray{root}).toJson());
        if (!problem.isEmpty())
            saySaveProblem(tr("Cannot export the classes: %1").arg(problem));
        else
            sayWritten(path, tr("Exported the top %1 classes to %2")
                                 .arg(top.size())
                                 .arg(QFileInfo(path).absoluteFilePath()));
        return problem.isEmpty();
    }
    QJsonArray detections;
    for (const LabeledBox& b : boxes_)
        detections.append(QJsonObject{{"class", b.classId},
                                      {"name", QString::fromStdString(b.name)},
                                      {"confidence", double(b.confidence)},
                                      {"box", QJsonArray{b.left, b.top, b.width, b.height}}});
    const QJsonObject root{{"file", last_.source}, {"frame", last_.frame}, {"detections", detections}};
    const QString problem = writeWholeFile(path, QJsonDocument(QJsonArray{root}).toJson());
    if (!problem.isEmpty())
        saySaveProblem(tr("Cannot export the detections: %1").arg(problem));
    else
        sayWritten(
            path,
            tr("Exported %1 to %2").arg(objectCount(boxes_.size()), QFileInfo(path).absoluteFilePath()));
    return problem.isEmpty();
}

// The boxes as a YOLO label file (yolo_labels.h): ready to correct and train on.
bool DetectPanel::exportYoloLabels(const QString& path)
{
    const std::string text = yoloLabelText(boxes_, last_.image.width(), last_.image.height());
    const QString problem = writeWholeFile(path, QByteArray::fromStdString(text));
    if (!problem.isEmpty())
        saySaveProblem(tr("Cannot export the labels: %1").arg(problem));
    else
        sayWritten(path, tr("Exported %1 as YOLO labels to %2")
                             .arg(objectCount(std::size_t(std::count(text.begin(), text.end(), '\n'))),
                                  QFileInfo(path).absoluteFilePath())); // (a line per object)
    return problem.isEmpty();
}

} // namespace nw::ui
