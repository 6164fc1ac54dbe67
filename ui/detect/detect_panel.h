#pragma once
// The Detect panel: a detector (the open network's cfg with weights, and class names), sources (an
// image, a folder with next/previous and a slideshow, a video file, a camera), boxes drawn in per-class
// colours with labels, threshold and NMS sliders that re-filter at once without running the network again,
// FPS and latency, a legend of the classes in view, zoom (fit, buttons, Ctrl+wheel) and pan (drag), recording
// the annotated stream to a video, and exports (annotated image, JSON, YOLO label files).
#include "detect/detect_worker.h"
#include "detect/detection_view.h"
#include "detect/detector.h"
#include "detect/video_recorder.h"

#include <QSize>
#include <QStringList>
#include <QWidget>
#include <functional>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QThread;
class QTimer;
class QCustomPlot;

namespace nw {
struct NetworkSpec;
}

namespace nw::ui {

class DetectPanel : public QWidget {
    Q_OBJECT
public:
    explicit DetectPanel(QWidget* parent = nullptr);
    ~DetectPanel() override;

    // The network the editor opened (cfgPath empty: a new one, not saved yet) and its description, which
    // tells a classifier (no box controls) before any weights load.
    void setNetwork(const QString& cfgPath, const NetworkSpec& spec);

    // Where the detector reads the network: the editor's text (unsaved edits included), not the file.
    void setCfgTextSource(std::function<QString()> source) { cfgText_ = std::move(source); }
    // Asked before anything runs: a reason the editor's network cannot run now (Source holding text
    // that is no cfg), said in the status instead; empty when it can.
    void setEditorCheck(std::function<QString()> check) { editorCheck_ = std::move(check); }
    void setWeights(const QString& path); // (re)loads the detector in the worker
    QString weightsPath() const { return weightsPath_; }
    QString namesPath() const { return namesPath_; }
    // Loads the network untrained, on the user's explicit request (no weights file).
    void useRandomWeights();
    void setNames(const QString& path);
    // What the Training panel knows: its .data file's names= and a run's weights. Taken only where the
    // user has chosen nothing (names, weights), so a choice made here is never replaced.
    void suggest(const QString& weights, const QString& dataFile);
    void openImageFile(const QString& path);
    // The editor's network changed: an image on show runs again with it (once the panel is in view,
    // and a moment after the last edit), so its boxes are never the network's before the edit.
    void networkEdited();
    void openFolder(const QString& path);
    void openVideoFile(const QString& path);
    void showNext(int step);
    QPushButton* slideshowButton() const { return slideshow_; }
    QPushButton* imageButton() const { return image_; } // "Image…": choose an image and detect on it

    // For tests.
    QSlider* thresholdSlider() const { return threshold_; }
    QSlider* nmsSlider() const { return nms_; }
    QCheckBox* labelsBox() const { return showLabels_; }
    const std::vector<LabeledBox>& labelsShown() const { return picture_->labels(); }
    const std::vector<LabeledBox>& boxes() const { return boxes_; }
    int framesReceived() const { return framesReceived_; }
    int filterings() const { return filterings_; } // threshold and NMS applied to a result
    bool filteringDeferred() const;                // a slider step waits behind a slow filtering
    // For tests: how long a filtering must take for the next slider step to wait (0: every one waits).
    void setSlowFilterMs(qint64 ms) { slowFilterMs_ = ms; }
    QLabel* status() const { return status_; }
    // The result at the image's own size, boxes and labels painted (what Save and recording write).
    QImage annotated() const;
    QCustomPlot* topClassesPlot() const { return bars_; }
    bool isReady() const { return classes_ > 0; }
    // The annotated image; a path without a suffix gets .png. False with the reason in the status line.
    bool saveImage(const QString& path);
    bool exportJson(const QString& path);
    bool exportYoloLabels(const QString& path);
    // What the save dialogs propose for `ending` ("_detections.png", ".txt").
    QString proposedSavePath(const QString& ending) const;
    QString inputFolder() const { return inputFolder_; } // where the input dialogs open
    QLabel* legend() const { return legend_; }
    QComboBox* deviceBox() const { return device_; }
    QComboBox* precisionBox() const { return precision_; }
    QLabel* view() const { return picture_->label(); }
    // 0 fits the image to the view; otherwise the scale (1 = one image pixel per screen pixel).
    void setZoom(double zoom);
    double largestZoom() const; // for the image shown
    double zoom() const { return picture_->zoom(); }
    // Annotated frames from now on go to `path` (.avi, Motion-JPEG); false with a message on error.
    bool startRecording(const QString& path);
    // Finishes the recording; what went wrong with its file (also in the status line), or empty.
    QString stopRecording();
    int recordedFrames() const { return recorder_.frames(); }

signals:
    void detectorLoaded(const QString& error);
    void streamFinished(int frames);
    // A file written at the user's request (the main window's status bar says it): "Saved …".
    void saved(const QString& message);

protected:
    void showEvent(QShowEvent* event) override;

private:
    // An image on show whose boxes came from the network before the editor's last edits runs again
    // (its weights refused by the edited network: said on the detector line, the stale boxes cleared).
    void runStillAgainIfEdited();
    // True when a detector is loaded (loading it again first when the editor's network changed since);
    // otherwise says in the status line what is missing.
    bool detectorReadyOrSaySo();
    bool editorAllowsRunOrSaySo();
    bool readyOrWait(const QString& path, bool video);
    QString editorText() const; // the network as the editor shows it; empty without a source
    void onLoaded(const QString& error, int classes, bool classifier, bool letterBox, int generation,
                  bool weightsRefused);
    void showTopClasses();
    std::vector<int> topClasses() const; // a classifier's five best classes, best first
    QString className(int c) const;
    void saySaveProblem(const QString& text);
    void sayWritten(const QString& path, const QString& text); // emits saved(), keeps the folder
    void onFrame(const nw::ui::DetectFrame& frame);
    // Appends to the detector line when the names file's length is not the network's class count.
    void sayIfNamesDoNotFit();
    void resetFrameRate();
    void refilter();
    void showFilterValues(); // "0.25 / 0.45" beside the sliders
    QString showImageLabels();
    QString framesPerSecondText() const;
    QString sourceName() const;
    void render();
    void stopStream();
    void clearResult(); // no image, boxes or legend in view (another network, an image that failed)
    void updateLegend();
    void recordFrame();

