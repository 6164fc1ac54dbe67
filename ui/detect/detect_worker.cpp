#include "detect/detect_worker.h"

#include "cfg/document.h"
#include "detect/class_scores.h"
#include "detect/decode.h"
#include "detect/detector.h"
#include "detect/video_ending.h"
#include "image/image_opencv.h"
#include "util/file_check.h"
#include "util/float_file.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QImageReader>
#include <QThread>
#include <algorithm>
#include <opencv2/imgproc.hpp>

namespace nw::ui {

namespace {

QImage toQImage(const cv::Mat& bgr)
{
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, bgr.channels() == 1 ? cv::COLOR_GRAY2RGB : cv::COLOR_BGR2RGB);
    return QImage(rgb.data, rgb.cols, rgb.rows, int(rgb.step), QImage::Format_RGB888).copy();
}

Image fromQImage(const QImage& source, int channels)
{
    const QImage rgb = source.convertToFormat(QImage::Format_RGB888);
    Image image{rgb.width(), rgb.height(), channels, {}};
    image.data.resize(std::size_t(rgb.width()) * std::size_t(rgb.height()) * std::size_t(channels));
    for (int y = 0; y < rgb.height(); ++y) {
        const uchar* row = rgb.constScanLine(y);
        for (int x = 0; x < rgb.width(); ++x) {
            if (channels == 1) {
                image.at(x, y, 0) =
                    (0.299f * row[3 * x] + 0.587f * row[3 * x + 1] + 0.114f * row[3 * x + 2]) / 255.0f;
                continue;
            }
            for (int c = 0; c < 3; ++c)
                image.at(x, y, c) = float(row[3 * x + c]) / 255.0f;
        }
    }
    return image;
}

} // namespace

DetectWorker::DetectWorker(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<nw::ui::DetectFrame>();
}

DetectWorker::~DetectWorker() = default;

// Each slot catches what libraries throw (out of memory, OpenCV): an exception escaping a Qt slot
// would end the program, and with it the user's unsaved edits.
void DetectWorker::load(const QString& cfg, const QString& weights, const QString& cfgText, int generation)
{
    generation_ = generation;
    try {
        loadUnguarded(cfg, weights, cfgText);
    } catch (const std::bad_alloc&) {
        unload();
        emit loaded(tr("Out of memory while building the network: lower width/height in [net]"), 0, false,
                    false, generation_, false);
    } catch (const std::exception& e) {
        unload();
        emit loaded(tr("Cannot load the network: %1").arg(QString::fromUtf8(e.what())), 0, false, false,
                    generation_, false);
    }
}

void DetectWorker::unload()
{
#if NETWRIGHT_WITH_CUDA
    gpu_.reset();
#endif
    net_.reset();
}

void DetectWorker::loadUnguarded(const QString& cfg, const QString& weights, const QString& cfgText)
{
    unload();
    const NetworkSpec spec =
        buildNetworkSpec(cfgText.isEmpty() ? cfg::Document::load(cfg.toStdString())
                                           : cfg::Document::parse(cfgText.toStdString(), cfg.toStdString()));
    for (const Diagnostic& d : spec.diagnostics)
        if (d.isError()) {
            emit loaded(QString::fromStdString(d.format()), 0, false, false, generation_, false);
            return;
        }
    std::string error;
    auto net = Net::create(spec, 1, error, Net::Use::InferenceOnly);
    if (!net) {
        emit loaded(QString::fromStdString(error), 0, false, false, generation_, false);
        return;
    }
    std::vector<std::string> warnings;
    if (!weights.isEmpty())
        if (auto problem = net->loadWeights(weights.toStdString(), &warnings)) {
            // (classifier or detector: the panel names what could not be loaded)
            emit loaded(QString::fromStdString(*problem), 0, detectionClasses(spec) == 0, false, generation_,
                        true);
            return;
        }
#if NETWRIGHT_WITH_CUDA
    if (device_ >= 0) { // the GPU when it can; the CPU, with the reason, when it cannot
        gpu_ = GpuNet::create(*net, device_, error);
        if (!gpu_)
            warnings.push_back(error + " — detecting on the CPU");
        else {
            gpu_->setHalfPrecision(precision_ == fp16);
            gpu_->setTensorFloat32(precision_ == tf32);
        }
    }
#endif
    // No detection head: a classifier, shown as its top classes.
    classifier_ = detectionClasses(spec) == 0;
    const int classes = classifier_ ? int(net->output().itemSize()) : detectionClasses(spec);
    net_ = std::move(net);
    emit loaded(QString(), classes, classifier_, spec.net.letterBox, generation_, false);
    for (const std::string& warning : warnings)
        emit networkProblem(QString::fromStdString(warning), generation_);
}

