#pragma once
// Runs detection on a worker QThread: images, video files and cameras. Each frame's decoded candidates
// travel with the frame, so the panel can move the threshold and NMS sliders without running the
// network again. A video plays at its own frame rate, or slower when the network cannot keep up (every
// frame is detected); a camera always serves its newest frame (older ones are dropped, never queued).
#include "detect/detection.h"
#include "runtime/net.h"
#if NETWRIGHT_WITH_CUDA
#include "runtime/gpu_net.h"
#endif

#include "image/image.h"
#include <QImage>
#include <QMetaType>

#include <QObject>
#include <QStringList>
#include <atomic>
#include <memory>
#include <vector>

namespace nw::ui {

struct DetectFrame {
    QImage image; // RGB888, original size
    std::vector<Detection> candidates;
    std::vector<float> scores; // a classifier's output (one score per class); empty for detectors
    // Why the output means nothing (NaN or infinite: weights that diverged), said instead of results.
    QString problem;
    QString source;
    int frame = 0;       // frame number for videos, 0 for images
    double videoFps = 0; // the rate the video file declares (0: images, cameras, a file without one)
    double milliseconds = 0;
    int generation = 0; // the load() that made the network it ran on
    NmsRule nmsRule;    // the network's [yolo] nms_kind
};

class DetectWorker : public QObject {
    Q_OBJECT
public:
    enum Precision : int { fp32 = 0, tf32 = 1, fp16 = 2 }; // of the GPU's convolutions
    explicit DetectWorker(QObject* parent = nullptr);
    ~DetectWorker() override;
    // Thread-safe, called from the GUI thread. Every stream (video, camera) gets a number from
    // newStream() before it is queued; requestStop() stops every stream numbered so far, so a Stop
    // pressed before the worker picks a stream up is not lost, and the next stream is not stopped.
    int newStream() { return ++lastStream_; }
    void requestStop() { stoppedUpTo_ = lastStream_.load(); }
    bool stopped(int stream) const { return stoppedUpTo_ >= stream; }
    // The panel has drawn a frame. A stream waits while two are undrawn (up to half a second), so frames
    // never pile up in the GUI's event queue faster than it draws them (a small network on a GPU outruns
    // the painting).
    void frameShown() { --framesInFlight_; }

public slots:
    // `cfgText`: the network as the editor shows it (unsaved edits included); empty: read `cfg`.
    // `generation` comes back with loaded() and every frame of this network, so a caller that has asked
    // for another network since can drop what was already on its way.
    void load(const QString& cfg, const QString& weights, const QString& cfgText = QString(),
              int generation = 0);
    // Drops the network (another cfg was opened; nothing runs until it is loaded).
    void unload();
    // The device the next load() runs on: -1 the CPU, N the GPU cuda:N.
    void setDevice(int device) { device_ = device; }
    // How the GPU's convolutions compute for the next load() (a Precision; ignored on the CPU).
    void setPrecision(int precision) { precision_ = precision; }
    void detectImage(const QString& path, bool letterbox);
    void playVideo(const QString& path, bool letterbox, int stream);
    void openCamera(int device, bool letterbox, int stream);

signals:
    // Empty error: ready; `classes` is the number of classes of the detection heads (or of the
    // classifier's output when `classifier`); `letterBox`: the cfg's letter_box=1; `weightsRefused`: the
    // error is the weights file's (the network itself built).
    void loaded(const QString& error, int classes, bool classifier, bool letterBox, int generation,
                bool weightsRefused);
    void frameReady(const nw::ui::DetectFrame& frame);
    // About the input (an unreadable image, a video that cannot be opened): shown whatever network runs.
    void problem(const QString& message);
    // About the network of `generation` (a load warning, a failed detection): a caller that has asked for
    // another network since drops it.
    void networkProblem(const QString& message, int generation);
    void streamEnded(const QString& source, int frames);

private:
    void loadUnguarded(const QString& cfg, const QString& weights, const QString& cfgText);
    // `input`: the network's image when it was decoded as the CLI decodes it (an image file); else made
    // from `image` (a video's frame).
    bool run(const QImage& image, const QString& source, int frame, bool letterbox, double videoFps = 0,
             const Image* input = nullptr);
    bool runUnguarded(const QImage& image, const QString& source, int frame, bool letterbox, double videoFps,
                      const Image* input);
    void playVideoUnguarded(const QString& path, bool letterbox, int stream);
    void openCameraUnguarded(int device, bool letterbox, int stream);

    std::unique_ptr<Net> net_;
#if NETWRIGHT_WITH_CUDA
    std::unique_ptr<GpuNet> gpu_; // the net's GPU copy when device_ >= 0 (declared after net_: goes first)
#endif
    int device_ = -1;
    int precision_ = fp32;
    bool classifier_ = false;
    int generation_ = 0;
    void waitForDisplay(int stream) const;
    std::atomic<int> lastStream_{0}, stoppedUpTo_{0};
    std::atomic<int> framesInFlight_{0};
};

} // namespace nw::ui

Q_DECLARE_METATYPE(nw::ui::DetectFrame)
