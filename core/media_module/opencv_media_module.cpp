// libnetwright_media.so: OpenCV's imgcodecs and videoio behind image/media_codecs.h, loaded on first use.
// The only code that links those two modules (and, through them, GDAL, FFmpeg and GStreamer).
#include "image/media_codecs.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>
#include <opencv2/videoio/registry.hpp>

namespace nw::media {
namespace {

class OpenCvVideoReader final : public VideoReader {
public:
    explicit OpenCvVideoReader(std::unique_ptr<cv::VideoCapture> capture) : capture_(std::move(capture)) {}
    bool read(cv::Mat& frame) override { return capture_->read(frame); }
    bool grab() override { return capture_->grab(); }
    bool retrieve(cv::Mat& frame) override { return capture_->retrieve(frame); }
    double frameCount() const override { return capture_->get(cv::CAP_PROP_FRAME_COUNT); }
    double fps() const override { return capture_->get(cv::CAP_PROP_FPS); }

private:
    std::unique_ptr<cv::VideoCapture> capture_;
};

class OpenCvVideoWriter final : public VideoWriter {
public:
    explicit OpenCvVideoWriter(std::unique_ptr<cv::VideoWriter> writer) : writer_(std::move(writer)) {}
    void write(const cv::Mat& bgr) override { writer_->write(bgr); }
    void release() override { writer_->release(); }

private:
    std::unique_ptr<cv::VideoWriter> writer_;
};

std::unique_ptr<VideoReader> opened(std::unique_ptr<cv::VideoCapture> capture)
{
    if (!capture->isOpened())
        return nullptr;
    return std::make_unique<OpenCvVideoReader>(std::move(capture));
}

class OpenCvCodecs final : public Codecs {
public:
    cv::Mat readImage(const std::string& path, int imreadFlags) const override
    {
        return cv::imread(path, imreadFlags);
    }
    bool canWriteImage(const std::string& path) const override { return cv::haveImageWriter(path); }
    bool encodeImage(const std::string& suffix, const cv::Mat& image, const std::vector<int>& params,
                     std::vector<unsigned char>& bytes) const override
    {
        return cv::imencode(suffix, image, bytes, params);
    }
    bool hasFfmpeg() const override { return cv::videoio_registry::hasBackend(cv::CAP_FFMPEG); }
    std::unique_ptr<VideoReader> openVideo(const std::string& path, bool ffmpegOnly) const override
    {
        auto capture = std::make_unique<cv::VideoCapture>();
        capture->open(path, ffmpegOnly ? cv::CAP_FFMPEG : cv::CAP_ANY);
        return opened(std::move(capture));
    }
    std::unique_ptr<VideoReader> openCamera(int device) const override
    {
        return opened(std::make_unique<cv::VideoCapture>(device));
    }
    std::unique_ptr<VideoWriter> openMotionJpeg(const std::string& path, double fps, int width,
                                                int height) const override
    {
        auto writer = std::make_unique<cv::VideoWriter>();
        if (!writer->open(path, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), fps, cv::Size(width, height)))
            return nullptr;
        return std::make_unique<OpenCvVideoWriter>(std::move(writer));
    }
};

} // namespace
} // namespace nw::media

extern "C" const nw::media::Codecs* netwright_media_codecs_v1()
{
    static const nw::media::OpenCvCodecs codecs;
    return &codecs;
}