bool DetectWorker::run(const QImage& image, const QString& source, int frame, bool letterbox, double videoFps,
                       const Image* input)
{
    if (!net_) {
        // (a classifier too; and weights refused leave none: the detector line says why)
        emit problem(tr("No network is loaded: choose weights that fit it (Weights…), or Random weights."));
        return false;
    }
    try {
        return runUnguarded(image, source, frame, letterbox, videoFps, input);
    } catch (const std::exception& e) {
        emit networkProblem(tr("%1: detection failed: %2").arg(source, QString::fromUtf8(e.what())),
                            generation_);
        return false;
    }
}

bool DetectWorker::runUnguarded(const QImage& image, const QString& source, int frame, bool letterbox,
                                double videoFps, const Image* decoded)
{
    QElapsedTimer timer;
    timer.start();
    DetectFrame result;
    const Image input = decoded ? *decoded : fromQImage(image, net_->inputShape().c);
    // The CPU's forward, or the GPU copy's with the outputs brought back into the net's tensors.
    const auto forward = [this](const float* values) {
#if NETWRIGHT_WITH_CUDA
        if (gpu_) {
            gpu_->forwardToHost(values);
            return;
        }
#endif
        net_->forward(values);
    };
    if (classifier_) {
        const Shape shape = net_->inputShape();
        forward(centerCropResize(input, shape.w, shape.h).data.data());
        result.scores = classScores(*net_, 0);
        if (countNonFinite(result.scores) > 0)
            result.problem =
                tr("the network's scores are not numbers (NaN or infinite): %1")
                    .arg(QString::fromUtf8(kNotNumbersCause.data(), qsizetype(kNotNumbersCause.size())));
    } else {
        Detector detector(*net_, {});
        detector.setForward(forward);
        result.candidates = detector.candidates(input, letterbox);
        if (auto problem = detector.outputProblem())
            result.problem = QString::fromStdString(*problem);
    }
    result.milliseconds = double(timer.nsecsElapsed()) / 1e6;
    result.image = image;
    result.source = source;
    result.frame = frame;
    result.videoFps = videoFps;
    result.generation = generation_;
    result.nmsRule = nmsRuleOf(net_->spec());
    ++framesInFlight_;
    emit frameReady(result);
    return true;
}

void DetectWorker::waitForDisplay(int stream) const
{
    // Bounded: a receiver that never acknowledges slows the stream to two frames a second, never stops it.
    for (int waited = 0; framesInFlight_ >= 2 && !stopped(stream) && waited < 500; waited += 2)
        QThread::msleep(2);
}

void DetectWorker::detectImage(const QString& path, bool letterbox)
{
    // Decoded as `detect`, `train` and `map` decode it (readPixels: EXIF orientation, 16-bit and CMYK
    // files, the size limit and a JPEG cut short as there), so the panel finds what the CLI finds; Qt's
    // reader turned other files, read GIFs the CLI refuses, and rounded 16-bit values otherwise.
    std::string error;
    const auto rgb = readPixels(path.toStdString(), 3, error);
    if (!rgb) {
        // A GIF, which the CLI cannot read (OpenCV 4.6 has no GIF decoder), is shown through Qt's.
        if (QImageReader gif(path, "gif"); QImageReader::imageFormat(path) == "gif")
            if (const QImage first = gif.read(); !first.isNull()) {
                run(first, path, 0, letterbox);
                return;
            }
        emit problem(QString::fromStdString(error));
        return;
    }
    const QImage image =
        QImage(rgb->data.data(), rgb->width, rgb->height, qsizetype(rgb->rowBytes()), QImage::Format_RGB888)
            .copy();
    if (image.isNull()) { // (no memory for the copy)
        emit problem(tr("%1: cannot show the image: not enough memory").arg(path));
        return;
    }
    std::optional<Image> input;
    if (net_ && net_->inputShape().c == 1) { // (the grey the CLI reads: the decoder's, not a luma of RGB)
        if (const auto grey = readPixels(path.toStdString(), 1, error))
            input = imageFromPixels(*grey);
    } else {
        input = imageFromPixels(*rgb);
    }
    run(image, path, 0, letterbox, 0, input ? &*input : nullptr);
}

