#include "detect/video_recorder.h"

#include "image/image_opencv.h"

#include <filesystem>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

namespace nw {

std::optional<std::string> writtenVideoProblem(const std::string& path, int written)
{
    if (written <= 0)
        return std::nullopt;
    cv::VideoCapture reader;
    std::string unreadable;
    const int held = openVideoFile(path, reader, unreadable) ? int(reader.get(cv::CAP_PROP_FRAME_COUNT)) : 0;
    if (held >= written)
        return std::nullopt;
    std::error_code ec;
    const auto room = std::filesystem::space(std::filesystem::path(path).parent_path().empty()
                                                 ? std::filesystem::path(".")
                                                 : std::filesystem::path(path).parent_path(),
                                             ec);
    const bool full = !ec && room.available < (std::uintmax_t(1) << 20);
    return path + ": the video holds " + std::to_string(held) + " of the " + std::to_string(written) +
           " frames written" + (full ? " (its disk is full: No space left on device)" : " (cut short)");
}

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
    path_ = path;
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

std::optional<std::string> VideoRecorder::close()
{
    if (!writer_)
        return std::nullopt;
    writer_->release();
    writer_.reset();
    return writtenVideoProblem(path_, frames_);
}

bool VideoRecorder::isOpen() const
{
    return writer_ && writer_->isOpened();
}

} // namespace nw