    QString cfgPath_, weightsPath_;
    std::vector<std::string> names_;
    int classes_ = 0;
    bool classifier_ = false;
    // Letterbox follows the cfg's letter_box when a network opens and when the cfg's value changes;
    // in between, the box is the user's.
    bool cfgLetterBox_ = false;
    bool letterBoxFromCfg_ = true;
    QStringList folder_;
    int folderIndex_ = -1;
    DetectFrame last_;
    std::vector<LabeledBox> boxes_;
    QImage annotated_; // the image of the result on show; boxes are painted on a copy when needed
    int framesReceived_ = 0;
    double fps_ = 0;
    qint64 lastFrameAt_ = 0;
    // Bumped with each network or weights asked for: a load or frame of an older one is dropped.
    int generation_ = 0;
    QString streamProblem_; // what went wrong in the stream playing now, kept for its end line
    QString namesPath_;
    qint64 imageRequestedAt_ = 0; // when the image on its way was asked for; 0 when none is

    QLabel* detector_ = nullptr;
    QSlider* threshold_ = nullptr;
    QSlider* nms_ = nullptr;
    QCheckBox* letterbox_ = nullptr;
    QCheckBox* showLabels_ = nullptr; // the image's label file drawn and counted
    void setShowingStill(bool still); // an image (or none) is on show, not a stream: Labels applies
    QComboBox* device_ = nullptr;     // CPU, then each GPU (data: -1, or the CUDA index)
    QComboBox* precision_ = nullptr;  // FP32, TF32 or FP16 convolutions (DetectWorker::Precision): a GPU only
    QLabel* thresholdValue_ = nullptr;
    // Threshold, NMS, Letterbox and Labels: hidden for a classifier, which has no boxes (and is center-
    // cropped, not letterboxed).
    std::vector<QWidget*> detectorOnly_;
    void showControlsFor(bool classifier);
    DetectionView* picture_ = nullptr;
    QLabel* status_ = nullptr;
    QCustomPlot* bars_ = nullptr; // a classifier's top-5
    QLabel* legend_ = nullptr;
    QPushButton* record_ = nullptr;
    QPushButton* yoloExport_ = nullptr; // (a detector's only: a classifier has no boxes to label)
    QPushButton* slideshow_ = nullptr;
    QPushButton* image_ = nullptr;
    QTimer* slideTimer_ = nullptr;      // advances the folder while the slideshow runs
    QTimer* slowFilterTimer_ = nullptr; // a slider step's filtering, deferred when the last one was slow
    qint64 lastFilterMs_ = 0;
    int filterings_ = 0;
    QString resultLine_;            // the last result's line: source, objects, time
    bool saveProblemShown_ = false; // the line says a save failed
    qint64 slowFilterMs_ = 100;     // a filtering this long defers the next slider step
    VideoRecorder recorder_;
    QString recordingPath_;      // recording: frames go to this file (opened at the first frame)
    bool streamStopped_ = false; // Stop was pressed on the stream playing
    QThread* thread_ = nullptr;
    DetectWorker* worker_ = nullptr;
    std::function<QString()> cfgText_;
    std::function<QString()> editorCheck_;
    bool showingStill_ = false;     // the last source asked for is an image (Letterbox runs it again)
    QString stillAsked_;            // that image
    QString loadedText_;            // the editor's text the detector was last loaded with
    bool randomWeights_ = false;    // loaded without weights, on request
    bool weightsChanged_ = false;   // other weights asked for: what is on show must not stay
    bool quietRefusal_ = false;     // a reload after an edit: weights the edit no longer fits open no dialog
    QTimer* editedTimer_ = nullptr; // networkEdited's moment after the last edit
    QString suggestedNames_, suggestedWeights_; // taken from Training (replaced by its next suggestion)
    // Where the Image, Folder and Video dialogs open: the last input's folder, else the data set's
    // validation images (they opened on the working folder, far from any image).
    QString inputFolder_;
    // An image or video asked for before there were weights (`--detect` while a run trains): it runs
    // once weights load, rather than being forgotten.
    struct Waiting {
        QString path;
        bool video = false;
    } waiting_;
};

} // namespace nw::ui