void DetectWorker::playVideo(const QString& path, bool letterbox, int stream)
{
    try {
        playVideoUnguarded(path, letterbox, stream);
    } catch (const std::exception& e) {
        emit problem(tr("%1: %2").arg(path, QString::fromUtf8(e.what())));
        emit streamEnded(path, 0);
    }
}

void DetectWorker::playVideoUnguarded(const QString& path, bool letterbox, int stream)
{
    std::string error;
    const auto capture = openVideoFile(path.toStdString(), error);
    if (!capture) {
        emit problem(QString::fromStdString(error));
        emit streamEnded(path, 0);
        return;
    }
    // Each frame is shown no sooner than 1 / fps after the one before: a small network (or a GPU) would
    // play a clip in a blink. Late (a slow network, a stall), the next is timed from now, never rushed
    // to catch up. A rate the file does not declare, or a nonsense one, plays as fast as detected;
    // time-lapse rates down to one frame in 20 s are kept.
    const double declared = capture->fps();
    const double fps = declared >= 0.05 && declared <= 1000 ? declared : 0;
    QElapsedTimer clock;
    double due = 0; // when this frame may be shown, in ms on `clock`
    cv::Mat frame;
    int index = 0;
    bool failed = false; // (a detection that failed said so itself)
    while (!stopped(stream) && capture->read(frame) && !frame.empty()) {
        if (index == 0)
            clock.start();
        else if (fps > 0) {
            due += 1000.0 / fps;
            while (double(clock.elapsed()) < due && !stopped(stream))
                QThread::msleep(ulong(std::clamp(due - double(clock.elapsed()), 1.0, 10.0)));
            due = std::max(due, double(clock.elapsed()));
        }
        if ((failed = !run(toQImage(frame), path, index++, letterbox, fps)))
            break;
        waitForDisplay(stream);
    }
    if (index == 0 && !stopped(stream))
        emit problem(tr("%1: the video has no readable frames").arg(path));
    else if (auto early = videoEndedEarly(path.toStdString(), index, capture->frameCount());
             early && !stopped(stream) && !failed)
        emit problem(QString::fromStdString(*early));
    emit streamEnded(path, index);
}

void DetectWorker::openCamera(int device, bool letterbox, int stream)
{
    try {
        openCameraUnguarded(device, letterbox, stream);
    } catch (const std::exception& e) {
        emit problem(tr("/dev/video%1: %2").arg(device).arg(QString::fromUtf8(e.what())));
        emit streamEnded(QString("/dev/video%1").arg(device), 0);
    }
}

void DetectWorker::openCameraUnguarded(int device, bool letterbox, int stream)
{
    const auto capture = media::codecsOrThrow().openCamera(device);
    if (!capture) {
        emit problem(
            tr("No camera at /dev/video%1 (is one connected, and may this user open it?)").arg(device));
        emit streamEnded(QString("/dev/video%1").arg(device), 0);
        return;
    }
    cv::Mat frame;
    int index = 0;
    while (!stopped(stream)) {
        waitForDisplay(stream);
        if (stopped(stream))
            break;
        capture->grab(); // drop what queued up while the network was busy
        if (!capture->retrieve(frame) || frame.empty()) {
            emit problem(tr("The camera /dev/video%1 stopped delivering frames (unplugged?)").arg(device));
            break;
        }
        if (!run(toQImage(frame), QString("/dev/video%1").arg(device), index++, letterbox))
            break;
    }
    emit streamEnded(QString("/dev/video%1").arg(device), index);
}

} // namespace nw::ui
