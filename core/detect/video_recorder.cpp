#include "detect/video_recorder.h"

#include "image/image_opencv.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <opencv2/imgproc.hpp>
#include <unistd.h>
#include <vector>

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

namespace {

// A link, a device or a file this user may not write is written as it always was, in place: through
// the link, or refused at opening (a rename would replace the link, or a read-only video).
bool writtenInPlace(const std::string& path)
{
    std::error_code ec;
    return std::filesystem::is_symlink(path, ec) ||
           (std::filesystem::exists(path, ec) &&
            (!std::filesystem::is_regular_file(path, ec) || ::access(path.c_str(), W_OK) != 0));
}

// The partial videos of processes that are gone (killed, a second Ctrl+C, a crashed studio): removed
// before another is written beside them.
void removeAbandonedPartials(const std::string& path)
{
    const std::filesystem::path whole(path);
    const std::string prefix = "." + whole.stem().string() + ".partial-";
    std::error_code ec;
    std::vector<std::filesystem::path> abandoned;
    for (const auto& entry :
         std::filesystem::directory_iterator(whole.parent_path().empty() ? "." : whole.parent_path(), ec)) {
        const std::string name = entry.path().filename().string();
        if (!name.starts_with(prefix) || !name.ends_with(".avi"))
            continue;
        const std::string pid = name.substr(prefix.size(), name.size() - prefix.size() - 4);
        if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos || pid.size() > 9)
            continue;
        // (and untouched for an hour: a pid of another machine or container sharing the folder looks gone)
        const auto age = std::filesystem::file_time_type::clock::now() - entry.last_write_time(ec);
        if (!ec && age > std::chrono::hours(1) && ::kill(pid_t(std::stol(pid)), 0) != 0 && errno == ESRCH)
            abandoned.push_back(entry.path());
    }
    for (const auto& file : abandoned)
        std::filesystem::remove(file, ec);
}

} // namespace

std::optional<std::string> videoPathProblem(const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return "cannot write " + path + ": a folder of that name is there; move it away";
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    if (!folder.empty() && !std::filesystem::is_directory(folder, ec))
        return "cannot write " + path + ": " + folder.string() +
               (std::filesystem::exists(folder, ec) ? " is not a folder" : " does not exist");
    return std::nullopt;
}

std::string videoWritingPath(const std::string& path)
{
    if (writtenInPlace(path))
        return path;
    removeAbandonedPartials(path);
    return partialVideoPath(path);
}

std::optional<std::string> placeFinishedVideo(const std::string& path, const std::string& writtenTo,
                                              int written)
{
    if (writtenTo == path) // written in place (videoWritingPath)
        return writtenVideoProblem(path, written);
    const std::string& partial = writtenTo;
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
    if (ec) // (the finished video kept: an hour's recording is not thrown away for its name)
        return "cannot put the video in place of " + path + " (" + ec.message() + "): it is whole in " +
               partial;
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
    if (auto problem = videoPathProblem(path))
        return problem;
    writingPath_ = videoWritingPath(path);
    writer_ = codecs->openMotionJpeg(writingPath_, fps > 0 ? fps : 25, width, height);
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
    return placeFinishedVideo(path_, writingPath_, frames_);
}

bool VideoRecorder::isOpen() const
{
    return writer_ != nullptr;
}

} // namespace nw
