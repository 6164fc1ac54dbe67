#include "detect/video_recorder.h"

#include "image/image_opencv.h"

#include <filesystem>
#include <opencv2/imgproc.hpp>
#include <unistd.h>

namespace nw {

std::optional<std::string> writtenVideoProblem(const std::string& path, int written)
{
    if (written <= 0)
        return std::nullopt;
    std::string unreadable;
    const auto reader = openVideoFile(path, unreadable);
    const int held = reader ? int(reader->frameCount()) : 0;
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

std::string partialVideoPath(const std::string& path)
{
    const std::filesystem::path whole(path);
    // (ending in .avi: the writer takes its container from the name)
    return (whole.parent_path() /
            ("." + whole.stem().string() + ".partial-" + std::to_string(::getpid()) + ".avi"))
        .string();
}

std::optional<std::string> placeFinishedVideo(const std::string& path, int written)
{
    const std::string partial = partialVideoPath(path);
    std::error_code ec;
    if (auto problem = writtenVideoProblem(partial, written)) {
        std::filesystem::remove(partial, ec);
        std::string said = *problem;
        if (said.starts_with(partial))
            said.replace(0, partial.size(), path);
        return said + (std::filesystem::exists(path, ec) ? "; the earlier " + path + " is kept as it was"
                                                         : std::string("; nothing was written"));
    }
    std::filesystem::rename(partial, path, ec);
    if (ec) {
        std::error_code ignored;
        std::filesystem::remove(partial, ignored);
        return "cannot write " + path + ": " + ec.message();
    }
    return std::nullopt;
}

VideoRecorder::VideoRecorder() = default;
VideoRecorder::~VideoRecorder()
{
    close();
}

std::optional<std::string> VideoRecorder::open(const std::string& path, int width, int height, double fps)
{
    close();
    std::string unloadable;
    const media::Codecs* codecs = media::codecs(unloadable);
    if (!codecs)
        return path + ": cannot write a video: " + unloadable;
    writer_ = codecs->openMotionJpeg(partialVideoPath(path), fps > 0 ? fps : 25, width, height);
    if (!writer_)
        return path + ": cannot write a video there (an .avi file in a writable folder is needed)";
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
    return placeFinishedVideo(path_, frames_);
}

bool VideoRecorder::isOpen() const
{
    return writer_ != nullptr;
}

} // namespace nw
