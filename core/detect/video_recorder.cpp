#include "detect/video_recorder.h"

#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

namespace nw {

VideoRecorder::VideoRecorder() = default;
VideoRecorder::~VideoRecorder()
{
    close();
}

std::optional<std::string> VideoRecorder::open(const std::string& path, int width, int height, double fps)
{
    close();
    writer_ = std::make_unique<cv::VideoWriter>();
    if (!writer_->open(path, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), fps > 0 ? fps : 25,
                       cv::Size(width, height))) {
        writer_.reset();
        return path + ": cannot write a video there (an .avi file in a writable folder is needed)";
    }
    width_ = width;
    height_ = height;
    frames_ = 0;
    return std::nullopt;
}

void VideoRecorder::write(const unsigned char* rgb, int width, int height, std::size_t stride)
{
    if (!isOpen())
        return;
    const cv::Mat frame(height, width, CV_8UC3, const_cast<unsigned char*>(rgb), stride);
    cv::Mat bgr;
    cv::cvtColor(frame, bgr, cv::COLOR_RGB2BGR);
    if (width != width_ || height != height_)
        cv::resize(bgr, bgr, cv::Size(width_, height_));
    writer_->write(bgr);
    ++frames_;
}

void VideoRecorder::close()
{
    if (writer_)
        writer_->release();
    writer_.reset();
}

bool VideoRecorder::isOpen() const
{
    return writer_ && writer_->isOpened();
}

} // namespace nw
